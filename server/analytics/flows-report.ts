// `GET /v1/analytics/flows`: every flow's counts in the window, from the daily rollups.
import type { AnalyticsFlowsResponse, FlowData, FlowType } from '../../src/api/wire.js';
import type { FlowCatalog } from '../flows/catalog.js';
import type { Queryable } from '../storage/store.js';
import { localeMatch, type AnalyticsWindow } from './window.js';
import { summary, windowOf, type FlowMeta } from './report-shared.js';

/** The newest stored version of every flow (the flows table holds one row per version; it is small). */
async function storedFlows(db: Queryable): Promise<Map<string, FlowMeta>> {
  const rows = await db.query<{ slug: string; name: string; type: FlowType; version: number; data: FlowData }>(
    'SELECT DISTINCT ON (slug) slug, name, type, version, data FROM flows ORDER BY slug, version DESC',
  );
  return new Map(
    rows.map((row) => [
      row.slug,
      {
        slug: row.slug,
        name: row.name,
        type: row.type,
        status: null,
        version: row.version,
        steps: row.data.steps ?? [],
      },
    ]),
  );
}

/** `GET /v1/analytics/flows`: every flow being served (in the catalog's order), then removed flows that have counts. */
export async function flowsReport(
  db: Queryable,
  catalog: FlowCatalog,
  window: AnalyticsWindow,
): Promise<AnalyticsFlowsResponse> {
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
