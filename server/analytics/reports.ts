// Analytics reports, aggregated in SQL: flows and step funnels from the daily rollups, answers from the response log's index.
import type {
  AnalyticsFlowResponse,
  AnalyticsFlowsResponse,
  AnswerRow,
  FlowData,
  FlowDay,
  FlowReshowCounts,
  FlowStatus,
  FlowSummary,
  FlowType,
  FormField,
  LocaleCounts,
  StepDefinition,
  StepFunnel,
  SurveyStepReport,
} from '../../src/api/wire.js';
import type { FlowCatalog } from '../flows/catalog.js';
import { HttpProblem } from '../shared/problem.js';
import type { Queryable } from '../storage/store.js';
import { bucketBounds } from './progress.js';
import { localeMatch, type AnalyticsWindow } from './window.js';

interface FlowMeta {
  slug: string;
  name: string;
  type: FlowType;
  status: FlowStatus | null;
  version: number;
  steps: StepDefinition[];
}

/** The window's fields of an answer. */
const windowOf = (window: AnalyticsWindow) => ({ from: window.from.toISOString(), to: window.to.toISOString(), version: window.version, locale: window.locale });

/** Median of a histogram of durations, interpolated within its bucket (geometrically: the buckets grow by 2^¼). */
export function medianSeconds(buckets: Array<{ bucket: number; count: number }>): number | null {
  const total = buckets.reduce((sum, b) => sum + b.count, 0);
  if (total <= 0) return null;
  const half = total / 2;
  let below = 0;
  for (const { bucket, count } of [...buckets].sort((a, b) => a.bucket - b.bucket)) {
    if (count <= 0) continue;
    if (below + count >= half) {
      const share = (half - below) / count;
      const [low, high] = bucketBounds(bucket);
      const seconds = bucket === 0 ? low + share * (high - low) : low * (high / low) ** share;
      return Math.round(seconds * 10) / 10;
    }
    below += count;
  }
  return null;
}

const rate = (completed: number, started: number) => (started > 0 ? Math.round((completed / started) * 10_000) / 10_000 : null);

/** The newest stored version of every flow (the flows table holds one row per version; it is small). */
async function storedFlows(db: Queryable): Promise<Map<string, FlowMeta>> {
  const rows = await db.query<{ slug: string; name: string; type: FlowType; version: number; data: FlowData }>(
    'SELECT DISTINCT ON (slug) slug, name, type, version, data FROM flows ORDER BY slug, version DESC',
  );
  return new Map(rows.map((row) => [row.slug, { slug: row.slug, name: row.name, type: row.type, status: null, version: row.version, steps: row.data.steps ?? [] }]));
}

/** `GET /v1/analytics/flows`: every flow being served (in the catalog's order), then removed flows that have counts. */
export async function flowsReport(db: Queryable, catalog: FlowCatalog, window: AnalyticsWindow): Promise<AnalyticsFlowsResponse> {
  const params = [window.days[0], window.to.toISOString().slice(0, 10), window.version, window.locale];
  const counts = await db.query<{ flow_slug: string; started: number; completed: number; skipped: number }>(
    `SELECT flow_slug, sum(started)::int AS started, sum(completed)::int AS completed, sum(skipped)::int AS skipped
     FROM analytics_daily WHERE step_id = '' AND day >= $1::date AND day < $2::date AND ($3::int IS NULL OR flow_version = $3)
       AND ${localeMatch('locale', '$4')}
     GROUP BY flow_slug`,
    params,
  );
  const durations = await db.query<{ flow_slug: string; bucket: number; count: number }>(
    `SELECT flow_slug, bucket, sum(count)::int AS count
     FROM analytics_durations WHERE day >= $1::date AND day < $2::date AND ($3::int IS NULL OR flow_version = $3) AND ${localeMatch('locale', '$4')}
     GROUP BY flow_slug, bucket`,
    params,
  );
  const bySlug = new Map(counts.map((row) => [row.flow_slug, row]));
  const histograms = new Map<string, Array<{ bucket: number; count: number }>>();
  for (const row of durations) {
    let list = histograms.get(row.flow_slug);
    if (!list) histograms.set(row.flow_slug, (list = []));
    list.push({ bucket: row.bucket, count: row.count });
  }
  const served: FlowMeta[] = catalog.list().map(({ flow, definition }) => ({
    slug: flow.slug,
    name: flow.name,
    type: flow.type,
    status: flow.status,
    version: flow.version,
    steps: definition.data.steps,
  }));
  const servedSlugs = new Set(served.map((flow) => flow.slug));
  const removed = [...bySlug.keys()].filter((slug) => !servedSlugs.has(slug)).sort();
  const stored = removed.length > 0 ? await storedFlows(db) : new Map<string, FlowMeta>();
  const flows = [...served, ...removed.flatMap((slug) => stored.get(slug) ?? [])].map((meta) =>
    summary(meta, bySlug.get(meta.slug), histograms.get(meta.slug) ?? []),
  );
  return { ...windowOf(window), flows };
}

function summary(meta: FlowMeta, counts: { started: number; completed: number; skipped: number } | undefined, histogram: Array<{ bucket: number; count: number }>): FlowSummary {
  const started = counts?.started ?? 0;
  const completed = counts?.completed ?? 0;
  return {
    slug: meta.slug,
    name: meta.name,
    type: meta.type,
    status: meta.status,
    version: meta.version,
    started,
    completed,
    skipped: counts?.skipped ?? 0,
    completionRate: rate(completed, started),
    medianSecondsToComplete: medianSeconds(histogram),
  };
}

/** The definition a flow report reads: the version asked for, else the one being served, else the newest stored. */
async function flowMeta(db: Queryable, catalog: FlowCatalog, slug: string, version: number | null): Promise<FlowMeta> {
  const served = catalog.get(slug);
  if (served && (version === null || served.flow.version === version)) {
    const { flow, definition } = served;
    return { slug, name: flow.name, type: flow.type, status: flow.status, version: flow.version, steps: definition.data.steps };
  }
  const [row] = await db.query<{ name: string; type: FlowType; version: number; data: FlowData }>(
    `SELECT name, type, version, data FROM flows WHERE slug = $1 AND ($2::int IS NULL OR version = $2) ORDER BY version DESC LIMIT 1`,
    [slug, version],
  );
  if (!row) {
    if (version !== null && (served || (await db.query('SELECT 1 FROM flows WHERE slug = $1 LIMIT 1', [slug])).length > 0)) {
      throw new HttpProblem(404, `Flow "${slug}" has no version ${version}.`, 'version');
    }
    throw new HttpProblem(404, `There is no flow with slug "${slug}".`, 'slug');
  }
  return { slug, name: row.name, type: row.type, status: served?.flow.status ?? null, version: served?.flow.version ?? row.version, steps: row.data.steps ?? [] };
}

/** The rollup rows of a flow report's query parameters: the flow ($1), its days [$2, $3) and its version ($4, or every one). */
const IN_WINDOW = 'flow_slug = $1 AND day >= $2::date AND day < $3::date AND ($4::int IS NULL OR flow_version = $4)';

/**
 * `GET /v1/analytics/flows/{slug}`: the flow's counts, split by locale, its step funnel, both by day, and a survey's
 * answers; within the window's locale filter, but for the missing targets (reported by the page, not by a locale).
 */
export async function flowReport(db: Queryable, catalog: FlowCatalog, slug: string, window: AnalyticsWindow): Promise<AnalyticsFlowResponse> {
  const meta = await flowMeta(db, catalog, slug, window.version);
  const params = [slug, window.days[0], window.to.toISOString().slice(0, 10), window.version, window.locale];
  // The funnel and the days, over every locale in the filter: a row per day and step, however many locales there are.
  const rows = await db.query<{
    day: string;
    step_id: string;
    started: number;
    completed: number;
    skipped: number;
    reached: number;
    dropped: number;
    reshown: number;
    comebacks: number;
    reshow_completed: number;
    reshow_skipped: number;
  }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, step_id, sum(started)::int AS started, sum(completed)::int AS completed,
            sum(skipped)::int AS skipped, sum(reached)::int AS reached, sum(dropped)::int AS dropped, sum(reshown)::int AS reshown,
            sum(comebacks)::int AS comebacks, sum(reshow_completed)::int AS reshow_completed, sum(reshow_skipped)::int AS reshow_skipped
     FROM analytics_daily WHERE ${IN_WINDOW}
       AND ${localeMatch('locale', '$5')}
     GROUP BY day, step_id ORDER BY day, step_id`,
    params,
  );
  const buckets = await db.query<{ bucket: number; count: number }>(
    `SELECT bucket, sum(count)::int AS count FROM analytics_durations
     WHERE ${IN_WINDOW} AND ${localeMatch('locale', '$5')}
     GROUP BY bucket`,
    params,
  );
  const locales = await localeCounts(db, params, Math.max(MAX_REPORT_LOCALES, Object.keys(catalog.get(slug)?.definition.translations ?? {}).length + 1));
  // By the day of each user's first report, not of their start (see StepFunnel.targetMissing).
  const missing = await db.query<{ day: string; step_id: string; users: number }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, step_id, sum(users)::int AS users
     FROM analytics_target_missing WHERE ${IN_WINDOW}
     GROUP BY day, step_id HAVING sum(users) <> 0 ORDER BY day, step_id`,
    params.slice(0, 4),
  );
  const totals = { started: 0, completed: 0, skipped: 0 };
  const reshow = { users: 0, comebacks: 0, completed: 0, skipped: 0 };
  const emptyStep = (stepId: string, title: string | null): StepFunnel => ({ stepId, title, reached: 0, completed: 0, skipped: 0, dropped: 0, targetMissing: 0 });
  const funnel = new Map<string, StepFunnel>(meta.steps.map((step) => [step.id, emptyStep(step.id, step.title ?? null)]));
  const days = new Map<string, FlowDay>(window.days.map((date) => [date, { date, started: 0, completed: 0, skipped: 0, steps: [] }]));
  for (const row of rows) {
    // A deleted user's rows can be left at zero: they add nothing and are not shown.
    if (!row.started && !row.completed && !row.skipped && !row.reached && !row.dropped) continue;
    const day = days.get(row.day);
    if (row.step_id === '') {
      for (const counts of day ? [totals, day] : [totals]) {
        counts.started += row.started;
        counts.completed += row.completed;
        counts.skipped += row.skipped;
      }
      reshow.users += row.reshown;
      reshow.comebacks += row.comebacks;
      reshow.completed += row.reshow_completed;
      reshow.skipped += row.reshow_skipped;
      continue;
    }
    let step = funnel.get(row.step_id);
    // A step the definition no longer has keeps its counts, after the others.
    if (!step) funnel.set(row.step_id, (step = emptyStep(row.step_id, null)));
    // One row per day and step, in order: the day's entry of the step.
    let entry: FlowDay['steps'][number] | undefined;
    if (day) day.steps.push((entry = { stepId: row.step_id, reached: 0, completed: 0, skipped: 0, dropped: 0, targetMissing: 0 }));
    for (const counts of entry ? [step, entry] : [step]) {
      counts.reached += row.reached;
      counts.completed += row.completed;
      counts.skipped += row.skipped;
      counts.dropped += row.dropped;
    }
  }
  for (const row of missing) {
    let step = funnel.get(row.step_id);
    if (!step) funnel.set(row.step_id, (step = emptyStep(row.step_id, null)));
    step.targetMissing += row.users;
    const day = days.get(row.day);
    if (!day) continue;
    const entry = day.steps.find((s) => s.stepId === row.step_id);
    // A step with reports of a missing target alone that day comes after the day's funnel rows.
    if (entry) entry.targetMissing = row.users;
    else day.steps.push({ stepId: row.step_id, reached: 0, completed: 0, skipped: 0, dropped: 0, targetMissing: row.users });
  }
  const report: AnalyticsFlowResponse = {
    ...windowOf(window),
    flow: summary(meta, totals, buckets),
    locales,
    steps: [...funnel.values()],
    days: [...days.values()],
  };
  if (meta.type === 'SURVEY') report.survey = { steps: await surveyReport(db, meta, window) };
  // Only the served definition says whether a flow has reshow (the stored versions keep its data alone); a flow
  // whose reshow was taken away keeps its counts.
  if (catalog.get(slug)?.definition.reshow || reshow.users > 0) {
    report.reshow = { ...reshow, completionRate: rate(reshow.completed, reshow.users) } satisfies FlowReshowCounts;
  }
  return report;
}

/**
 * Most locales a flow report lists: the rollups count a run under a translation of the flow or "" (see progress.ts),
 * so only rows recorded before that, or a flow with this many translations, can have more; the rest are in the totals.
 */
export const MAX_REPORT_LOCALES = 100;

/**
 * A flow's counts by the locale each run is counted under, as LocaleCounts: those with starts, most starts first, at
 * most `limit`. Grouped by the database, and each locale's histogram picked from a map: one pass over the rows.
 */
async function localeCounts(db: Queryable, params: unknown[], limit: number): Promise<LocaleCounts[]> {
  // COLLATE "C": by code unit, on either store, whatever the database's collation.
  const rows = await db.query<{ locale: string; started: number; completed: number; skipped: number }>(
    `SELECT locale, sum(started)::int AS started, sum(completed)::int AS completed, sum(skipped)::int AS skipped
     FROM analytics_daily WHERE ${IN_WINDOW} AND step_id = ''
       AND ${localeMatch('locale', '$5')}
     GROUP BY locale HAVING sum(started) <> 0 ORDER BY started DESC, locale COLLATE "C" LIMIT ${limit}`,
    params,
  );
  if (rows.length === 0) return [];
  const buckets = await db.query<{ locale: string; bucket: number; count: number }>(
    `SELECT locale, bucket, sum(count)::int AS count FROM analytics_durations
     WHERE ${IN_WINDOW} AND locale = ANY($5::text[])
     GROUP BY locale, bucket`,
    [...params.slice(0, 4), rows.map((row) => row.locale)],
  );
  const histograms = new Map<string, Array<{ bucket: number; count: number }>>();
  for (const { locale, bucket, count } of buckets) {
    let list = histograms.get(locale);
    if (!list) histograms.set(locale, (list = []));
    list.push({ bucket, count });
  }
  return rows.map(({ locale, started, completed, skipped }) => ({
    locale,
    started,
    completed,
    skipped,
    completionRate: rate(completed, started),
    medianSecondsToComplete: medianSeconds(histograms.get(locale) ?? []),
  }));
}

/** What a survey step is reported as: its kind, and the field of its data whose answers are counted. */
interface ReportedStep {
  step: StepDefinition;
  kind: SurveyStepReport['kind'];
  /** The key of the answer in the step's data: `value` for a step given by `type`, a field's `id` for one given as fields. */
  field: string;
  /** The choices of a `single` or `multiple` report. */
  options: unknown;
}

/**
 * A survey step as the survey element draws it: by its `type`, else `nps` first and `text` after, answered under
 * `value`; or, for a step given as fields, by its first `nps` field, else its first choice field (`radio`, `select`,
 * `checkbox` with options; `multiple` for checkboxes and a select with `multiple`), else its first field as `text`.
 */
function reportedStep(step: StepDefinition, index: number): ReportedStep {
  if (Array.isArray(step.fields)) {
    const fields = step.fields.filter((field): field is FormField => typeof field?.id === 'string');
    const nps = fields.find((field) => field.type === 'nps');
    if (nps) return { step, kind: 'nps', field: nps.id, options: [] };
    const choice = fields.find(
      (field) => field.type === 'radio' || field.type === 'select' || (field.type === 'checkbox' && Array.isArray(field.options) && field.options.length > 0),
    );
    if (choice) return { step, kind: choice.type === 'checkbox' || choice.multiple === true ? 'multiple' : 'single', field: choice.id, options: choice.options };
    return { step, kind: 'text', field: fields[0]?.id ?? 'value', options: [] };
  }
  const kinds = ['nps', 'rating', 'single', 'multiple', 'text'];
  const kind = typeof step.type === 'string' && kinds.includes(step.type) ? (step.type as SurveyStepReport['kind']) : index === 0 ? 'nps' : 'text';
  return { step, kind, field: 'value', options: step.options };
}

/**
 * Where a survey's answers are: completed steps of the flow in the window (on the version asked for, in the locale
 * asked for, given as parameter `locale`).
 */
const answersWhere = (locale: string) => `r.flow_slug = $1 AND r.action_type = 'COMPLETED_STEP' AND r.created_at >= $2 AND r.created_at < $3
  AND ($4::int IS NULL OR r.flow_version = $4) AND ${localeMatch('r.locale', locale)}`;

/** Comments shown per text step; the rest are in the responses export. */
const LATEST_COMMENTS = 20;
/** Latest answers of a text step that the comments are picked from, so the read is bounded. */
const COMMENT_SCAN = 500;
/** Distinct values read per survey, however many different values clients sent. */
const MAX_VALUES = 5000;

/** A counted value as its step's field and the value's text: `9` is field `value`'s "9", `{"nps-score": "9"}` field nps-score's "9". */
function fieldAndValue(text: string): [field: string, value: string] {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    const [entry] = Object.entries(parsed);
    if (entry) return [entry[0], String(entry[1])];
  }
  return ['value', String(parsed)];
}

async function surveyReport(db: Queryable, meta: FlowMeta, window: AnalyticsWindow): Promise<SurveyStepReport[]> {
  const base = [meta.slug, window.from.toISOString(), window.to.toISOString(), window.version];
  const steps = meta.steps.map(reportedStep);
  const counted = steps.filter(({ kind }) => kind !== 'text').map(({ step }) => step.id);
  // From the answer counts kept at write time: each step's answers (value ''), and each value of the steps that count them.
  const rows = await db.query<{ step_id: string; value: string; n: number }>(
    `SELECT step_id, value, sum(count)::int AS n FROM analytics_answers
     WHERE ${IN_WINDOW}
       AND step_id = ANY($5::text[]) AND (value = '' OR step_id = ANY($6::text[])) AND ${localeMatch('locale', '$7')}
     GROUP BY step_id, value HAVING sum(count) > 0
     ORDER BY value = '' DESC, n DESC LIMIT ${MAX_VALUES + meta.steps.length}`,
    [meta.slug, window.days[0], window.to.toISOString().slice(0, 10), window.version, steps.map(({ step }) => step.id), counted, window.locale],
  );
  const answered = new Map<string, number>();
  // By step and field: how often each value came.
  const valueCounts = new Map<string, Map<string, number>>();
  for (const row of rows) {
    if (row.value === '') {
      answered.set(row.step_id, row.n);
      continue;
    }
    // 9 and "9" are one answer to a score, as the survey element sends one and Frigade's components the other.
    const [field, value] = fieldAndValue(row.value);
    const key = `${row.step_id}\u0000${field}`;
    let counts = valueCounts.get(key);
    if (!counts) valueCounts.set(key, (counts = new Map()));
    counts.set(value, (counts.get(value) ?? 0) + row.n);
  }
  const reports: SurveyStepReport[] = [];
  for (const { step, kind, field, options } of steps) {
    const title = step.title ?? null;
    const counts = valueCounts.get(`${step.id}\u0000${field}`);
    const count = (value: number | string) => counts?.get(String(value)) ?? 0;
    if (kind === 'nps') {
      const distribution = Array.from({ length: 11 }, (_, score) => count(score));
      const total = distribution.reduce((a, b) => a + b, 0);
      const promoters = distribution[9]! + distribution[10]!;
      const detractors = distribution.slice(0, 7).reduce((a, b) => a + b, 0);
      reports.push({
        kind, stepId: step.id, title, responses: total, promoters, passives: total - promoters - detractors, detractors, distribution,
        score: total > 0 ? Math.round(((promoters - detractors) / total) * 1000) / 10 : null,
      });
    } else if (kind === 'rating') {
      const max = Math.min(Math.max(Number(step.props?.max) || 5, 2), 10);
      const distribution = Array.from({ length: max }, (_, i) => count(i + 1));
      const total = distribution.reduce((a, b) => a + b, 0);
      const sum = distribution.reduce((a, n, i) => a + n * (i + 1), 0);
      reports.push({ kind, stepId: step.id, title, responses: total, average: total > 0 ? Math.round((sum / total) * 100) / 100 : null, distribution });
    } else if (kind === 'single' || kind === 'multiple') {
      const choices = (Array.isArray(options) ? (options as Array<{ value: unknown; label?: unknown }>) : []).map((option) => ({
        value: String(option.value),
        label: typeof option.label === 'string' ? option.label : String(option.value),
        count: count(String(option.value)),
      }));
      reports.push({ kind, stepId: step.id, title, responses: answered.get(step.id) ?? 0, options: choices });
    } else {
      // The latest answers through the index by step, newest first; the non-empty texts of the field among them are the comments.
      const comments = await db.query<{ user_id: string; value: string; created_at: Date | string; url: string | null }>(
        `SELECT latest.user_id, a.doc ->> $6 AS value, latest.created_at, latest.url
         FROM (SELECT r.id, r.user_id, r.data, r.created_at, r.url FROM flow_responses r
               WHERE ${answersWhere('$7')} AND r.step_id = $5 ORDER BY r.created_at DESC, r.id DESC LIMIT ${COMMENT_SCAN}) AS latest
         CROSS JOIN LATERAL (SELECT latest.data::jsonb AS doc) AS a
         WHERE jsonb_typeof(a.doc -> $6) = 'string' AND a.doc ->> $6 <> ''
         ORDER BY latest.created_at DESC, latest.id DESC LIMIT ${LATEST_COMMENTS}`,
        [...base, step.id, field, window.locale],
      );
      reports.push({
        kind: 'text', stepId: step.id, title, responses: answered.get(step.id) ?? 0,
        comments: comments.map((c) => ({ userId: c.user_id, value: c.value, createdAt: new Date(c.created_at).toISOString(), url: c.url })),
      });
    }
  }
  return reports;
}

/** Position after the last answer of a page: the response's time (to the microsecond), its ID, and the field. */
type Cursor = [at: string, id: string, field: string];

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
    !Array.isArray(value) || value.length !== 3 || !value.every((part) => typeof part === 'string') ||
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(value[0]) || !/^\d{1,19}$/.test(value[1]) || Number.isNaN(Date.parse(value[0]))
  ) {
    throw new HttpProblem(400, 'query field "cursor" is not a cursor this service made; pass the nextCursor of the previous page', 'cursor');
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
    id: string; at: string; user_id: string; step_id: string; created_at: Date | string; url: string | null; flow_version: number | null; locale: string;
    field: string; value: unknown;
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
    [slug, window.from.toISOString(), window.to.toISOString(), window.version, options.stepId ?? null, cursor?.[0] ?? null, cursor?.[1] ?? null, cursor?.[2] ?? null, options.limit + 1, window.locale],
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

/** The CSV columns, in order. */
export const CSV_COLUMNS = ['created_at', 'user_id', 'step_id', 'field', 'value', 'url', 'version', 'response_id', 'locale'] as const;

/** One CSV cell (RFC 4180). Text that a spreadsheet would run as a formula (=, +, -, @) gets a leading apostrophe. */
export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Every answer of the window as CSV lines (header first), read a thousand at a time. */
export async function* answersCsv(db: Queryable, catalog: FlowCatalog, slug: string, window: AnalyticsWindow, stepId?: string): AsyncGenerator<string> {
  await flowMeta(db, catalog, slug, window.version);
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  let cursor: Cursor | undefined;
  // Bounded: each page moves the cursor past at least one answer, and the window holds finitely many.
  for (;;) {
    const { rows, next } = await answersPage(db, catalog, slug, window, { stepId, limit: 1000, cursor, checked: true });
    if (rows.length > 0) {
      yield rows.map((row) => [row.createdAt, row.userId, row.stepId, row.field, row.value, row.url, row.version, row.responseId, row.locale].map(csvCell).join(',')).join('\r\n') + '\r\n';
    }
    if (!next) return;
    cursor = next;
  }
}
