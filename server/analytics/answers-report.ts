// `GET /v1/analytics/flows/{slug}/responses`: a flow's answers from the response log, a page at a time behind a cursor.
import type { AnswerRow } from '../../src/api/wire.js';
import type { FlowCatalog } from '../flows/catalog.js';
import { HttpProblem } from '../shared/problem.js';
import type { Queryable } from '../storage/store.js';
import type { AnalyticsWindow } from './window.js';
import { answersWhere, flowMeta } from './report-shared.js';

/** Position after the last answer of a page: the response's time (to the microsecond), its ID, and the field. */
export type Cursor = [at: string, id: string, field: string];

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

export function decodeCursor(text: string): Cursor {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (
    !Array.isArray(value) ||
    value.length !== 3 ||
    !value.every((part) => typeof part === 'string') ||
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(value[0]) ||
    !/^\d{1,19}$/.test(value[1]) ||
    Number.isNaN(Date.parse(value[0]))
  ) {
    throw new HttpProblem(
      400,
      'query field "cursor" is not a cursor this service made; pass the nextCursor of the previous page',
      'cursor',
    );
  }
  return value as Cursor;
}

/** The page of answers after `cursor`, newest first: each form field, or a survey's `value`, one row each. */
export async function answersPage(
  db: Queryable,
  catalog: FlowCatalog,
  slug: string,
  window: AnalyticsWindow,
  options: { stepId?: string; limit: number; cursor?: Cursor; checked?: boolean },
): Promise<{ rows: AnswerRow[]; next: Cursor | null }> {
  if (!options.checked) await flowMeta(db, catalog, slug, window.version);
  const cursor = options.cursor;
  const rows = await db.query<{
    id: string;
    at: string;
    user_id: string;
    step_id: string;
    created_at: Date | string;
    url: string | null;
    flow_version: number | null;
    locale: string;
    field: string;
    value: unknown;
  }>(
    `SELECT r.id::text AS id, to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, r.user_id, r.step_id,
            r.created_at, r.url, r.flow_version, r.locale, f.key AS field, f.value
     FROM flow_responses r
     CROSS JOIN LATERAL jsonb_each(CASE jsonb_typeof(r.data::jsonb) WHEN 'object' THEN r.data::jsonb ELSE jsonb_build_object('value', r.data::jsonb) END) AS f
     WHERE ${answersWhere('$10')} AND r.data <> '{"reason":"bootstrap"}' AND ($5::text IS NULL OR r.step_id = $5)
       AND ($6::timestamptz IS NULL OR (r.created_at, r.id) <= ($6::timestamptz, $7::bigint))
       AND ($6::timestamptz IS NULL OR (r.created_at, r.id) < ($6::timestamptz, $7::bigint) OR f.key > $8)
     ORDER BY r.created_at DESC, r.id DESC, f.key
     LIMIT $9`,
    [
      slug,
      window.from.toISOString(),
      window.to.toISOString(),
      window.version,
      options.stepId ?? null,
      cursor?.[0] ?? null,
      cursor?.[1] ?? null,
      cursor?.[2] ?? null,
      options.limit + 1,
      window.locale,
    ],
  );
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    rows: page.map((row) => ({
      responseId: row.id,
      userId: row.user_id,
      stepId: row.step_id,
      field: row.field,
      value: row.value,
      createdAt: new Date(row.created_at).toISOString(),
      url: row.url,
      version: row.flow_version,
      locale: row.locale,
    })),
    next: rows.length > options.limit && last ? [last.at, last.id, last.field] : null,
  };
}
