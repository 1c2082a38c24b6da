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
  /** hex(HMAC-SHA256(identity secret, userId)), computed by the customer's backend; see docs/security.md. */
  userHash?: string;
  properties?: Properties;
  events?: TrackingEvent[];
  bootstrapFlowStates?: boolean;
  linkGuestId?: string;
}

/** `POST /v1/public/sessions`: one users upsert plus, with `groupId`, one groups upsert with membership, in one transaction. */
export interface SessionRequest {
  userId: string;
  /** hex(HMAC-SHA256(identity secret, userId)), computed by the customer's backend; see docs/security.md. */
  userHash?: string;
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
  /** hex(HMAC-SHA256(identity secret, userId)), computed by the customer's backend; see docs/security.md. */
  userHash?: string;
  foreignUserGroupId: string;
  properties?: Properties;
  events?: TrackingEvent[];
}

export interface GroupUpsertRequest {
  groupId: string;
  userId?: string;
  /** The hash of `userId`, when it names one. */
  userHash?: string;
  properties?: Properties;
  events?: TrackingEvent[];
}

export interface FlowStateWriteRequest {
  userId: string;
  /** hex(HMAC-SHA256(identity secret, userId)), computed by the customer's backend; see docs/security.md. */
  userHash?: string;
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
  /** hex(HMAC-SHA256(identity secret, userId)), computed by the customer's backend; see docs/security.md. */
  userHash?: string;
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
  /** Accepted in the query of the GET; the script reads with the POST read instead, so the hash stays out of URLs. */
  userHash?: string;
  groupId?: string;
  content?: FlowContentMode;
}

/** `all` (the default): every flow's definition rides in its state; `none`: state only. */
export type FlowContentMode = 'all' | 'none';

/** The write endpoints a batch stands for. */
export const BATCH_PATHS = ['users', 'groups', 'flowStates'] as const;

/** One write of a batch: the endpoint it stands for (`/v1/public/<path>`), its own Idempotency-Key, and that endpoint's body. */
export type BatchWrite =
  | { path: 'users'; idempotencyKey: string; body: UserUpsertRequest }
  | { path: 'groups'; idempotencyKey: string; body: GroupUpsertRequest }
  | { path: 'flowStates'; idempotencyKey: string; body: FlowStateWriteRequest };

/**
 * `POST /v1/public/batch`: the writes are applied in order, each exactly once by its own key (the same key sent
 * alone to its endpoint is the same request), then the state of the last write's user is read once.
 */
export interface BatchRequest {
  /** 1 to 100 writes. */
  writes: BatchWrite[];
  /** As the POST read's: flows whose version the client holds come without content in `flowStates`. */
  knownVersions?: Record<string, number>;
}

/** How one write of a batch went: what its own endpoint would have answered. */
export interface BatchResult {
  /** 201, or the 4xx of a refused write (with `problem`); a refused write changed nothing. */
  status: number;
  /** The key was used before with the same write: it was not applied again. */
  replayed?: true;
  /** For a users write: whether a guest was linked. */
  guestLinked?: boolean;
  problem?: Problem;
}

export interface BatchResponse {
  /** One per write, in order. */
  results: BatchResult[];
  /**
   * The state of the last write's user (with that write's `groupId`), read after every write; absent when that
   * write was refused for its identity (401).
   */
  flowStates?: FlowStatesResponse;
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
