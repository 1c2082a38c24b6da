// Migrations: how a migration's text is run, and what a migration makes of a database written by an older version.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/storage/database.js';
import { migrate, statements } from '../../server/storage/schema.js';
import { freshPostgresDatabase } from '../support/service.js';

describe('migrations', () => {
  it('run one statement at a time, a function body with semicolons in it as one', () => {
    expect(
      statements(`
  CREATE TABLE a (n int);
  CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO a VALUES (1);
    RETURN NULL;
  END $$;
  CREATE TRIGGER t AFTER INSERT ON b FOR EACH STATEMENT EXECUTE FUNCTION f();
  `),
    ).toEqual([
      'CREATE TABLE a (n int)',
      'CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$\n  BEGIN\n    INSERT INTO a VALUES (1);\n    RETURN NULL;\n  END $$',
      'CREATE TRIGGER t AFTER INSERT ON b FOR EACH STATEMENT EXECUTE FUNCTION f()',
    ]);
  });

  it('fill the latest responses of a database made before they were kept, from its log', async () => {
    const server = await freshPostgresDatabase();
    const older = await openDatabase(server?.url ?? 'memory', { schemaUpTo: 17, cacheUsers: 0, poolSize: 2 });
    try {
      await older.query("INSERT INTO users (id) VALUES ('a'), ('b')");
      // Two users, two flows; steps answered again, the flow's own actions, a step called '' (not a flow action).
      await older.query(
        `INSERT INTO flow_responses (user_id, flow_slug, step_id, action_type, data, created_at)
         SELECT u, f, s, act, json_build_object('n', n)::text, now() - (200 - n) * interval '1 minute'
         FROM generate_series(1, 120) AS n,
              LATERAL (SELECT CASE WHEN n % 2 = 0 THEN 'a' ELSE 'b' END AS u, CASE WHEN n % 3 = 0 THEN 'f1' ELSE 'f2' END AS f,
                              (ARRAY['one', 'two', ''])[n % 3 + 1] AS s,
                              (ARRAY['STARTED_STEP', 'COMPLETED_STEP', 'STARTED_FLOW', 'NOT_STARTED_FLOW'])[n % 4 + 1] AS act) AS pick`,
      );
      expect(await migrate(older, 18)).toEqual([18]);
      const fromLogSql = `SELECT DISTINCT ON (user_id, flow_slug, step_key) id, user_id, flow_slug, step_id, action_type, data
         FROM (SELECT *, CASE WHEN action_type LIKE '%FLOW' THEN NULL ELSE step_id END AS step_key FROM flow_responses) AS log
         ORDER BY user_id, flow_slug, step_key, id DESC`;
      const fromLog = await older.query<Record<string, unknown>>(fromLogSql);
      const keptSql =
        'SELECT response_id AS id, user_id, flow_slug, step_id, action_type, data FROM flow_latest_responses';
      const kept = await older.query<Record<string, unknown>>(keptSql);
      const byId = (a: Record<string, unknown>, b: Record<string, unknown>) => Number(a.id) - Number(b.id);
      expect(fromLog.length).toBeGreaterThan(8);
      expect(kept.sort(byId)).toEqual(fromLog.sort(byId));
      // From then on the table follows whatever writes the log, as an instance of the older version would: a response
      // appended replaces its key's, and responses moved to another user (a guest linked) go with it.
      await older.query(
        "INSERT INTO flow_responses (user_id, flow_slug, step_id, action_type, data) VALUES ('a', 'f1', 'one', 'SKIPPED_STEP', '{}')",
      );
      await older.query("INSERT INTO users (id) VALUES ('c')");
      await older.query("UPDATE flow_responses SET user_id = 'c' WHERE user_id = 'b'");
      const after = {
        kept: (await older.query<Record<string, unknown>>(keptSql)).sort(byId),
        fromLog: (await older.query<Record<string, unknown>>(fromLogSql)).sort(byId),
      };
      expect(after.kept).toEqual(after.fromLog);
      expect(after.kept.filter((row) => row.user_id === 'b')).toEqual([]);
      expect(after.kept.some((row) => row.user_id === 'a' && row.action_type === 'SKIPPED_STEP')).toBe(true);
    } finally {
      await older.close();
      await server?.drop();
    }
  });
});
