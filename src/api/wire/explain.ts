// Why a flow is or is not shown, on the wire: limits.yaml beside the flow files, and GET /v1/users/{userId}/explain.
import type { FlowStatus, FlowType, Properties } from './common.js';
import type { StartWhen } from './flow-file.js';

/** The flow types a limit can name. */
export type LimitFlowType = FlowType;

/** limits.yaml: global frequency limits across every flow of a set, whatever collection they are in. */
export interface LimitsFile {
  limits: LimitDefinition[];
}

/**
 * One rule. Its set is `types` (every flow of those types) or `flows` (slugs). It holds back a flow of its set that the
 * user has not started while `max` of the user's flows of the set were first started within the last `per`, or one
 * was first started less than `minGap` ago. Give `max` with `per`, `minGap`, or both.
 */
export interface LimitDefinition {
  /** Unique among the limits; named in the explanation. */
  id: string;
  types?: LimitFlowType[];
  flows?: string[];
  /** A positive whole number: how many first starts `per` allows. */
  max?: number;
  /** The window `max` counts in: a whole number and a unit (s, m, h, d or w), such as `1d`. */
  per?: string;
  /** The least time between two first starts of the set, such as `4h`. */
  minGap?: string;
}

/** The rules the service applies to a flow, in the order it applies them. */
export const EXPLAIN_RULES = [
  'status',
  'schedule',
  'targeting',
  'state',
  'collection',
  'limit',
  'experiment',
  'startWhen',
] as const;
export type ExplainRule = (typeof EXPLAIN_RULES)[number];

/** What every reason has: the rule, whether it lets the flow through, and one sentence a support person can paste. */
interface ReasonBase<Rule extends ExplainRule> {
  rule: Rule;
  passed: boolean;
  detail: string;
}

/** Only an ACTIVE flow is served. */
export interface StatusReason extends ReasonBase<'status'> {
  status: FlowStatus;
}

/** The flow's schedule (null ends: open on that side; both null: no schedule). */
export interface ScheduleReason extends ReasonBase<'schedule'> {
  start: string | null;
  end: string | null;
}

/** One top-level clause of the targeting's `&&` or `||` (the whole expression when it has none), with its value. */
export interface TargetingClause {
  expression: string;
  /** Its value for this user; an expression that fails at run time counts as false, with its `error`. */
  value: unknown;
  error?: string;
  /** For a comparison, each side with its value (the user's property, the count): what made the clause true or false. */
  operands?: Array<{ expression: string; value: unknown }>;
}

export interface TargetingReason extends ReasonBase<'targeting'> {
  /** The flow's `targetingLogic`; '' for everyone. */
  expression: string;
  value: unknown;
  clauses: TargetingClause[];
}

/** Completed or dismissed flows are not shown, unless a dismissed one comes back (`reshow`). */
export interface StateReason extends ReasonBase<'state'> {
  started: boolean;
  completed: boolean;
  dismissed: boolean;
  /** When a dismissed flow with `reshow` comes back (ISO); null when it does not. */
  reshowAt: string | null;
}

/** One collection the flow is in (collection null: in none). */
export interface CollectionReason extends ReasonBase<'collection'> {
  collection: string | null;
  /** The collection's flow shown ahead of this one, when that is what holds it back. */
  ahead: string | null;
  /** When the collection's cool-off ends (ISO), when that is what holds it back. */
  until: string | null;
}

/** One limit of limits.yaml whose set has the flow (id null: in none, or the flow ignores limits). */
export interface LimitReason extends ReasonBase<'limit'> {
  id: string | null;
  /** When the rule lets the flow through again (ISO), when it holds it back. */
  until: string | null;
}

/** The experiment the flow is a variant of (experiment null: in none). */
export interface ExperimentReason extends ReasonBase<'experiment'> {
  experiment: string | null;
  /** The user's variant; null outside the audience, or for a paused or ended experiment. */
  variant: string | null;
}

/** The start rules are the page's to decide: the service reports them, and they never hold a flow back here. */
export interface StartWhenReason extends ReasonBase<'startWhen'> {
  startWhen: StartWhen | null;
}

export type ExplainReason =
  | StatusReason
  | ScheduleReason
  | TargetingReason
  | StateReason
  | CollectionReason
  | LimitReason
  | ExperimentReason
  | StartWhenReason;

/** One flow of the catalog, for one user now. */
export interface FlowExplanation {
  flowSlug: string;
  name: string;
  type: FlowType;
  /** True when the service would send the flow as visible now (in `eligibleFlows`, `$state.visible` true). */
  shown: boolean;
  /** The first rule that did not pass, or null when none failed. */
  heldBy: ExplainRule | null;
  reasons: ExplainReason[];
}

/** Query of `GET /v1/users/{userId}/explain` (private key). */
export interface ExplainQuery {
  /** Only this flow; 404 when the catalog has none by that slug. @minLength 1 @maxLength 128 */
  flowSlug?: string;
  /** Explain as a read with this group does (`groupId` of the state read): rules that read `group` see it. */
  groupId?: string;
}

/** `GET /v1/users/{userId}/explain[?flowSlug=]` (private key): why each flow is or is not shown to the user now. */
export interface ExplainResponse {
  /** The user explained: a linked guest's id answers for the user it became. */
  userId: string;
  /** False for an id the service has never stored: the explanation is then a new user's. */
  exists: boolean;
  /** The moment explained (ISO). */
  at: string;
  /** What the rules read about the user. */
  user: {
    properties: Properties;
    groups: string[];
    /** The latest 50 events, newest first. */
    recentEvents: Array<{ event: string; properties: Properties; createdAt: string }>;
  };
  flows: FlowExplanation[];
}
