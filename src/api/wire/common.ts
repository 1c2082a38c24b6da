// The wire vocabulary every endpoint shares: flow types and statuses, actions, tracking events and problem details.

export const FLOW_TYPES = [
  'ANNOUNCEMENT',
  'BANNER',
  'CARD',
  'CHECKLIST',
  'CUSTOM',
  'FORM',
  'HINT',
  'RESOURCE_CENTER',
  'SURVEY',
  'TOOLTIP',
  'TOUR',
] as const;
export type FlowType = (typeof FLOW_TYPES)[number];

export const FLOW_STATUSES = ['ACTIVE', 'ARCHIVED', 'DRAFT'] as const;
export type FlowStatus = (typeof FLOW_STATUSES)[number];

/** Transition kinds written through `POST /v1/public/flowStates` and recorded as Flow responses. */
export const ACTION_TYPES = [
  'STARTED_FLOW',
  'COMPLETED_FLOW',
  'SKIPPED_FLOW',
  'NOT_STARTED_FLOW',
  'STARTED_STEP',
  'COMPLETED_STEP',
  'SKIPPED_STEP',
  'NOT_STARTED_STEP',
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** Button actions a flow definition may name. `false` means the button does nothing but follow its `uri`. */
export const BUTTON_ACTIONS = [
  'flow.start',
  'flow.complete',
  'flow.skip',
  'flow.restart',
  'flow.forward',
  'flow.back',
  'step.complete',
  'step.start',
  'step.skip',
  'step.reset',
] as const;
export type ButtonAction = (typeof BUTTON_ACTIONS)[number] | false;

export type Properties = Record<string, unknown>;

export interface TrackingEvent {
  event: string;
  properties?: Properties;
}

/**
 * The tracking event the script sends, through the users upsert, when a step's target is not on the page; the service
 * counts it per step (see docs/protocol.md, Missing targets).
 */
export const TARGET_MISSING_EVENT = 'onboarding:target-missing';

/**
 * The tracking event the script sends, through the users upsert, when a user clicks an item of a resource centre or
 * pauses or submits a search in it; the service counts them in the centre's analytics (see docs/protocol.md).
 */
export const RESOURCE_CENTER_EVENT = 'onboarding:resource-center';

/** The properties of a `onboarding:resource-center` event. */
export interface ResourceCenterEvent {
  /** The RESOURCE_CENTER flow's slug. */
  flow: string;
  /** A click on an item, or a search (sent when the user pauses or submits, not on every key). */
  action: 'click' | 'search';
  /** The `id` of the block clicked in, or of the search block. */
  block: string;
  /** What was clicked: a flow's slug, a link's `url` (a link to a flow: its slug), or `contact`. */
  item?: string;
  /** A search's text, as typed; the service trims it, lowers its case, collapses its spaces and keeps 100 characters. */
  query?: string;
  /** A search's number of results: 0 counts it among the searches that found nothing. */
  results?: number;
}

/** The properties of a `onboarding:target-missing` event. */
export interface TargetMissingProperties {
  /** The flow whose step it is. */
  flowSlug: string;
  /** The step whose target is missing. */
  stepId: string;
  /** The step's selector, as the page had it. */
  selector: string;
  /** The page's path (`location.pathname`), without query or fragment. */
  page: string;
}

/** RFC 9457 problem details, served as `application/problem+json`. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  /** The request field at fault, where there is one. */
  field?: string;
}
