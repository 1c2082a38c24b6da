// `GET /v1/analytics/flows/{slug}`: one flow's counts by locale, its step funnel, both by day, and a survey's answers.
import type { AnalyticsFlowResponse, FlowDay, FlowReshowCounts, LocaleCounts, StepFunnel } from '../../src/api/wire.js';
import type { FlowCatalog } from '../flows/catalog.js';
import type { Queryable } from '../storage/store.js';
import { localeMatch, type AnalyticsWindow } from './window.js';
import { flowGoalReport } from './goal-reports.js';
import { flowMeta, IN_WINDOW, medianSeconds, rate, summary, windowOf } from './report-shared.js';
import { resourceCenterReport } from './resource-center-report.js';
import { surveyReport } from './survey-report.js';

/**
 * `GET /v1/analytics/flows/{slug}`: the flow's counts, split by locale, its step funnel, both by day, and a survey's
 * answers; within the window's locale filter, but for the missing targets (reported by the page, not by a locale).
 */
export async function flowReport(
  db: Queryable,
  catalog: FlowCatalog,
  slug: string,
  window: AnalyticsWindow,
): Promise<AnalyticsFlowResponse> {
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
  const locales = await localeCounts(
    db,
    params,
    Math.max(MAX_REPORT_LOCALES, Object.keys(catalog.get(slug)?.definition.translations ?? {}).length + 1),
  );
  // By the day of each user's first report, not of their start (see StepFunnel.targetMissing).
  const missing = await db.query<{ day: string; step_id: string; users: number }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, step_id, sum(users)::int AS users
     FROM analytics_target_missing WHERE ${IN_WINDOW}
     GROUP BY day, step_id HAVING sum(users) <> 0 ORDER BY day, step_id`,
    params.slice(0, 4),
  );
  const totals = { started: 0, completed: 0, skipped: 0 };
  const reshow = { users: 0, comebacks: 0, completed: 0, skipped: 0 };
  const emptyStep = (stepId: string, title: string | null): StepFunnel => ({
    stepId,
    title,
    reached: 0,
    completed: 0,
    skipped: 0,
    dropped: 0,
    targetMissing: 0,
  });
  const funnel = new Map<string, StepFunnel>(
    meta.steps.map((step) => [step.id, emptyStep(step.id, step.title ?? null)]),
  );
  const days = new Map<string, FlowDay>(
    window.days.map((date) => [date, { date, started: 0, completed: 0, skipped: 0, steps: [] }]),
  );
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
    if (day)
      day.steps.push(
        (entry = { stepId: row.step_id, reached: 0, completed: 0, skipped: 0, dropped: 0, targetMissing: 0 }),
      );
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
    else
      day.steps.push({
        stepId: row.step_id,
        reached: 0,
        completed: 0,
        skipped: 0,
        dropped: 0,
        targetMissing: row.users,
      });
  }
  const report: AnalyticsFlowResponse = {
    ...windowOf(window),
    flow: summary(meta, totals, buckets),
    locales,
    steps: [...funnel.values()],
    days: [...days.values()],
  };
  if (meta.type === 'SURVEY') report.survey = { steps: await surveyReport(db, meta, window) };
  // A centre's first opening starts it (the script records STARTED_FLOW then), so its opens are its starts.
  if (meta.type === 'RESOURCE_CENTER')
    Object.assign(report, { opens: totals.started }, await resourceCenterReport(db, slug, window));
  // Only the served definition says whether a flow has reshow (the stored versions keep its data alone); a flow
  // whose reshow was taken away keeps its counts.
  const goal = catalog.get(slug)?.definition.goal;
  if (goal) report.goal = await flowGoalReport(db, goal, slug, window);
  if (catalog.get(slug)?.definition.reshow || reshow.users > 0) {
    report.reshow = { ...reshow, completionRate: rate(reshow.completed, reshow.users) } satisfies FlowReshowCounts;
  }
  return report;
}

/**
 * Most locales a flow report lists: the rollups count a run under a translation of the flow or ""
 * (see progress-facts.ts), so only rows recorded before that, or a flow with this many translations, can have more;
 * the rest are in the totals.
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
