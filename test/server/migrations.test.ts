// Migrations: how a migration's text is run, and what a migration makes of a database written by an older version.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/storage/database.js';
import { KEPT_EVENT_TIMES, migrate, statements } from '../../server/storage/schema.js';
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
  it("keep each event name's latest times beside its count: made from the log, then kept by whatever writes it", async () => {
    const server = await freshPostgresDatabase();
    const older = await openDatabase(server?.url ?? 'memory', { schemaUpTo: 18, cacheUsers: 0, poolSize: 2 });
    try {
      await older.query("INSERT INTO users (id) VALUES ('a'), ('b')");
      await older.query("INSERT INTO groups (id) VALUES ('g')");
      // `a` has 40 exports, one an hour, more than are kept; `b` two sign-ins; the group one renewal.
      await older.query(
        `INSERT INTO user_events (user_id, event, created_at)
         SELECT 'a', 'exported', timestamptz '2026-11-01T00:00:00.123456Z' + n * interval '1 hour' FROM generate_series(1, 40) AS n
         UNION ALL SELECT 'b', 'signed-in', timestamptz '2026-11-02T00:00:00Z' + n * interval '1 minute' FROM generate_series(1, 2) AS n`,
      );
      await older.query(
        "INSERT INTO group_events (group_id, event, created_at) VALUES ('g', 'renewed', '2026-11-03T00:00:00Z')",
      );
      await older.query(
        'INSERT INTO user_event_counts (user_id, event, count) SELECT user_id, event, count(*) FROM user_events GROUP BY 1, 2',
      );
      await older.query(
        'INSERT INTO group_event_counts (group_id, event, count) SELECT group_id, event, count(*) FROM group_events GROUP BY 1, 2',
      );
      expect(await migrate(older, 19)).toEqual([19]);
      const times = async (user: string, event: string) =>
        (
          await older.query<{ times: number[] }>(
            'SELECT times FROM user_event_counts WHERE user_id = $1 AND event = $2',
            [user, event],
          )
        )[0].times;
      const fromLog = async (user: string, event: string) =>
        (
          await older.query<{ t: number }>(
            `SELECT (extract(epoch FROM created_at) * 1000)::float8 AS t FROM user_events WHERE user_id = $1 AND event = $2
             ORDER BY created_at DESC LIMIT ${KEPT_EVENT_TIMES}`,
            [user, event],
          )
        )
          .map((row) => row.t)
          .reverse();
      // The latest 32 of the 40, oldest first, to the microsecond.
      expect(await times('a', 'exported')).toHaveLength(KEPT_EVENT_TIMES);
      expect(await times('a', 'exported')).toEqual(await fromLog('a', 'exported'));
      expect((await times('a', 'exported'))[0]).toBe(Date.parse('2026-11-01T09:00:00.123Z') + 0.456);
      expect(await times('b', 'signed-in')).toEqual(await fromLog('b', 'signed-in'));
      const [group] = await older.query<{ times: number[] }>(
        "SELECT times FROM group_event_counts WHERE group_id = 'g'",
      );
      expect(group.times).toEqual([Date.parse('2026-11-03T00:00:00Z')]);
      // Appended events merge in, whoever appends them and in whatever order their times come, the oldest dropping out.
      await older.query(
        `INSERT INTO user_events (user_id, event, created_at) VALUES ('a', 'exported', '2026-12-01T00:00:00Z'),
         ('a', 'exported', '2026-11-01T12:30:00Z'), ('a', 'exported', '2026-10-01T00:00:00Z')`,
      );
      await older.query("UPDATE user_event_counts SET count = count + 3 WHERE user_id = 'a' AND event = 'exported'");
      expect(await times('a', 'exported')).toEqual(await fromLog('a', 'exported'));
      expect(await times('a', 'exported')).toContain(Date.parse('2026-11-01T12:30:00Z'));
      // Events moved to another user (a guest linked) or given another time make the times of both users again.
      await older.query(
        "INSERT INTO user_event_counts (user_id, event, count) VALUES ('b', 'exported', 43) ON CONFLICT DO NOTHING",
      );
      await older.query("UPDATE user_events SET user_id = 'b' WHERE user_id = 'a'");
      expect(await times('b', 'exported')).toEqual(await fromLog('b', 'exported'));
      expect(await times('a', 'exported')).toEqual([]);
      await older.query(
        "UPDATE user_events SET created_at = '2025-01-01T00:00:00Z' WHERE user_id = 'b' AND event = 'signed-in'",
      );
      expect(await times('b', 'signed-in')).toEqual([
        Date.parse('2025-01-01T00:00:00Z'),
        Date.parse('2025-01-01T00:00:00Z'),
      ]);
    } finally {
      await older.close();
      await server?.drop();
    }
  });
});
