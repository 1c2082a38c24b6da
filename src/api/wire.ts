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

/**
 * Where the client is, sent with flow-state reads and writes (Frigade's SDKs send it). `url` is
 * stored with each flow response; other fields are accepted and ignored.
 */
export interface FlowStateContext {
  url?: string;
  userAgent?: string;
  registeredCollectionIds?: string[];
  [extra: string]: unknown;
}

export interface UserUpsertRequest {
  /** Required unless the older alias `foreignId` is sent instead. */
  userId: string;
  properties?: Properties;
  events?: TrackingEvent[];
  bootstrapFlowStates?: boolean;
  linkGuestId?: string;
}

/** `POST /v1/public/sessions`: one users upsert plus, with `groupId`, one groups upsert with membership, in one transaction. */
export interface SessionRequest {
  userId: string;
  groupId?: string;
  userProperties?: Properties;
  userEvents?: TrackingEvent[];
  groupProperties?: Properties;
  groupEvents?: TrackingEvent[];
  linkGuestId?: string;
  bootstrapFlowStates?: boolean;
}

/** `POST /v1/public/userGroups` (older clients): a groups upsert with the user as a member. */
export interface UserGroupRequest {
  foreignUserId: string;
  foreignUserGroupId: string;
  properties?: Properties;
  events?: TrackingEvent[];
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
  /** Required for step actions; flow actions may leave it out or send "". */
  stepId?: string;
  actionType: ActionType;
  /** Any JSON value; the service stores it JSON-encoded in the Flow response. */
  data?: unknown;
  /** ISO 8601 time the action happened on the client; defaults to the time the service received it. */
  createdAt?: string;
  context?: FlowStateContext;
}

/** `POST /v1/public/flowStates` without `actionType` is a read, answered like the GET. */
export interface FlowStatesReadRequest {
  userId: string;
  groupId?: string;
  context?: FlowStateContext;
  /**
   * Flow versions whose content the client already holds, by slug: their `data` comes back without
   * the definition fields (only `steps[].id` and `$state`).
   */
  knownVersions?: Record<string, number>;
}

/**
 * Query of `GET /v1/public/flowStates`. Every endpoint that answers flow states also takes
 * `content=none`: each flow's `data` then carries only `steps[].id` and `$state`.
 */
export interface FlowStatesQuery {
  userId: string;
  groupId?: string;
  content?: FlowContentMode;
}

/** `all` (the default): every flow's definition rides in its state; `none`: state only. */
export type FlowContentMode = 'all' | 'none';

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

/** A step in a state answer: its definition fields (unless the client asked for no content), its `id` and its `$state`. */
export interface StepWithState extends Partial<StepDefinition> {
  id: string;
  $state: StepState;
}

/** A flow's `data` in a state answer: the YAML `data` fields (unless left out on request) with each step's state. */
export interface FlowStateData extends Partial<Omit<FlowData, 'steps'>> {
  steps: StepWithState[];
}

/** One eligible flow in the flow-state read. */
export interface FlowState {
  flowSlug: string;
  flowName: string;
  flowType: FlowType;
  data: FlowStateData;
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

/** `POST /v1/public/sessions` answers 201 like the users upsert, with flow states read with the session's group. */
export type SessionResponse = UserUpsertResponse;

/** `GET /v1/users?foreignId=` (private key): everything stored about one user, for export. */
export interface UserRecord {
  userId: string;
  properties: Properties;
  createdAt: string;
  updatedAt: string;
  events: Array<{ event: string; properties: Properties; createdAt: string }>;
  groups: Array<{ groupId: string; properties: Properties }>;
  /** The user's response log, oldest first: every transition with its `data` (form and survey answers), time and page. */
  flowResponses: UserFlowResponse[];
}

export interface UserFlowResponse {
  flowSlug: string;
  stepId: string;
  actionType: ActionType;
  data: unknown;
  createdAt: string;
  url: string | null;
  /** The flow version it was made on; null for responses recorded before versions were. */
  flowVersion: number | null;
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

// ---- Analytics (private key only; see docs/analytics.md) ----

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
}

/** The window an answer covers, after rounding to whole UTC days, and the version filter it applied. */
export interface AnalyticsWindow {
  from: string;
  to: string;
  version: number | null;
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
}

export interface FlowDay {
  /** The UTC day, `YYYY-MM-DD`: the users who first started the flow that day. */
  date: string;
  started: number;
  completed: number;
  skipped: number;
  steps: Array<Omit<StepFunnel, 'title'>>;
}

/** One survey step's answers in the window. */
export type SurveyStepReport =
  | { kind: 'nps'; stepId: string; title: string | null; responses: number; score: number | null; promoters: number; passives: number; detractors: number; distribution: number[] }
  | { kind: 'rating'; stepId: string; title: string | null; responses: number; average: number | null; distribution: number[] }
  | { kind: 'single' | 'multiple'; stepId: string; title: string | null; responses: number; options: Array<{ value: string; label: string; count: number }> }
  | { kind: 'text'; stepId: string; title: string | null; responses: number; comments: SurveyComment[] };

export interface SurveyComment {
  userId: string;
  value: string;
  createdAt: string;
  url: string | null;
}

/** `GET /v1/analytics/flows/{slug}`: the flow's counts, its step funnel, both by day, and for a survey its answers. */
export interface AnalyticsFlowResponse extends AnalyticsWindow {
  flow: FlowSummary;
  steps: StepFunnel[];
  /** Every day of the window, oldest first, zeros included. */
  days: FlowDay[];
  /** SURVEY flows only. */
  survey?: { steps: SurveyStepReport[] };
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

// ---- Webhooks (see docs/analytics.md) ----

export const WEBHOOK_EVENT_TYPES = [
  'flow.started',
  'flow.completed',
  'flow.skipped',
  'step.completed',
  'step.skipped',
  'form.submitted',
  'survey.answered',
  'user.linked',
  'user.deleted',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

interface WebhookEventBase {
  /** Unique per event; a receiver that keeps the IDs it has handled sees each event once. */
  id: string;
  /** When it happened: the transition's time (the client's `createdAt`), or the service's clock. */
  createdAt: string;
  userId: string;
}

/** A change in a user's progress through a flow. */
export interface FlowWebhookEvent extends WebhookEventBase {
  type: 'flow.started' | 'flow.completed' | 'flow.skipped' | 'step.completed' | 'step.skipped' | 'form.submitted' | 'survey.answered';
  flowSlug: string;
  flowVersion: number;
  /** The step acted on; for flow events, the step the transition named ("" when none). */
  stepId: string;
  /** The transition's `data`: a form's values, a survey's `{ value }`, `{ "reason": "last-step" }`, …; null when none. */
  data: unknown;
  /** The page it happened on, when the client sent one. */
  url: string | null;
}

/** A guest's progress moved to a user. */
export interface UserLinkedWebhookEvent extends WebhookEventBase {
  type: 'user.linked';
  guestId: string;
}

/** A user and everything stored about them were deleted. */
export interface UserDeletedWebhookEvent extends WebhookEventBase {
  type: 'user.deleted';
}

/** The JSON body of one webhook delivery. */
export type WebhookEvent = FlowWebhookEvent | UserLinkedWebhookEvent | UserDeletedWebhookEvent;
