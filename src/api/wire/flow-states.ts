// Flow states on the wire: GET and POST /v1/public/flowStates (a read, or a transition), and the state answer.
import type { ExperimentExposure } from './experiments.js';
import type { ActionType, FlowType } from './common.js';
import type { CollectionType } from './collections.js';
import type { FlowData } from './flow-file.js';
import type { StepDefinition } from './flow-file-steps.js';

/**
 * Query of `GET /v1/public/flowStates`. Every endpoint that answers flow states also takes `content` and
 * `targetedOut`: `content=none` leaves each flow's `data` with only `steps[].id` and `$state`.
 */
export interface FlowStatesQuery {
  userId: string;
  /** Accepted in the query of the GET; the script reads with the POST read instead, so the hash stays out of URLs. */
  userHash?: string;
  groupId?: string;
  content?: FlowContentMode;
  /**
   * `hidden`: every ACTIVE flow whose targeting is false (or fails) comes in `eligibleFlows` too, with its content
   * and `$state.visible: false`, so a client that only follows flows it holds sees one become eligible; it stays in
   * `ineligibleFlows`. `omit`: such flows are in `ineligibleFlows` only. DRAFT and ARCHIVED flows never come.
   * @default 'hidden' when the request carries `X-Frigade-SDK-Version` or `X-Frigade-SDK-Platform`, 'omit' otherwise
   */
  targetedOut?: TargetedOutMode;
  /**
   * The user's locale (`fr-CA`): each flow's text comes in it, field by field the exact locale's translation, else its
   * base language's (`fr`), else the source. Case and `_` are forgiven (`fr_ca`); a code that is not one reads as none.
   */
  locale?: string;
}

/** `all` (the default): every flow's definition rides in its state; `none`: state only. */
export type FlowContentMode = 'all' | 'none';

/** Whether a state answer carries the ACTIVE flows the user is targeted out of (see `FlowStatesQuery.targetedOut`). */
export type TargetedOutMode = 'hidden' | 'omit';

/** `POST /v1/public/flowStates` without `actionType` is a read, answered like the GET. */
export interface FlowStatesReadRequest {
  userId: string;
  /** hex(HMAC-SHA256(identity secret, userId)), computed by the customer's backend; see docs/security.md. */
  userHash?: string;
  groupId?: string;
  context?: FlowStateContext;
  /**
   * Flow versions whose content the client already holds, by slug: their `data` comes back without
   * the definition fields (only `steps[].id` and `$state`). Versions are held in one locale: a client that changes
   * its locale sends none on its first read in the new one. A value is the flow's `contentHash` as an answer gave it,
   * or its version number (which a restore from an older backup can give to other content; the hash cannot).
   */
  knownVersions?: KnownVersions;
  /** The locale to answer in, as the query's `locale` (this one wins when both are sent). */
  locale?: string;
}

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

/** `POST /v1/public/flowStates` answers 201 with the user's full flow-state read, after the transition. */
export type FlowStateWriteResponse = FlowStatesResponse;

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
  /** How many times a dismissed flow with `reshow` has come back (this showing included); absent for flows without `reshow`. */
  reshows?: number;
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
  /**
   * The first 16 hex digits of the SHA-256 of the flow file's content. Version numbers can repeat after a restore
   * from an older backup; a cache keyed by both never takes other content for its own.
   */
  contentHash?: string;
}

/** Flow versions whose content a client holds, by slug: the `contentHash` of each (or, from older clients, the version). */
export type KnownVersions = Record<string, string | number>;

export interface FlowStatesResponse {
  /** The flows the user is eligible for; with `targetedOut=hidden`, also the ACTIVE ones they are not, each with `$state.visible` false. */
  eligibleFlows: FlowState[];
  /** Slugs of every flow the user is not eligible for, including flows that are not ACTIVE (and hidden flows sent in `eligibleFlows`). */
  ineligibleFlows: string[];
  /**
   * The user's place in each collection (collections.yaml), as Frigade's SDKs read it. The service always sends it
   * (`computedOrder` is empty without collections); optional for services that do not.
   */
  collections?: CollectionsState;
  /**
   * The running experiments (experiments.yaml) the user is exposed to, with the variant they are in; absent when none.
   * A variant's flow is in `eligibleFlows` as any flow is; the other variants' flows are held back (`$state.visible`
   * false, or left out where hidden flows are).
   */
  experiments?: ExperimentExposure[];
}

/** `collections` of a state answer. */
export interface CollectionsState {
  /** One row per flow of each collection: collections in file order, flows in priority order within each. */
  computedOrder: ComputedCollectionFlow[];
}

/** One flow of one collection in `collections.computedOrder`. */
export interface ComputedCollectionFlow {
  collectionId: string;
  /** The flow's slug. */
  flowId: string;
  /** Whether the user is shown this flow now: the collection's one open flow, once its cool-off has passed. */
  visible: boolean;
  /** As the collection lists them; [] when it lists none. */
  allowedComponents: string[];
  collectionType: CollectionType;
}
