// Answer counts kept at write time: analytics_answers by flow, UTC day, version, step, value and locale, from completed
// steps whose data is an answer, added as responses are appended and taken out with a deleted user.
import type { Queryable } from '../storage/store.js';

/** Longest string an answer's value may be to be counted as a choice; longer ones are comments, read from the log. */
export const MAX_COUNTED_VALUE_LENGTH = 100;

/** Whether a jsonb item `e` is counted as a value: a number, a boolean, or a string of up to MAX_COUNTED_VALUE_LENGTH. */
const COUNTED_ITEM = `(jsonb_typeof(e) IN ('number', 'boolean') OR (jsonb_typeof(e) = 'string' AND length(e #>> '{}') <= ${MAX_COUNTED_VALUE_LENGTH}))`;

/** A jsonb value as the list of its items: a list's own, any other value as one. */
const itemsOf = (value: string) =>
  `jsonb_array_elements(CASE jsonb_typeof(${value}) WHEN 'array' THEN ${value} ELSE jsonb_build_array(${value}) END)`;

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
export function answerCounts(source: string, sign: 1 | -1): string {
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
export async function writeAnswerCounts(tx: Queryable, source: string, sign: 1 | -1, params: unknown[]): Promise<void> {
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
      emptied.map((r) => r.flow_slug),
      emptied.map((r) => r.day),
      emptied.map((r) => r.flow_version),
      emptied.map((r) => r.step_id),
      emptied.map((r) => r.value),
      emptied.map((r) => r.locale),
    ],
  );
}

/**
 * Whether a response's data may be an answer that analytics_answers counts: it has a `value`, or it has fields and the
 * flow is a SURVEY (the SQL decides which values, and checks the flow's type by its version, as the log's check does).
 */
export const isCountedAnswer = (actionType: string, data: unknown, flowType?: string): boolean =>
  actionType === 'COMPLETED_STEP' &&
  typeof data === 'object' &&
  data !== null &&
  !Array.isArray(data) &&
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
    [
      flow.slug,
      flow.version,
      answers.map((a) => a.stepId),
      answers.map((a) => a.data),
      answers.map((a) => a.at.toISOString()),
      locale,
    ],
  );
}
