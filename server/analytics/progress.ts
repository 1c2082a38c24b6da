// Analytics kept at write time: each user's first start, completion and skip of a flow and its steps, and of its
// reshowings (the facts), counts by flow, UTC day of first start, version, step and locale of that start (the rollups),
// and answers counted by UTC day, step, value and locale, so a report reads a few rows a day.
import type { FactsRow } from '../storage/snapshot-cache.js';
import { asOneStatement, type Queryable } from '../storage/store.js';

/** What one transition did to a flow, as analytics counts it. */
export interface ProgressUpdate {
  at: Date;
  /** The flow's row says started after the transition. */
  started: boolean;
  /** The transition stored the flow's completion. */
  completed: boolean;
  /** The transition stored the flow's skip. */
  skipped: boolean;
  /** Steps reached (acted on, or now the current step), with what was done to them. */
  steps: Array<{ id: string; completed?: boolean; skipped?: boolean }>;
  /** The comebacks (reshow) the flow's row counts after the transition: above 0, this run of the flow came back. */
  reshows: number;
  /**
   * The flow's translation the request's locale resolved to ('' for the source text): a first start records it, and the
   * run is counted under it. One of the flow file's translations, so the rollups hold a bounded number of locales.
   */
  locale: string;
}

interface StepFacts {
  reachedAt: number;
  completedAt: number | null;
  skippedAt: number | null;
}

interface Facts {
  version: number;
  /** The locale of the first start. */
  locale: string;
  startedAt: number;
  completedAt: number | null;
  skippedAt: number | null;
  /** The first action in the flow after it came back. */
  reshownAt: number | null;
  /** The most comebacks acted on in one run of the flow. */
  reshows: number;
  /** The first completion and the first dismissal after a comeback. */
  reshowCompletedAt: number | null;
  reshowSkippedAt: number | null;
  steps: Map<string, StepFacts>;
}

/** One rollup row's change: flow-level when stepId is "". */
interface DailyDelta {
  slug: string;
  day: string;
  version: number;
  locale: string;
  stepId: string;
  started: number;
  completed: number;
  skipped: number;
  reached: number;
  dropped: number;
  /** Flow rows only: users who acted on the flow after it came back, their comebacks, and of them who completed or dismissed it after. */
  reshown: number;
  comebacks: number;
  reshowCompleted: number;
  reshowSkipped: number;
}

/** The counts of a rollup row, which a change adds to. */
const DAILY_COUNTS = ['started', 'completed', 'skipped', 'reached', 'dropped', 'reshown', 'comebacks', 'reshowCompleted', 'reshowSkipped'] as const;
const NO_RESHOWS = { reshown: 0, comebacks: 0, reshowCompleted: 0, reshowSkipped: 0 };

interface DurationDelta {
  slug: string;
  day: string;
  version: number;
  locale: string;
  bucket: number;
  count: number;
}

/**
 * The histogram bucket of a time to complete: 0 below one second, then four buckets per doubling
 * (each about 19 % wide) up to 127. The report interpolates the median within its bucket.
 */
export function durationBucket(ms: number): number {
  const seconds = ms / 1000;
  return seconds < 1 ? 0 : Math.min(1 + Math.floor(4 * Math.log2(seconds)), 127);
}

/** The lower and upper bound of a bucket, in seconds. */
export function bucketBounds(bucket: number): [number, number] {
  return bucket === 0 ? [0, 1] : [2 ** ((bucket - 1) / 4), 2 ** (bucket / 4)];
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const time = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string).getTime());

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

function factsOf(row: FactsRow): Facts {
  return {
    version: row.flow_version,
    // A row cached before the locale was loaded with it reads as none.
    locale: row.locale ?? '',
    startedAt: time(row.started_at)!,
    completedAt: time(row.completed_at),
    skippedAt: time(row.skipped_at),
    reshownAt: time(row.reshown_at),
    reshows: row.reshows,
    reshowCompletedAt: time(row.reshow_completed_at),
    reshowSkippedAt: time(row.reshow_skipped_at),
    steps: new Map((row.steps ?? []).map(([id, reached, completed, skipped]) => [id, { reachedAt: time(reached)!, completedAt: time(completed), skippedAt: time(skipped) }])),
  };
}

/** What one user's facts add to the rollups. */
function contributions(slug: string, facts: Facts): { daily: DailyDelta[]; durations: DurationDelta[] } {
  const day = utcDay(facts.startedAt);
  const key = { slug, day, version: facts.version, locale: facts.locale };
  const daily: DailyDelta[] = [
    {
      ...key,
      stepId: '',
      started: 1,
      completed: facts.completedAt === null ? 0 : 1,
      skipped: facts.skippedAt === null ? 0 : 1,
      reached: 0,
      dropped: 0,
      reshown: facts.reshownAt === null ? 0 : 1,
      comebacks: facts.reshows,
      reshowCompleted: facts.reshowCompletedAt === null ? 0 : 1,
      reshowSkipped: facts.reshowSkippedAt === null ? 0 : 1,
    },
  ];
  for (const [stepId, step] of facts.steps) {
    const open = step.completedAt === null && step.skippedAt === null && facts.completedAt === null;
    daily.push({ ...key, stepId, started: 0, completed: step.completedAt === null ? 0 : 1, skipped: step.skippedAt === null ? 0 : 1, reached: 1, dropped: open ? 1 : 0, ...NO_RESHOWS });
  }
  const durations =
    facts.completedAt === null ? [] : [{ ...key, bucket: durationBucket(Math.max(0, facts.completedAt - facts.startedAt)), count: 1 }];
  return { daily, durations };
}

/** after − before, row by row, without the rows that do not change. */
function difference(slug: string, before: Facts | undefined, after: Facts | undefined): { daily: DailyDelta[]; durations: DurationDelta[] } {
  const daily = new Map<string, DailyDelta>();
  const durations = new Map<string, DurationDelta>();
  const add = (facts: Facts | undefined, sign: 1 | -1) => {
    if (!facts) return;
    const { daily: rows, durations: buckets } = contributions(slug, facts);
    for (const row of rows) {
      const key = `${row.day}\u0000${row.version}\u0000${row.stepId}\u0000${row.locale}`;
      const sum = daily.get(key) ?? { ...row, ...Object.fromEntries(DAILY_COUNTS.map((field) => [field, 0])) };
      for (const field of DAILY_COUNTS) sum[field] += sign * row[field];
      daily.set(key, sum);
    }
    for (const row of buckets) {
      const key = `${row.day}\u0000${row.version}\u0000${row.bucket}\u0000${row.locale}`;
      const sum = durations.get(key) ?? { ...row, count: 0 };
      sum.count += sign * row.count;
      durations.set(key, sum);
    }
  };
  add(after, 1);
  add(before, -1);
  return {
    daily: [...daily.values()].filter((d) => DAILY_COUNTS.some((field) => d[field] !== 0)),
    durations: [...durations.values()].filter((d) => d.count !== 0),
  };
}

/** The facts after an update: only first times are kept, so a restart never counts a user twice. */
function applyUpdate(before: Facts | undefined, update: ProgressUpdate, version: number): Facts | undefined {
  const at = update.at.getTime();
  if (!before && !update.started) return undefined;
  const facts: Facts = before
    ? { ...before, steps: new Map([...before.steps].map(([id, step]) => [id, { ...step }])) }
    : { version, locale: update.locale, startedAt: at, completedAt: null, skippedAt: null, reshownAt: null, reshows: 0, reshowCompletedAt: null, reshowSkippedAt: null, steps: new Map() };
  for (const step of update.steps) {
    const known = facts.steps.get(step.id) ?? { reachedAt: at, completedAt: null, skippedAt: null };
    if (step.completed) known.completedAt ??= at;
    if (step.skipped) known.skippedAt ??= at;
    facts.steps.set(step.id, known);
  }
  if (update.completed) facts.completedAt ??= at;
  if (update.skipped) facts.skippedAt ??= at;
  // The row's count, not the facts, says whether this run came back: a restart sets it to 0 again.
  if (update.reshows > 0) {
    facts.reshownAt ??= at;
    facts.reshows = Math.max(facts.reshows, update.reshows);
    if (update.completed) facts.reshowCompletedAt ??= at;
    if (update.skipped) facts.reshowSkippedAt ??= at;
  }
  return facts;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Adds the rows' changes to the rollups, in key order, so concurrent writers lock rows in one order. */
async function writeRollups(tx: Queryable, changes: { daily: DailyDelta[]; durations: DurationDelta[] }): Promise<void> {
  const params: unknown[] = [];
  const writes = rollupWrites(changes, (value) => `$${params.push(value)}`);
  if (writes.length > 0) await tx.query(asOneStatement(writes), params);
}

/** The statements that add `changes` to the rollups, as data-modifying WITH queries; `$` numbers a parameter. */
function rollupWrites(changes: { daily: DailyDelta[]; durations: DurationDelta[] }, $: (value: unknown) => string): string[] {
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
export function progressWrites(flow: { slug: string; version: number }, update: ProgressUpdate, row: FactsRow | null, $: (value: unknown) => string): string[] {
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
  const changes = { daily: [] as DailyDelta[], durations: [] as DurationDelta[] };
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

/** Longest string an answer's value may be to be counted as a choice; longer ones are comments, read from the log. */
export const MAX_COUNTED_VALUE_LENGTH = 100;

/** Whether a jsonb item `e` is counted as a value: a number, a boolean, or a string of up to MAX_COUNTED_VALUE_LENGTH. */
const COUNTED_ITEM = `(jsonb_typeof(e) IN ('number', 'boolean') OR (jsonb_typeof(e) = 'string' AND length(e #>> '{}') <= ${MAX_COUNTED_VALUE_LENGTH}))`;

/** A jsonb value as the list of its items: a list's own, any other value as one. */
const itemsOf = (value: string) => `jsonb_array_elements(CASE jsonb_typeof(${value}) WHEN 'array' THEN ${value} ELSE jsonb_build_array(${value}) END)`;

/**
 * Which completed steps of `r` (with its data as jsonb `d.doc`) are answers to a SURVEY step given as fields: data that
 * is an object with fields but no `value`, on a version of the flow that is a SURVEY, and not the service's own
 * bootstrap completion.
 */
const FIELDS_ANSWER = `NOT d.doc ? 'value' AND d.doc <> '{}'::jsonb AND r.data <> '{"reason":"bootstrap"}'
      AND EXISTS (SELECT 1 FROM flows AS fl WHERE fl.slug = r.flow_slug AND fl.version = r.flow_version AND fl.type = 'SURVEY')`;

/**
 * The answer counts (analytics_answers) that the responses of `source` make, times `sign`: a completed step whose
 * data has a `value` adds one to its step's row with value '' (the step's answers), and one to the row of each
 * value it gave, as JSON text (`9`, `"friend"`, `true`; a list counts each item, a long string none), by the UTC
 * day of the answer. An answer to a SURVEY step given as fields (`{ "nps-score": 9 }`) adds one to the step's
 * answers too, and one to the row of each field's value, as a JSON object of the field and the value
 * (`{"nps-score": 9}`, a list field once per item), which no `value` answer can be. One SQL for new answers, a
 * deleted user's, and the check against the log, so all agree. `source` yields flow_slug, step_id, action_type,
 * data (JSON text), created_at, flow_version and locale (each answer is counted under its own).
 */
function answerCounts(source: string, sign: 1 | -1): string {
  return `
    SELECT r.flow_slug, (r.created_at AT TIME ZONE 'UTC')::date AS day, coalesce(r.flow_version, 0) AS flow_version, r.step_id, v.value,
           (${sign} * count(*))::int AS count, r.locale
    FROM (${source}) AS r
    CROSS JOIN LATERAL (SELECT r.data::jsonb AS doc) AS d
    CROSS JOIN LATERAL (
      SELECT '' AS value
      UNION ALL
      SELECT e::text FROM ${itemsOf("d.doc -> 'value'")} AS e WHERE ${COUNTED_ITEM}
      UNION ALL
      SELECT jsonb_build_object(f.key, e)::text FROM jsonb_each(d.doc) AS f(key, answer) CROSS JOIN LATERAL ${itemsOf('f.answer')} AS e
      WHERE NOT d.doc ? 'value' AND ${COUNTED_ITEM}
    ) AS v
    WHERE r.action_type = 'COMPLETED_STEP' AND jsonb_typeof(d.doc) = 'object' AND (d.doc ? 'value' OR (${FIELDS_ANSWER}))
    GROUP BY 1, 2, 3, 4, 5, 7`;
}

interface AnswerKey {
  flow_slug: string;
  day: string;
  flow_version: number;
  step_id: string;
  value: string;
  count: number;
  locale: string;
}

/**
 * Adds counts to analytics_answers, in key order, so concurrent writers lock rows in one order. A row brought
 * down to zero goes: its value may be the text of the answer being taken out.
 */
async function writeAnswerCounts(tx: Queryable, source: string, sign: 1 | -1, params: unknown[]): Promise<void> {
  const rows = await tx.query<AnswerKey>(
    `INSERT INTO analytics_answers (flow_slug, day, flow_version, step_id, value, count, locale)
     SELECT * FROM (${answerCounts(source, sign)}) AS c ORDER BY 1, 2, 3, 4, 5, 7
     ON CONFLICT (flow_slug, day, flow_version, step_id, value, locale) DO UPDATE SET count = analytics_answers.count + EXCLUDED.count
     RETURNING flow_slug, to_char(day, 'YYYY-MM-DD') AS day, flow_version, step_id, value, count::int AS count, locale`,
    params,
  );
  const emptied = rows.filter((row) => row.count === 0);
  if (emptied.length === 0) return;
  await tx.query(
    `DELETE FROM analytics_answers a
     USING unnest($1::text[], $2::date[], $3::int[], $4::text[], $5::text[], $6::text[]) AS z(flow_slug, day, flow_version, step_id, value, locale)
     WHERE a.flow_slug = z.flow_slug AND a.day = z.day AND a.flow_version = z.flow_version AND a.step_id = z.step_id AND a.value = z.value
       AND a.locale = z.locale AND a.count = 0`,
    [
      emptied.map((r) => r.flow_slug), emptied.map((r) => r.day), emptied.map((r) => r.flow_version), emptied.map((r) => r.step_id),
      emptied.map((r) => r.value), emptied.map((r) => r.locale),
    ],
  );
}

/**
 * Whether a response's data may be an answer that analytics_answers counts: it has a `value`, or it has fields and the
 * flow is a SURVEY (the SQL decides which values, and checks the flow's type by its version, as the log's check does).
 */
export const isCountedAnswer = (actionType: string, data: unknown, flowType?: string): boolean =>
  actionType === 'COMPLETED_STEP' && typeof data === 'object' && data !== null && !Array.isArray(data) &&
  (Object.hasOwn(data, 'value') || (flowType === 'SURVEY' && Object.keys(data).length > 0));

/**
 * Counts the answers among new responses of one flow (given as JSON text), in the transaction that appends them, under
 * the flow's translation the request that made them resolved to ('' for the source).
 */
export async function countAnswers(
  tx: Queryable,
  flow: { slug: string; version: number | null },
  answers: Array<{ stepId: string; data: string; at: Date }>,
  locale: string,
): Promise<void> {
  if (answers.length === 0) return;
  await writeAnswerCounts(
    tx,
    `SELECT $1::text AS flow_slug, a.step_id, 'COMPLETED_STEP' AS action_type, a.data, a.created_at, $2::int AS flow_version, $6::text AS locale
     FROM unnest($3::text[], $4::text[], $5::timestamptz[]) AS a(step_id, data, created_at)`,
    1,
    [flow.slug, flow.version, answers.map((a) => a.stepId), answers.map((a) => a.data), answers.map((a) => a.at.toISOString()), locale],
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
  answers: answerCounts('SELECT flow_slug, step_id, action_type, data, created_at, flow_version, locale FROM flow_responses', 1),
};
