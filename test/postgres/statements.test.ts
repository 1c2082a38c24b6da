// Named statements on PostgreSQL: a statement with parameters is parsed and planned once per connection, and the number named is bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/storage/database.js';
import type { Database } from '../../server/storage/store.js';
import { freshPostgresDatabase } from '../support/service.js';

let database: { url: string; drop(): Promise<void> };
let db: Database;
beforeAll(async () => {
  database = (await freshPostgresDatabase())!;
  // One connection, so the statements it prepared are the ones pg_prepared_statements shows.
  db = await openDatabase(database.url, { poolSize: 1 });
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

const prepared = async () =>
  (await db.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements ORDER BY prepare_time')).map(
    (row) => row.statement,
  );

describe('statements on PostgreSQL', () => {
  it('prepares a statement with parameters once on its connection, inside transactions and out, and no statement without', async () => {
    const select = 'SELECT count(*)::int AS n FROM users WHERE id = $1';
    const insert = 'INSERT INTO users (id) VALUES ($1)';
    // The schema's migrations ran some on this connection before.
    const before = await prepared();
    for (let i = 0; i < 10; i++) {
      await db.transaction((tx) => tx.query(insert, [`named-${i}`]));
      expect(await db.query(select, [`named-${i}`])).toEqual([{ n: 1 }]);
    }
    expect(await prepared()).toEqual([...before, insert, select]);
    // An error in a prepared statement reaches the caller with its code, and the statement goes on working.
    await expect(db.query(insert, ['named-0'])).rejects.toMatchObject({ code: '23505' });
    await db.query(insert, ['named-10']);
  });

  it('names at most 200 texts; any more run unnamed', async () => {
    for (let i = 0; i < 220; i++) expect(await db.query(`SELECT $1::int + ${i} AS n`, [1])).toEqual([{ n: i + 1 }]);
    expect(await prepared()).toHaveLength(200);
  });
});
