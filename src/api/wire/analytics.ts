// Analytics on the wire (private key only; see docs/analytics.md): the flows, one flow's report, and its answers.
import type { FlowGoalReport } from './experiments.js';
import type { FlowStatus, FlowType } from './common.js';

/**
 * Query of every `GET /v1/analytics/…` endpoint. Counts are kept per UTC day, so the window is widened to
 * whole days: `from` rounds down to midnight UTC and `to` up to the next one. At most 366 days.
 */
export interface AnalyticsQuery {
  /** ISO 8601 time or date, UTC. @default 30 days before `to` */
  from?: string;
  /** ISO 8601 time or date, UTC (exclusive). @default now */
  to?: string;
  /** Only users who started on this version of the flow, and answers given on it. @default every version, and rows from before versions were recorded */
  version?: number;
  /**
   * Only users who first started the flow in this locale, and answers given in it. A language (`fr`) matches itself and
   * every locale of that language (`fr-CA`, `fr-BE`); a longer code (`fr-CA`, `zh-Hans`) matches itself and the codes
   * that extend it (`zh-Hans-CN`). Written as flow files write codes, in any case and with `_` or `-` (`fr_ca` is
   * `fr-CA`); empty (`?locale=`) selects what was recorded with no locale. Anything else is a 400 problem with field
   * `locale`. @default every locale
   */
  locale?: string;
}

/** The window an answer covers, after rounding to whole UTC days, and the version and locale filters it applied. */
export interface AnalyticsWindow {
  from: string;
  to: string;
  version: number | null;
  /** The locale filter as a canonical code (`fr-CA`), `""` for what has none; null when every locale is counted. */
  locale: string | null;
}

/** Counts of the users who started a flow in the window (a cohort, by the day each first started it). */
export interface FlowCounts {
  /** Users who started the flow (saw it and acted, or it started on its own), each counted once, on the day of their first start. */
  started: number;
  /** Of those, users who completed it (their first completion, whenever it came). */
  completed: number;
  /** Of those, users who dismissed it. */
  skipped: number;
  /** completed / started, 0 to 1; null when nobody started. */
  completionRate: number | null;
  /** Median time from first start to first completion, in seconds (from a histogram with 19 % wide buckets); null when nobody completed. */
  medianSecondsToComplete: number | null;
}

export interface FlowSummary extends FlowCounts {
  slug: string;
  name: string;
  type: FlowType;
  /** The flow's status, or null when its file has been removed (its history is kept). */
  status: FlowStatus | null;
  /** The flow's newest version. */
  version: number;
}

/** `GET /v1/analytics/flows`: one row per flow. */
export interface AnalyticsFlowsResponse extends AnalyticsWindow {
  flows: FlowSummary[];
}

/** One step of the funnel, among the users who started the flow in the window. */
export interface StepFunnel {
  stepId: string;
  /** The step's title in the definition read, or null for a step it no longer has. */
  title: string | null;
  /** Users whose current step it became, or who acted on it. */
  reached: number;
  completed: number;
  skipped: number;
  /** Users who reached it, neither completed nor skipped it, and have not completed the flow: they stopped here (or are still here). */
  dropped: number;
  /**
   * Users whose page reported the step's target missing (the `onboarding:target-missing` event), each once per step, on
   * the UTC day of their first report and under the version then served; unlike the counts above, not a cohort by start
   * day. Counted for TOUR, HINT and TOOLTIP flows, 0 for others.
   */
  targetMissing: number;
}

export interface FlowDay {
  /** The UTC day, `YYYY-MM-DD`: the users who first started the flow that day. */
  date: string;
  started: number;
  completed: number;
  skipped: number;
  steps: Array<Omit<StepFunnel, 'title'>>;
}

/**
 * One survey step's answers in the window. A step given as fields is reported by one of them: its first `nps` field,
 * else its first choice field, else its first field as `text` (docs/analytics.md).
 */
export type SurveyStepReport =
  | {
      kind: 'nps';
      stepId: string;
      title: string | null;
      responses: number;
      score: number | null;
      promoters: number;
      passives: number;
      detractors: number;
      distribution: number[];
    }
  | {
      kind: 'rating';
      stepId: string;
      title: string | null;
      responses: number;
      average: number | null;
      distribution: number[];
    }
  | {
      kind: 'single' | 'multiple';
      stepId: string;
      title: string | null;
      responses: number;
      options: Array<{ value: string; label: string; count: number }>;
    }
  | { kind: 'text'; stepId: string; title: string | null; responses: number; comments: SurveyComment[] };

export interface SurveyComment {
  userId: string;
  value: string;
  createdAt: string;
  url: string | null;
}

/**
 * A flow's reshowings (`reshow` in its file), among the users who started it in the window (the cohort of `flow`). The
 * service learns of a comeback from the user's first change in the flow after it came back (a start, a step, a
 * completion, a dismissal); a read that shows it writes nothing, so a user who saw it come back and did nothing is not counted.
 */
export interface FlowReshowCounts {
  /** Users who acted on the flow after it came back. */
  users: number;
  /** Comebacks acted on, in all: each of those users' most comebacks in one run of the flow (at most `reshow.times`). */
  comebacks: number;
  /** Of `users`, those who completed it after it came back. */
  completed: number;
  /** Of `users`, those who dismissed it again after it came back (one who dismissed it after one comeback and completed it after the next is in both). */
  skipped: number;
  /** completed / users, 0 to 1; null when nobody acted on a comeback. */
  completionRate: number | null;
}

/**
 * One locale's share of a flow's counts: the users who first started it in that locale (the canonical code the script
 * sent with the request, else the user property `locale`). `""` holds the users whose start carried no locale, and
 * every start recorded before locales were.
 */
export interface LocaleCounts extends FlowCounts {
  locale: string;
}

/** `GET /v1/analytics/flows/{slug}`: the flow's counts, its step funnel, both by day, and for a survey its answers. */
export interface AnalyticsFlowResponse extends AnalyticsWindow {
  flow: FlowSummary;
  /**
   * The counts of `flow` split by locale: one entry per locale that has a start in the window (and matches the
   * `locale` filter), most starts first, then by code. Their counts add up to `flow`'s.
   */
  locales: LocaleCounts[];
  steps: StepFunnel[];
  /** Every day of the window, oldest first, zeros included. */
  days: FlowDay[];
  /** SURVEY flows only. */
  survey?: { steps: SurveyStepReport[] };
  /** The flow's goal (its file's `goal`): present when the flow being served has one. */
  goal?: FlowGoalReport;
  /** Reshowings: present when the flow being served has `reshow`, or the window counts any; absent otherwise. */
  reshow?: FlowReshowCounts;
  /**
   * RESOURCE_CENTER flows only: users who opened the centre (its first opening starts the flow, so these are the
   * users who started it: `flow.started`).
   */
  opens?: number;
  /** RESOURCE_CENTER flows only: clicks in the window, per block and item, most clicks first. */
  clicks?: ResourceCenterClicks[];
  /** RESOURCE_CENTER flows only: the searches in the window that found nothing, most users first (at most 100). */
  noResultSearches?: NoResultSearch[];
}

/** Clicks on one item of a resource centre's block (`onboarding:resource-center` events with action `click`). */
export interface ResourceCenterClicks {
  /** The block's `id`. */
  block: string;
  /** The flow slug, link URL or `contact` clicked; null for a click that named no item. */
  item: string | null;
  /** Clicks in all. */
  clicks: number;
  /** Users who clicked, each once. */
  users: number;
}

/** A query that found nothing in a resource centre's search, normalised (trimmed, lower case, spaces collapsed, 100 characters at most). */
export interface NoResultSearch {
  query: string;
  /** Users who searched it and found nothing, each once. */
  users: number;
}

/** One answer: a field of a form step, or a survey step's `value`. */
export interface AnswerRow {
  responseId: string;
  userId: string;
  stepId: string;
  /** The form field's ID, or `value` for a survey answer (and for step data that is not an object). */
  field: string;
  /** As sent: a string, number, boolean, list or object. */
  value: unknown;
  createdAt: string;
  url: string | null;
  /** The flow version the answer was given on; null for answers recorded before versions were. */
  version: number | null;
  /** The locale of the request that gave the answer, a canonical code (`fr-CA`); `""` for none, and for answers recorded before locales were. */
  locale: string;
}

/** Query of `GET /v1/analytics/flows/{slug}/responses` (JSON; `Accept: text/csv` streams every answer of the window instead). */
export interface AnalyticsResponsesQuery extends AnalyticsQuery {
  /** Only this step's answers. */
  stepId?: string;
  /** Answers per page, 1 to 1000. @default 100 */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface AnalyticsResponsesResponse extends AnalyticsWindow {
  /** Newest first. */
  data: AnswerRow[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}
