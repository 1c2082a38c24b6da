// Analytics progress as pure facts: what one transition did (ProgressUpdate), each user's first times in a flow and its
// steps (Facts), and the change those make to the rollups, row by row. No SQL here: progress.ts writes what this works out.
import type { FactsRow } from '../storage/snapshot-cache.js';

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

export interface StepFacts {
  reachedAt: number;
  completedAt: number | null;
  skippedAt: number | null;
}

export interface Facts {
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
export interface DailyDelta {
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
const DAILY_COUNTS = [
  'started',
  'completed',
  'skipped',
  'reached',
  'dropped',
  'reshown',
  'comebacks',
  'reshowCompleted',
  'reshowSkipped',
] as const;
const NO_RESHOWS = { reshown: 0, comebacks: 0, reshowCompleted: 0, reshowSkipped: 0 };

export interface DurationDelta {
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

export function factsOf(row: FactsRow): Facts {
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
    steps: new Map(
      (row.steps ?? []).map(([id, reached, completed, skipped]) => [
        id,
        { reachedAt: time(reached)!, completedAt: time(completed), skippedAt: time(skipped) },
      ]),
    ),
  };
}

/** What one user's facts add to the rollups. */
function contributions(slug: string, facts: Facts): RollupChanges {
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
    daily.push({
      ...key,
      stepId,
      started: 0,
      completed: step.completedAt === null ? 0 : 1,
      skipped: step.skippedAt === null ? 0 : 1,
      reached: 1,
      dropped: open ? 1 : 0,
      ...NO_RESHOWS,
    });
  }
  const durations =
    facts.completedAt === null
      ? []
      : [{ ...key, bucket: durationBucket(Math.max(0, facts.completedAt - facts.startedAt)), count: 1 }];
  return { daily, durations };
}

/** A change to the rollups: their daily rows' and duration buckets' deltas. */
export interface RollupChanges {
  daily: DailyDelta[];
  durations: DurationDelta[];
}

/** after − before, row by row, without the rows that do not change. */
export function difference(slug: string, before: Facts | undefined, after: Facts | undefined): RollupChanges {
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
export function applyUpdate(before: Facts | undefined, update: ProgressUpdate, version: number): Facts | undefined {
  const at = update.at.getTime();
  if (!before && !update.started) return undefined;
  const facts: Facts = before
    ? { ...before, steps: new Map([...before.steps].map(([id, step]) => [id, { ...step }])) }
    : {
        version,
        locale: update.locale,
        startedAt: at,
        completedAt: null,
        skippedAt: null,
        reshownAt: null,
        reshows: 0,
        reshowCompletedAt: null,
        reshowSkippedAt: null,
        steps: new Map(),
      };
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
