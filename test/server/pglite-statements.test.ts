// The embedded store's prepared statements: the same answers as PGlite's own query(), parsed once, bounded, and errors as PostgreSQL's.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/storage/database.js';
import type { Database } from '../../server/storage/store.js';
import { PreparedStatements } from '../../server/storage/pglite-statements.js';

describe('PreparedStatements', () => {
  let lite: PGlite;
  beforeAll(async () => {
    lite = await PGlite.create();
    await lite.exec('CREATE TABLE t (id text PRIMARY KEY, doc jsonb, tags text[], at timestamptz, n int, ok boolean)');
  });
  afterAll(() => lite.close());
  // Each test starts a session of its own: no statement prepared, no row.
  beforeEach(() => lite.exec('DEALLOCATE ALL; TRUNCATE t'));

  const prepared = async () =>
    (await lite.query<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements')).rows;

  it("answers as PGlite's query() does, for every type the service sends and reads", async () => {
    const statements = new PreparedStatements(lite);
    const insert = 'INSERT INTO t (id, doc, tags, at, n, ok) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *';
    const values = (id: string) => [
      id,
      { a: [1, 'two', null], quote: 'it\'s "so"' },
      ['x', 'y,z', 'q"uote', 'back\\slash'],
      new Date('2026-03-01T09:30:00.123Z'),
      7,
      true,
    ];
    const ours = await statements.query(insert, values('ours'));
    const theirs = (await lite.query(insert, values('theirs'))).rows;
    expect(ours).toEqual([{ ...(theirs[0] as object), id: 'ours' }]);
    // JSON given as text is stored as that JSON, and nulls as NULL.
    await statements.query('INSERT INTO t (id, doc, n) VALUES ($1, $2::jsonb, $3)', ['text', '{"b":2}', null]);
    expect(await statements.query('SELECT doc, n, tags FROM t WHERE id = $1', ['text'])).toEqual([
      { doc: { b: 2 }, n: null, tags: null },
    ]);
    expect(await statements.query('SELECT count(*)::int AS n FROM unnest($1::text[]) AS x', [['a', 'b', 'c']])).toEqual(
      [{ n: 3 }],
    );
  });

  it('parses a statement once, however often it runs', async () => {
    const statements = new PreparedStatements(lite);
    for (let i = 0; i < 20; i++) await statements.query('INSERT INTO t (id, n) VALUES ($1, $2)', [`row-${i}`, i]);
    expect(statements.size).toBe(1);
    expect(await prepared()).toHaveLength(1);
    expect(await statements.query<{ n: number }>('SELECT n FROM t WHERE id = $1', ['row-19'])).toEqual([{ n: 19 }]);
  });

  it('keeps at most its bound, closing the least recently used', async () => {
    const statements = new PreparedStatements(lite, 2);
    const select = (column: string) => `SELECT ${column} FROM t WHERE id = $1`;
    await statements.query(select('n'), ['a']);
    await statements.query(select('doc'), ['a']);
    // n used again, so doc is the least recently used when a third statement comes.
    await statements.query(select('n'), ['a']);
    await statements.query(select('tags'), ['a']);
    expect(statements.size).toBe(2);
    expect((await prepared()).map((row) => row.statement).sort()).toEqual([select('n'), select('tags')].sort());
    // A closed statement is prepared again when it comes back.
    expect(await statements.query(select('doc'), ['a'])).toEqual([]);
    expect(await prepared()).toHaveLength(2);
  });

  it("throws PostgreSQL's errors with their codes, keeps no statement that did not parse, and goes on working", async () => {
    const statements = new PreparedStatements(lite);
    await expect(statements.query('SELEC n FROM t WHERE id = $1', ['a'])).rejects.toMatchObject({ code: '42601' });
    expect(statements.size).toBe(0);
    await statements.query('INSERT INTO t (id) VALUES ($1)', ['dup']);
    await expect(statements.query('INSERT INTO t (id) VALUES ($1)', ['dup'])).rejects.toMatchObject({ code: '23505' });
    await expect(statements.query('SELECT $1::int AS n', ['not a number'])).rejects.toMatchObject({ code: '22P02' });
    expect(await statements.query('SELECT $1::int AS n', ['5'])).toEqual([{ n: 5 }]);
  });
});

describe("the embedded store's transactions", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase('memory', { cacheUsers: 0 });
  });
  afterAll(() => db.close());

  const count = async (id: string) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE id = $1', [id]))[0].n;

  it('commits what the work wrote, and rolls back all of it when the work throws', async () => {
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO users (id) VALUES ($1)', ['kept']);
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO users (id) VALUES ($1)', ['gone']);
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    expect([await count('kept'), await count('gone')]).toEqual([1, 0]);
  });

  it('fails a transaction whose statement failed even when the work went on, and stores none of it', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO users (id) VALUES ($1)', ['half']);
        await tx.query('INSERT INTO users (id) VALUES ($1)', ['half']).catch(() => {});
      }),
    ).rejects.toThrow(/rolled back/);
    expect(await count('half')).toBe(0);
    // The next transaction starts clean.
    await db.transaction((tx) => tx.query('INSERT INTO users (id) VALUES ($1)', ['after']));
    expect(await count('after')).toBe(1);
  });
});
