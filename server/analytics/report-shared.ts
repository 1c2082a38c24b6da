// What the analytics reports share: a flow's definition as reported, its summary, the median of a duration histogram,
// and the window's filters on the rollups and on the response log.
import type { FlowData, FlowStatus, FlowSummary, FlowType, StepDefinition } from '../../src/api/wire.js';
import type { FlowCatalog } from '../flows/catalog.js';
import { HttpProblem } from '../shared/problem.js';
import type { Queryable } from '../storage/store.js';
import { bucketBounds } from './progress-facts.js';
import { localeMatch, type AnalyticsWindow } from './window.js';

export interface FlowMeta {
  slug: string;
  name: string;
  type: FlowType;
  status: FlowStatus | null;
  version: number;
  steps: StepDefinition[];
}

/** The window's fields of an answer. */
export const windowOf = (window: AnalyticsWindow) => ({
  from: window.from.toISOString(),
  to: window.to.toISOString(),
  version: window.version,
  locale: window.locale,
});

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

export const rate = (completed: number, started: number) =>
  started > 0 ? Math.round((completed / started) * 10_000) / 10_000 : null;

export function summary(
  meta: FlowMeta,
  counts: { started: number; completed: number; skipped: number } | undefined,
  histogram: Array<{ bucket: number; count: number }>,
): FlowSummary {
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
export async function flowMeta(
  db: Queryable,
  catalog: FlowCatalog,
  slug: string,
  version: number | null,
): Promise<FlowMeta> {
  const served = catalog.get(slug);
  if (served && (version === null || served.flow.version === version)) {
    const { flow, definition } = served;
    return {
      slug,
      name: flow.name,
      type: flow.type,
      status: flow.status,
      version: flow.version,
      steps: definition.data.steps,
    };
  }
  const [row] = await db.query<{ name: string; type: FlowType; version: number; data: FlowData }>(
    `SELECT name, type, version, data FROM flows WHERE slug = $1 AND ($2::int IS NULL OR version = $2) ORDER BY version DESC LIMIT 1`,
    [slug, version],
  );
  if (!row) {
    if (
      version !== null &&
      (served || (await db.query('SELECT 1 FROM flows WHERE slug = $1 LIMIT 1', [slug])).length > 0)
    ) {
      throw new HttpProblem(404, `Flow "${slug}" has no version ${version}.`, 'version');
    }
    throw new HttpProblem(404, `There is no flow with slug "${slug}".`, 'slug');
  }
  return {
    slug,
    name: row.name,
    type: row.type,
    status: served?.flow.status ?? null,
    version: served?.flow.version ?? row.version,
    steps: row.data.steps ?? [],
  };
}

/** The rollup rows of a flow report's query parameters: the flow ($1), its days [$2, $3) and its version ($4, or every one). */
export const IN_WINDOW =
  'flow_slug = $1 AND day >= $2::date AND day < $3::date AND ($4::int IS NULL OR flow_version = $4)';

/**
 * Where a survey's answers are: completed steps of the flow in the window (on the version asked for, in the locale
 * asked for, given as parameter `locale`).
 */
export const answersWhere = (
  locale: string,
) => `r.flow_slug = $1 AND r.action_type = 'COMPLETED_STEP' AND r.created_at >= $2 AND r.created_at < $3
  AND ($4::int IS NULL OR r.flow_version = $4) AND ${localeMatch('r.locale', locale)}`;
