// Wire types of the onboarding service: declared once, imported by the script, the server and the tests.

export const FLOW_TYPES = [
  'ANNOUNCEMENT',
  'BANNER',
  'CARD',
  'CHECKLIST',
  'CUSTOM',
  'FORM',
  'SURVEY',
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

// ---- Requests ----

export interface UserUpsertRequest {
  userId: string;
  properties?: Properties;
  events?: TrackingEvent[];
  bootstrapFlowStates?: boolean;
  linkGuestId?: string;
}

export interface GroupUpsertRequest {
  groupId: string;
  userId?: string;
  properties?: Properties;
  events?: TrackingEvent[];
}

export interface FlowStateWriteRequest {
  userId: string;
  groupId?: string;
  flowSlug: string;
  stepId: string;
  actionType: ActionType;
  /** Any JSON value; the service stores it JSON-encoded in the Flow response. */
  data?: unknown;
  /** ISO 8601 time the action happened on the client; defaults to the time the service received it. */
  createdAt?: string;
}

export interface FlowStatesQuery {
  userId: string;
  groupId?: string;
}

export interface FlowsQuery {
  offset?: number;
  limit?: number;
}

/** Query of `DELETE /v1/users` (private key only). */
export interface DeleteUserQuery {
  /** The user's ID in the customer application. */
  foreignId: string;
}

// ---- Responses ----

export interface FlowResponse {
  flowSlug: string;
  actionType: ActionType;
  stepId: string;
  /** JSON-encoded payload. */
  data: string;
  createdAt: string;
}

export interface StepState {
  completed: boolean;
  skipped: boolean;
  started: boolean;
  visible: boolean;
  blocked: boolean;
  lastActionAt?: string;
  flowResponses: FlowResponse[];
}

export interface FlowStateState {
  currentStepId: string;
  currentStepIndex: number;
  completed: boolean;
  started: boolean;
  skipped: boolean;
  visible: boolean;
  lastActionAt?: string;
  flowResponses: FlowResponse[];
}

export interface StepWithState {
  id: string;
  $state: StepState;
}

/** One eligible flow in the flow-state read. */
export interface FlowState {
  flowSlug: string;
  flowName: string;
  flowType: FlowType;
  data: { steps: StepWithState[] };
  $state: FlowStateState;
  version: number;
}

export interface FlowStatesResponse {
  eligibleFlows: FlowState[];
  /** Slugs of every flow the user is not eligible for, including flows that are not ACTIVE. */
  ineligibleFlows: string[];
}

/** `POST /v1/public/groups` answers 201 with an empty object. */
export type GroupUpsertResponse = Record<string, never>;

/** `POST /v1/public/flowStates` answers 201 with the user's full flow-state read, after the transition. */
export type FlowStateWriteResponse = FlowStatesResponse;

export interface UserUpsertResponse {
  userId: string;
  guestLinked: boolean;
  flowStates: FlowStatesResponse;
}

/** A flow definition as listed by `GET /v1/public/flows`. */
export interface Flow {
  id: number;
  name: string;
  /** JSON-encoded FlowData. */
  data: string;
  targetingLogic: string;
  type: FlowType;
  slug: string;
  createdAt: string;
  modifiedAt: string;
  version: number;
  status: FlowStatus;
  codeSnippet: string;
}

export interface FlowsResponse {
  data: Flow[];
  offset: number;
  /** The number of records in this response. */
  limit: number;
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

// ---- Flow definition data (the YAML `data` block, served JSON-encoded as Flow.data) ----

export interface FlowButton {
  title: string;
  action?: ButtonAction;
  uri?: string;
  target?: string;
}

export interface FormField {
  id: string;
  type: 'text' | 'textarea' | 'email' | 'number' | 'select' | 'radio' | 'checkbox';
  label: string;
  placeholder?: string;
  required?: boolean;
  pattern?: string;
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  options?: Array<{ value: string; label: string }>;
  message?: string;
}

export interface StepDefinition {
  id: string;
  title?: string;
  subtitle?: string;
  primaryButton?: FlowButton;
  secondaryButton?: FlowButton;
  completionCriteria?: string;
  startCriteria?: string;
  visibilityCriteria?: string;
  selector?: string;
  fields?: FormField[];
  props?: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface FlowData {
  title?: string;
  subtitle?: string;
  completionCriteria?: string;
  props?: Record<string, unknown>;
  steps: StepDefinition[];
  [extra: string]: unknown;
}
