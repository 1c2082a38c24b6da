// The embedded store's own autovacuum: tables analysed and vacuumed by PostgreSQL's thresholds, so statements planned on empty tables plan again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { USER_FACTS_JSON_SQL } from '../../server/analytics/progress.js';
import { openDatabase, type DatabaseOptions } from '../../server/storage/database.js';
import type { Database } from '../../server/storage/store.js';

interface TableStats {
  last_analyze: Date | null;
  n_dead_tup: number;
  n_mod_since_analyze: number;
}

describe("the embedded store's maintenance", () => {
  const opened: Database[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const open = async (options: DatabaseOptions = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'onboarding-maintenance-'));
    dirs.push(dir);
    // No pass by itself unless asked: the test says when one runs.
    const db = await openDatabase(dir, { maintenanceIntervalMs: 0, ...options });
    opened.push(db);
    return db;
  };
  // A backend sends its row counts to the statistics at most once a second; the tests do not wait for it.
  const flushCounts = (db: Database) => db.query('SELECT pg_stat_force_next_flush()');
  const stats = async (db: Database, table: string) => {
    const [row] = await db.query<TableStats>(
      'SELECT last_analyze, n_dead_tup::int, n_mod_since_analyze::int FROM pg_stat_user_tables WHERE relname = $1',
      [table],
    );
    return row;
  };
  /** The plan a statement the store prepared runs now (EXPLAIN EXECUTE of its prepared name). */
  const preparedPlan = async (db: Database, sql: string, args: string) => {
    const [{ name }] = await db.query<{ name: string }>(
      'SELECT name FROM pg_prepared_statements WHERE statement = $1',
      [sql],
    );
    return (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${name}(${args})`))
      .map((row) => row['QUERY PLAN'])
      .join('\n');
  };

  const visibility = async (db: Database, table: string) => {
    const [row] = await db.query<{ relpages: number; relallvisible: number }>(
      'SELECT relpages, relallvisible FROM pg_class WHERE relname = $1',
      [table],
    );
    return row;
  };
  /** The table pages read by a count of one user's events in the last day, through the (user, event, time) index. */
  const heapFetches = async (db: Database) => {
    const plan = (
      await db.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM user_events
         WHERE user_id = 'user-7' AND event = 'exported' AND created_at > now() - interval '1 day'`,
      )
    )
      .map((row) => row['QUERY PLAN'])
      .join('\n');
    const fetches = /Heap Fetches: (\d+)/.exec(plan) ?? /Heap Blocks: exact=(\d+)/.exec(plan);
    if (!fetches) throw new Error(`no index scan in:\n${plan}`);
    return Number(fetches[1]);
  };

  it('plans the read of a user again once the tables it was planned on have grown', async () => {
    const db = await open();
    // Statistics taken while the analytics tables were empty (an ANALYZE after a bulk load, as the benchmarks'
    // seeding runs), then the read of a user's facts, prepared and run: after five runs PostgreSQL keeps its
    // generic plan, made for empty tables.
    const sql = `SELECT ${USER_FACTS_JSON_SQL} AS facts`;
    await db.query('ANALYZE');
    for (let run = 0; run < 8; run++) await db.query(sql, ['user-1']);
    await db.query(`INSERT INTO users (id) SELECT 'user-' || n FROM generate_series(1, 3000) n`);
    await db.query(`INSERT INTO analytics_flow_users (user_id, flow_slug, flow_version, started_at)
      SELECT 'user-' || n, 'flow-' || f, 1, now() FROM generate_series(1, 3000) n, generate_series(1, 4) f`);
    await db.query(`INSERT INTO analytics_step_users (user_id, flow_slug, step_id, reached_at)
      SELECT 'user-' || n, 'flow-' || f, 'step-' || s, now() FROM generate_series(1, 3000) n, generate_series(1, 4) f, generate_series(1, 3) s`);
    // 12,000 and 36,000 rows later the plan still scans both tables, for every user read.
    expect(await preparedPlan(db, sql, "'user-1'")).toMatch(/Seq Scan on analytics_step_users/);
    await flushCounts(db);
    const report = await db.maintain!();
    expect(report.analyzed).toEqual(
      expect.arrayContaining(['public.analytics_flow_users', 'public.analytics_step_users']),
    );
    const plan = await preparedPlan(db, sql, "'user-1'");
    expect(plan).not.toMatch(/Seq Scan/);
    expect(plan).toMatch(/analytics_step_users_pkey/);
    // The same answer either way.
    const [{ facts }] = await db.query<{ facts: Array<{ flow_slug: string; steps: unknown[] }> }>(sql, ['user-7']);
    expect(facts.map((fact) => [fact.flow_slug, fact.steps.length])).toEqual([
      ['flow-1', 3],
      ['flow-2', 3],
      ['flow-3', 3],
      ['flow-4', 3],
    ]);
  });

  it("analyses and vacuums a table past PostgreSQL's thresholds, and leaves the rest alone", async () => {
    const db = await open();
    await db.maintain!();
    await db.query(`INSERT INTO users (id) SELECT 'user-' || n FROM generate_series(1, 400) n`);
    await flushCounts(db);
    const first = await db.maintain!();
    expect(first.analyzed).toContain('public.users');
    expect(first.analyzed).not.toContain('public.groups');
    expect((await stats(db, 'users')).last_analyze).not.toBeNull();
    expect((await stats(db, 'users')).n_mod_since_analyze).toBe(0);

    // 40 changed rows of 400 are under 50 + 10 %: nothing is due.
    await db.query(
      `UPDATE users SET properties = '{"plan":"pro"}' WHERE id IN (SELECT 'user-' || n FROM generate_series(1, 40) n)`,
    );
    await flushCounts(db);
    expect(await db.maintain!()).toEqual({ analyzed: [], vacuumed: [] });

    // Every row updated twice more: 840 dead rows, past 50 + 20 % of 400.
    await db.query(`UPDATE users SET properties = '{"plan":"free"}'`);
    await db.query(`UPDATE users SET properties = '{"plan":"team"}'`);
    await flushCounts(db);
    expect((await stats(db, 'users')).n_dead_tup).toBeGreaterThan(130);
    const second = await db.maintain!();
    expect(second).toEqual({ analyzed: ['public.users'], vacuumed: ['public.users'] });
    expect((await stats(db, 'users')).n_dead_tup).toBe(0);
  });

  it('vacuums a table whose rows were loaded before the store opened, so an index-only scan skips its pages', async () => {
    const db = await open();
    await db.query(`INSERT INTO users (id) SELECT 'user-' || n FROM generate_series(1, 100) n`);
    await db.query(`INSERT INTO user_events (user_id, event, created_at)
      SELECT 'user-' || (n % 100 + 1), 'exported', now() - n * interval '1 minute' FROM generate_series(1, 20000) n`);
    // As a store opened on that data finds it: the counters of rows inserted since the last VACUUM at zero (they are
    // kept in memory only), and statistics taken, as an ANALYZE after a bulk load takes them. The load's counts are
    // flushed before the reset: left pending, they would land after it, even after the first pass's VACUUM.
    await flushCounts(db);
    await db.query('SELECT pg_stat_reset()');
    await db.query('ANALYZE user_events');
    const before = await visibility(db, 'user_events');
    expect(before.relpages).toBeGreaterThanOrEqual(8);
    expect(before.relallvisible).toBeLessThan(before.relpages / 2);
    expect((await stats(db, 'user_events')).n_dead_tup).toBe(0);
    expect(await heapFetches(db)).toBeGreaterThan(0);

    const report = await db.maintain!();
    expect(report.vacuumed).toContain('public.user_events');
    const after = await visibility(db, 'user_events');
    expect(after.relallvisible).toBe(after.relpages);
    expect(await heapFetches(db)).toBe(0);
    // Once marked, it is not vacuumed again with nothing changed.
    expect((await db.maintain!()).vacuumed).not.toContain('public.user_events');
  });

  /** Where the last checkpoint's redo starts (a store opened after a crash replays the WAL from there), and where the WAL ends. */
  const walPositions = async (db: Database) => {
    const [row] = await db.query<{ redo: string; end: string }>(
      `SELECT (redo_lsn - '0/0'::pg_lsn)::text AS redo, (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text AS end
       FROM pg_control_checkpoint()`,
    );
    return { redo: BigInt(row.redo), end: BigInt(row.end) };
  };

  it('checkpoints, as PostgreSQL does on time, once WAL was written since the last checkpoint', async () => {
    const db = await open({ checkpointTimeoutMs: 0 });
    // Each pass's row counts flushed first: counted late, they would make a later pass analyse, which writes WAL.
    await flushCounts(db);
    await db.maintain!();
    const quiet = await walPositions(db);
    // Nothing written since: no checkpoint, the redo point stays.
    expect((await db.maintain!()).checkpointed).toBeUndefined();
    expect((await walPositions(db)).redo).toBe(quiet.redo);

    await db.query(`INSERT INTO users (id) SELECT 'user-' || n FROM generate_series(1, 400) n`);
    await flushCounts(db);
    const written = await walPositions(db);
    expect(written.end).toBeGreaterThan(quiet.end);
    expect((await db.maintain!()).checkpointed).toBe(true);
    // A crash now replays nothing of that write: the redo point is past it.
    expect((await walPositions(db)).redo).toBeGreaterThanOrEqual(written.end);
    expect((await db.maintain!()).checkpointed).toBeUndefined();
  });

  it("waits for PostgreSQL's checkpoint_timeout, 5 minutes, before the next checkpoint", async () => {
    const db = await open();
    await db.query('CHECKPOINT');
    const before = await walPositions(db);
    await db.query(`INSERT INTO users (id) SELECT 'user-' || n FROM generate_series(1, 400) n`);
    expect((await db.maintain!()).checkpointed).toBeUndefined();
    expect((await walPositions(db)).redo).toBe(before.redo);
  });

  it('runs by itself', async () => {
    const db = await open({ maintenanceIntervalMs: 100 });
    await db.query(`INSERT INTO users (id) SELECT 'user-' || n FROM generate_series(1, 400) n`);
    await flushCounts(db);
    await expect
      .poll(async () => (await stats(db, 'users')).last_analyze, { timeout: 15_000, interval: 100 })
      .not.toBeNull();
  });
});
