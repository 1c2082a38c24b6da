// Goals and experiments on the wire: a flow's `goal`, experiments.yaml beside the flow files, and the experiment reports.

/** A flow's or an experiment's goal: the user records `event` within `within` after first seeing the flow (or being exposed). */
export interface GoalDefinition {
  /** The tracked event name that counts as a conversion (`report.exported`). @minLength 1 */
  event: string;
  /** The conversion window: a whole number and a unit (s, m, h, d or w), such as `48h` or `7d`. @default "7d" */
  within?: string;
}

export const EXPERIMENT_STATUSES = ['running', 'paused', 'ended'] as const;
/** running: assigns and exposes; paused: holds every variant's flow back and assigns no one new; ended: the winner's flow for all (none without a winner). */
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

/** experiments.yaml: the experiments, each splitting its audience between its variants. */
export interface ExperimentsFile {
  experiments: ExperimentDefinition[];
}

export interface ExperimentDefinition {
  /** Unique among the experiments; part of every assignment's hash, so renaming it assigns everyone again. */
  id: string;
  status: ExperimentStatus;
  goal: GoalDefinition;
  /** Consecutive ranges of the 10,000 buckets, in this order, in proportion to their weights. */
  variants: VariantDefinition[];
  /** With `status: ended`: the variant whose flow everyone gets. */
  winner?: string;
}

export interface VariantDefinition {
  /** Unique within the experiment. */
  id: string;
  /** The flow this variant's users see; none: a control group, which sees none of the experiment's flows. */
  flow?: string;
  /** A positive number; the shares are the weights over their total. */
  weight: number;
}

/** An experiment the user is exposed to, in a state answer (`experiments`), absent when there is none. */
export interface ExperimentExposure {
  /** The experiment's id. */
  id: string;
  /** The variant the user is in. */
  variant: string;
  /** When the service first answered the user in the experiment's audience (ISO 8601). */
  exposedAt: string;
}

/** A two-sided 95 % interval: `[lower, upper]`. */
export type Interval95 = [number, number];

/** A flow's goal in `GET /v1/analytics/flows/{slug}`: users who first started the flow in the window, and those who converted. */
export interface FlowGoalReport {
  event: string;
  /** As written, or the default `7d`. */
  within: string;
  /** Users whose first start of the flow is in the window. */
  seen: number;
  /** Of those, users who recorded `event` within `within` after that first start. */
  converted: number;
  /** converted ÷ seen; 0 when no one was seen. */
  rate: number;
}

/** One variant's figures in an experiment report. */
export interface ExperimentVariantReport {
  id: string;
  /** The variant's flow; null for a control group. */
  flow: string | null;
  weight: number;
  /** Whether the other variants are compared with this one: the control (the first variant without a flow), else the first variant. */
  baseline: boolean;
  /** Users exposed in this variant. */
  exposed: number;
  /** Of those, users who recorded the goal event within `within` after their exposure. */
  converted: number;
  /** converted ÷ exposed; null when no one is exposed. */
  rate: number | null;
  /** The 95 % Wilson score interval of the rate; null when no one is exposed. */
  interval: Interval95 | null;
  /** rate − the baseline's rate; null for the baseline, or when either has no one exposed. */
  difference: number | null;
  /** The 95 % interval of the difference by Newcombe's hybrid score method (method 10); null as `difference`. */
  differenceInterval: Interval95 | null;
  /** Two-sided p-value of the pooled two-proportion z-test against the baseline; null as `difference`, or when no one converted or everyone did in both. */
  pValue: number | null;
  /** P(this variant's rate > the baseline's) under independent Beta(1 + converted, 1 + exposed − converted) posteriors, exact; null for the baseline. */
  chanceToBeatBaseline: number | null;
}

/** The methods behind an experiment report's figures, named in every answer. */
export interface ExperimentMethods {
  interval: 'wilson-score-95';
  difference: 'newcombe-hybrid-score-95';
  pValue: 'pooled-two-proportion-z-test-two-sided';
  chanceToBeatBaseline: 'beta-posteriors-exact-evan-miller';
  sampleRatio: 'chi-square-goodness-of-fit';
}

/** `GET /v1/analytics/experiments/{id}`: one experiment of experiments.yaml, with every exposure since it began. */
export interface ExperimentReport {
  id: string;
  status: ExperimentStatus;
  goal: Required<GoalDefinition>;
  winner: string | null;
  /** The id of the variant the others are compared with. */
  baseline: string;
  variants: ExperimentVariantReport[];
  /** The chi-square goodness-of-fit test of the exposed counts against the weights; `mismatch` when p < 0.001. pValue is null before anyone is exposed. */
  sampleRatio: { pValue: number | null; mismatch: boolean };
  /** False while any variant has fewer than 5 conversions or fewer than 5 non-conversions. */
  enoughData: boolean;
  /** Users exposed in all variants. */
  exposed: number;
  methods: ExperimentMethods;
}

/** `GET /v1/analytics/experiments`: every experiment of experiments.yaml, in its order, with its report. */
export interface ExperimentsReportResponse {
  experiments: ExperimentReport[];
}
