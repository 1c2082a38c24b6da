// Analytics kept at write time, in SQL: each user's first start, completion and skip of a flow and its steps, and of its
// reshowings (the facts, worked out in progress-facts.ts), and counts by flow, UTC day of first start, version, step and
// locale of that start (the rollups), so a report reads a few rows a day. Answer counts are in answer-counts.ts.
import type { FactsRow } from '../storage/snapshot-cache.js';
import { asOneStatement, type Queryable } from '../storage/store.js';
import { answerCounts, writeAnswerCounts } from './answer-counts.js';
import {
  applyUpdate,
  difference,
  factsOf,
  type DailyDelta,
  type ProgressUpdate,
  type RollupChanges,
} from './progress-facts.js';

const FACTS_SQL = `
SELECT f.flow_slug, f.flow_version, f.locale, f.started_at, f.completed_at, f.skipped_at, f.reshown_at, f.reshows, f.reshow_completed_at, f.reshow_skipped_at,
       (SELECT json_agg(json_build_array(s.step_id, s.reached_at, s.completed_at, s.skipped_at))
          FROM analytics_step_users s WHERE s.user_id = f.user_id AND s.flow_slug = f.flow_slug) AS steps
FROM analytics_flow_users f WHERE f.user_id = $1`;

/**
 * The same facts of a user in every flow as one JSON value (FactsRow objects, or null), for the statement that
 * loads a user; `$1` is the user.
 */
export const USER_FACTS_JSON_SQL = `(SELECT json_agg(facts) FROM (${FACTS_SQL}) AS facts)`;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Adds the rows' changes to the rollups, in key order, so concurrent writers lock rows in one order. */
async function writeRollups(tx: Queryable, changes: RollupChanges): Promise<void> {
  const params: unknown[] = [];
  const writes = rollupWrites(changes, (value) => `$${params.push(value)}`);
  if (writes.length > 0) await tx.query(asOneStatement(writes), params);
}

/** The statements that add `changes` to the rollups, as data-modifying WITH queries; `$` numbers a parameter. */
function rollupWrites(changes: RollupChanges, $: (value: unknown) => string): string[] {
  const writes: string[] = [];
  const order = (d: DailyDelta) => `${d.slug}\u0000${d.day}\u0000${d.version}\u0000${d.stepId}\u0000${d.locale}`;
  const daily = [...changes.daily].sort((a, b) => (order(a) < order(b) ? -1 : 1));
  if (daily.length > 0) {
    writes.push(
      `INSERT INTO analytics_daily (flow_slug, day, flow_version, step_id, started, completed, skipped, reached, dropped,
                                    reshown, comebacks, reshow_completed, reshow_skipped, locale)
       SELECT * FROM unnest(${$(daily.map((d) => d.slug))}::text[], ${$(daily.map((d) => d.day))}::date[], ${$(daily.map((d) => d.version))}::int[],
         ${$(daily.map((d) => d.stepId))}::text[], ${$(daily.map((d) => d.started))}::int[], ${$(daily.map((d) => d.completed))}::int[],
         ${$(daily.map((d) => d.skipped))}::int[], ${$(daily.map((d) => d.reached))}::int[], ${$(daily.map((d) => d.dropped))}::int[],
         ${$(daily.map((d) => d.reshown))}::int[], ${$(daily.map((d) => d.comebacks))}::int[], ${$(daily.map((d) => d.reshowCompleted))}::int[],
         ${$(daily.map((d) => d.reshowSkipped))}::int[], ${$(daily.map((d) => d.locale))}::text[])
       ORDER BY 1, 2, 3, 4, 14
       ON CONFLICT (flow_slug, day, flow_version, step_id, locale) DO UPDATE SET
         started = analytics_daily.started + EXCLUDED.started, completed = analytics_daily.completed + EXCLUDED.completed,
         skipped = analytics_daily.skipped + EXCLUDED.skipped, reached = analytics_daily.reached + EXCLUDED.reached,
         dropped = analytics_daily.dropped + EXCLUDED.dropped, reshown = analytics_daily.reshown + EXCLUDED.reshown,
         comebacks = analytics_daily.comebacks + EXCLUDED.comebacks, reshow_completed = analytics_daily.reshow_completed + EXCLUDED.reshow_completed,
         reshow_skipped = analytics_daily.reshow_skipped + EXCLUDED.reshow_skipped`,
    );
  }
  const durations = changes.durations;
  if (durations.length > 0) {
    writes.push(
      `INSERT INTO analytics_durations (flow_slug, day, flow_version, bucket, count, locale)
       SELECT * FROM unnest(${$(durations.map((d) => d.slug))}::text[], ${$(durations.map((d) => d.day))}::date[], ${$(durations.map((d) => d.version))}::int[],
         ${$(durations.map((d) => d.bucket))}::smallint[], ${$(durations.map((d) => d.count))}::int[], ${$(durations.map((d) => d.locale))}::text[])
       ORDER BY 1, 2, 3, 4, 6
       ON CONFLICT (flow_slug, day, flow_version, bucket, locale) DO UPDATE SET count = analytics_durations.count + EXCLUDED.count`,
    );
  }
  return writes;
}

/** The user's facts in one flow (null: none), for a transaction that does not already hold them. Runs after the user's row is locked. */
export async function readFacts(tx: Queryable, userId: string, slug: string): Promise<FactsRow | null> {
  return (await tx.query<FactsRow>(`${FACTS_SQL} AND f.flow_slug = $2`, [userId, slug]))[0] ?? null;
}

/**
 * The writes that record what one transition did to a user's progress in a flow: the first start (on `version`),
 * the first completion and skip, and the steps reached, completed and skipped; and the change added to the rollups.
 * They are data-modifying WITH queries, each on a table of its own, for the statement that writes the transition's
 * rows: `$1` is the user and `$2` the flow, and `$` numbers the rest. `row` is the user's facts in this flow before
 * the transition (null: none). None when the transition changes no fact.
 */
export function progressWrites(
  flow: { slug: string; version: number },
  update: ProgressUpdate,
  row: FactsRow | null,
  $: (value: unknown) => string,
): string[] {
  const before = row ? factsOf(row) : undefined;
  const after = applyUpdate(before, update, flow.version);
  if (!after) return [];
  const changes = difference(flow.slug, before, after);
  if (changes.daily.length === 0 && changes.durations.length === 0) return [];
  const steps = [...after.steps].filter(([id, step]) => {
    const old = before?.steps.get(id);
    return !old || old.completedAt !== step.completedAt || old.skippedAt !== step.skippedAt;
  });
  return [
    `INSERT INTO analytics_flow_users (user_id, flow_slug, flow_version, locale, started_at, completed_at, skipped_at, reshown_at, reshows, reshow_completed_at, reshow_skipped_at)
     VALUES ($1, $2, ${$(after.version)}, ${$(after.locale)}, ${$(iso(after.startedAt))}, ${$(iso(after.completedAt))}, ${$(iso(after.skippedAt))},
             ${$(iso(after.reshownAt))}, ${$(after.reshows)}::int, ${$(iso(after.reshowCompletedAt))}, ${$(iso(after.reshowSkippedAt))})
     ON CONFLICT (user_id, flow_slug) DO UPDATE SET completed_at = EXCLUDED.completed_at, skipped_at = EXCLUDED.skipped_at,
       reshown_at = EXCLUDED.reshown_at, reshows = EXCLUDED.reshows, reshow_completed_at = EXCLUDED.reshow_completed_at,
       reshow_skipped_at = EXCLUDED.reshow_skipped_at`,
    `INSERT INTO analytics_step_users (user_id, flow_slug, step_id, reached_at, completed_at, skipped_at)
     SELECT $1, $2, s.step_id, s.reached_at, s.completed_at, s.skipped_at
     FROM unnest(${$(steps.map(([id]) => id))}::text[], ${$(steps.map(([, step]) => iso(step.reachedAt)))}::timestamptz[],
                 ${$(steps.map(([, step]) => iso(step.completedAt)))}::timestamptz[], ${$(steps.map(([, step]) => iso(step.skippedAt)))}::timestamptz[])
          AS s(step_id, reached_at, completed_at, skipped_at)
     ON CONFLICT (user_id, flow_slug, step_id) DO UPDATE SET completed_at = EXCLUDED.completed_at, skipped_at = EXCLUDED.skipped_at`,
    ...rollupWrites(changes, $),
  ];
}

/**
 * Takes a user out of the rollups and the answer counts, before the user is deleted (the facts and the log go
 * with the user's row), so a deleted user is in no count.
 */
export async function forgetProgress(tx: Queryable, userId: string): Promise<void> {
  const rows = await tx.query<FactsRow>(FACTS_SQL, [userId]);
  const changes: RollupChanges = { daily: [], durations: [] };
  for (const row of rows) {
    const { daily, durations } = difference(row.flow_slug, factsOf(row), undefined);
    changes.daily.push(...daily);
    changes.durations.push(...durations);
  }
  await writeRollups(tx, changes);
  await writeAnswerCounts(
    tx,
    `SELECT flow_slug, step_id, action_type, data, created_at, flow_version, locale FROM flow_responses WHERE user_id = $1 AND action_type = 'COMPLETED_STEP'`,
    -1,
    [userId],
  );
}

/**
 * The rollups as the facts say they should be (what the write path keeps up to date), for checks and for
 * seeding benchmarks: one row per flow, day, version, step and locale, and one per duration bucket and locale; the
 * locale comes last in each.
 */
export const ROLLUPS_FROM_FACTS_SQL = {
  daily: `
    SELECT flow_slug, (started_at AT TIME ZONE 'UTC')::date AS day, flow_version, '' AS step_id,
           count(*)::int AS started, count(completed_at)::int AS completed, count(skipped_at)::int AS skipped, 0 AS reached, 0 AS dropped,
           count(reshown_at)::int AS reshown, sum(reshows)::int AS comebacks, count(reshow_completed_at)::int AS reshow_completed,
           count(reshow_skipped_at)::int AS reshow_skipped, locale
    FROM analytics_flow_users GROUP BY 1, 2, 3, 14
    UNION ALL
    SELECT s.flow_slug, (f.started_at AT TIME ZONE 'UTC')::date, f.flow_version, s.step_id,
           0, count(s.completed_at)::int, count(s.skipped_at)::int, count(*)::int,
           (count(*) FILTER (WHERE s.completed_at IS NULL AND s.skipped_at IS NULL AND f.completed_at IS NULL))::int, 0, 0, 0, 0, f.locale
    FROM analytics_step_users s JOIN analytics_flow_users f ON f.user_id = s.user_id AND f.flow_slug = s.flow_slug
    GROUP BY 1, 2, 3, 4, 14`,
  durations: `
    SELECT flow_slug, day, flow_version, bucket, count(*)::int AS count, locale FROM (
      SELECT flow_slug, (started_at AT TIME ZONE 'UTC')::date AS day, flow_version, locale,
             CASE WHEN completed_at - started_at < interval '1 second' THEN 0
                  ELSE LEAST(1 + floor(4 * log(2.0, extract(epoch FROM completed_at - started_at)::numeric)), 127) END::int AS bucket
      FROM analytics_flow_users WHERE completed_at IS NOT NULL
    ) AS d GROUP BY 1, 2, 3, 4, 6`,
  /** analytics_answers from the response log. */
  answers: answerCounts(
    'SELECT flow_slug, step_id, action_type, data, created_at, flow_version, locale FROM flow_responses',
    1,
  ),
};
