// Goals in analytics: a flow's conversions after its first start, and each experiment's exposures and conversions with their figures (experiment-stats.ts), and its participants as CSV.
import type { ExperimentReport, ExperimentsReportResponse, FlowGoalReport } from '../../src/api/wire.js';
import type { CatalogExperiment, FlowCatalog } from '../flows/catalog.js';
import { goalJson, type Goal } from '../flows/goals.js';
import { HttpProblem } from '../shared/problem.js';
import type { Queryable } from '../storage/store.js';
import { csvCell } from './answers-csv.js';
import { experimentFigures } from './experiment-stats.js';
import { localeMatch, type AnalyticsWindow } from './window.js';

/**
 * Whether the user of row `alias` recorded the goal's event (`$event`) from `start` up to and including `within` ms
 * after it: the goal is met by an event at the very start and at the window's last millisecond, not before the start.
 */
const convertedSql = (alias: string, start: string, event: string, withinMs: string) =>
  `EXISTS (SELECT 1 FROM user_events e WHERE e.user_id = ${alias}.user_id AND e.event = ${event}
           AND e.created_at >= ${start} AND e.created_at <= ${start} + ${withinMs} * interval '1 millisecond')`;

/**
 * A flow's goal over the users whose first start of the flow is in the window (and its version and locale filters):
 * those who recorded the goal's event within `within` after that start.
 */
export async function flowGoalReport(
  db: Queryable,
  goal: Goal,
  slug: string,
  window: AnalyticsWindow,
): Promise<FlowGoalReport> {
  const [row] = await db.query<{ seen: number; converted: number }>(
    `SELECT count(*)::int AS seen, count(*) FILTER (WHERE ${convertedSql('f', 'f.started_at', '$6', '$7')})::int AS converted
     FROM analytics_flow_users f
     WHERE f.flow_slug = $1 AND f.started_at >= $2 AND f.started_at < $3
       AND ($4::int IS NULL OR f.flow_version = $4) AND ${localeMatch('f.locale', '$5')}`,
    [
      slug,
      window.from.toISOString(),
      window.to.toISOString(),
      window.version,
      window.locale,
      goal.event,
      goal.withinMs,
    ],
  );
  const seen = row?.seen ?? 0;
  const converted = row?.converted ?? 0;
  return { ...goalJson(goal), seen, converted, rate: seen > 0 ? converted / seen : 0 };
}

/** Every experiment of experiments.yaml, in its order, with its report. */
export async function experimentsReport(db: Queryable, catalog: FlowCatalog): Promise<ExperimentsReportResponse> {
  const experiments: ExperimentReport[] = [];
  for (const experiment of catalog.current().experiments) experiments.push(await reportOf(db, experiment));
  return { experiments };
}

/** One experiment's report; 404 when experiments.yaml has no such experiment. */
export async function experimentReport(db: Queryable, catalog: FlowCatalog, id: string): Promise<ExperimentReport> {
  return reportOf(db, experimentNamed(catalog, id));
}

function experimentNamed(catalog: FlowCatalog, id: string): CatalogExperiment {
  const experiment = catalog.current().experiments.find((candidate) => candidate.id === id);
  if (!experiment) throw new HttpProblem(404, `no experiment "${id}" in experiments.yaml`);
  return experiment;
}

/** Each variant's exposed users and conversions, counted by the database over the experiment's rows. */
async function reportOf(db: Queryable, experiment: CatalogExperiment): Promise<ExperimentReport> {
  const rows = await db.query<{ variant: string; exposed: number; converted: number }>(
    `SELECT x.variant, count(*)::int AS exposed, count(*) FILTER (WHERE ${convertedSql('x', 'x.exposed_at', '$2', '$3')})::int AS converted
     FROM experiment_exposures x WHERE x.experiment_id = $1 GROUP BY x.variant`,
    [experiment.id, experiment.goal.event, experiment.goal.withinMs],
  );
  // Users in a variant since removed from the file are left out: there is nothing to compare them under.
  const counts = new Map(rows.map((row) => [row.variant, row]));
  const figures = experimentFigures(
    experiment.variants.map((variant) => ({
      id: variant.id,
      flow: variant.flow ?? null,
      weight: variant.weight,
      exposed: counts.get(variant.id)?.exposed ?? 0,
      converted: counts.get(variant.id)?.converted ?? 0,
    })),
  );
  return {
    id: experiment.id,
    status: experiment.status,
    goal: goalJson(experiment.goal),
    winner: experiment.winner ?? null,
    baseline: figures.baseline,
    variants: figures.variants,
    sampleRatio: figures.sampleRatio,
    enoughData: figures.enoughData,
    exposed: figures.variants.reduce((sum, variant) => sum + variant.exposed, 0),
    methods: figures.methods,
  };
}

/** The participants CSV's columns, in order. */
export const PARTICIPANT_COLUMNS = ['user_id', 'variant', 'exposed_at', 'converted_at'] as const;
const PAGE = 1000;

/**
 * Every exposed user of the experiment, in order of exposure, with the time of their first conversion (empty when
 * none), as CSV lines (header first), read a thousand at a time. 404 for an unknown experiment, before any line.
 */
export async function* participantsCsv(db: Queryable, catalog: FlowCatalog, id: string): AsyncGenerator<string> {
  const experiment = experimentNamed(catalog, id);
  yield `${PARTICIPANT_COLUMNS.join(',')}\r\n`;
  let after: [string, string] = ['-infinity', ''];
  // Bounded: each page moves the cursor past at least one row, and the experiment has finitely many.
  for (;;) {
    const rows = await db.query<{
      user_id: string;
      variant: string;
      exposed_at: Date | string;
      converted_at: Date | string | null;
    }>(
      `SELECT x.user_id, x.variant, x.exposed_at,
              (SELECT min(e.created_at) FROM user_events e WHERE e.user_id = x.user_id AND e.event = $2
                 AND e.created_at >= x.exposed_at AND e.created_at <= x.exposed_at + $3 * interval '1 millisecond') AS converted_at
       FROM experiment_exposures x
       WHERE x.experiment_id = $1 AND (x.exposed_at, x.user_id) > ($4::timestamptz, $5::text)
       ORDER BY x.exposed_at, x.user_id LIMIT ${PAGE}`,
      [experiment.id, experiment.goal.event, experiment.goal.withinMs, ...after],
    );
    if (rows.length === 0) return;
    yield rows
      .map((row) =>
        [
          csvCell(row.user_id),
          csvCell(row.variant),
          new Date(row.exposed_at).toISOString(),
          row.converted_at === null ? '' : new Date(row.converted_at).toISOString(),
        ].join(','),
      )
      .map((line) => `${line}\r\n`)
      .join('');
    const last = rows.at(-1)!;
    after = [new Date(last.exposed_at).toISOString(), last.user_id];
    if (rows.length < PAGE) return;
  }
}
