// Wire types of the onboarding service: declared once, imported by the script, the server and the tests.

export const FLOW_TYPES = [
  'ANNOUNCEMENT',
  'BANNER',
  'CARD',
  'CHECKLIST',
  'CUSTOM',
  'FORM',
  'HINT',
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
   * the definition fields (only `steps[].id` and `$state`). Versions are held in one locale: a client that changes
   * its locale sends none on its first read in the new one. A value is the flow's `contentHash` as an answer gave it,
   * or its version number (which a restore from an older backup can give to other content; the hash cannot).
   */
  knownVersions?: KnownVersions;
  /** The locale to answer in, as the query's `locale` (this one wins when both are sent). */
  locale?: string;
}

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
  knownVersions?: KnownVersions;
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
  /** The locale of the request that made it, a canonical code (`fr-CA`); `""` for none, and for responses recorded before locales were. */
  locale: string;
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
// schema/flow.schema.json is generated from the declarations below (npm run schema), and a test fails when the
// two differ. Descriptions and `@default`, `@minLength`, `@pattern`, `@minimum`, `@maximum`, `@minItems`, `@maxItems`
// and `@format` tags go into it. The formats `css-selector` and `path-pattern` are checked by the service and by
// `onboarding-flows check` (server/flows/formats.ts); an editor that does not know them skips them.

/** Survey step kinds; a step without `type` is `nps` when it is the first step and `text` after it. */
export const SURVEY_KINDS = ['nps', 'rating', 'single', 'multiple', 'text'] as const;
export type SurveyKind = (typeof SURVEY_KINDS)[number];

/** Flow type names a flow file may use for another: Frigade's `NPS_SURVEY` is a SURVEY (served as `SURVEY`). */
export const FLOW_TYPE_ALIASES = { NPS_SURVEY: 'SURVEY' } as const satisfies Record<string, FlowType>;

/**
 * Field types our form and survey elements draw. Any other `type` is accepted (with a `flows check` warning): it is
 * drawn by the page's own code, through a Frigade `fieldTypes` entry or a custom element, and its answer is stored
 * like any other.
 */
export const FORM_FIELD_TYPES = ['text', 'textarea', 'email', 'number', 'select', 'radio', 'checkbox', 'nps'] as const;
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];

/** A validation rule in Frigade's shape: the value alone, or the value with the message shown when it fails. */
export type ValidationRule<T> =
  | T
  | {
      /** The rule's value. */
      value: T;
      /** The message shown when the value breaks the rule. @minLength 1 */
      message: string;
    };

/** A button of a step. */
export interface FlowButton {
  /** The button's text. @minLength 1 */
  title: string;
  /** What the button does. Without it a primary button moves forward and a secondary one dismisses; `false` only follows `uri`. */
  action?: ButtonAction;
  /** A link to follow (http, https, mailto, tel, relative or #fragment); the button becomes a real link. @format link */
  uri?: string;
  /** Where the link opens: `_self`, `_blank`, `_parent` or `_top`. @default "_self" */
  target?: '_self' | '_blank' | '_parent' | '_top';
}

/** One choice of a select, radio or checkbox field, or of a single or multiple choice survey step. */
export interface ChoiceOption {
  /** What is sent when the choice is picked. */
  value: string | number;
  /** What the user sees. @minLength 1 */
  label: string;
}

/**
 * A field of a FORM or SURVEY step, in Frigade's shape; its value goes into the step's data under its `id`. The type
 * is one of ours (`text`, `textarea`, `email`, `number`, `select`, `radio`, `checkbox`, `nps`) or a name the page
 * draws itself (a Frigade `fieldTypes` entry or a custom element).
 */
export interface FormField {
  /** The key of the answer in the step's data; unique within the step. @minLength 1 */
  id: string;
  /** The kind of input: one of ours, or a name the page's own code draws (`flows check` warns). */
  type: FormFieldType | (string & {});
  /**
   * The field's label. Every type our elements draw needs one (`flows check` refuses a field without), except `nps`
   * and a step's only field: the step's title names those. @minLength 1
   */
  label?: string;
  /** Placeholder text; for a select, the text of the empty choice. */
  placeholder?: string;
  /**
   * The field must be filled in (a checkbox without options must be ticked): `true`, the message shown when it is not,
   * or `{ value, message }`. @default false
   */
  required?: string | ValidationRule<boolean>;
  /**
   * A regular expression the whole value must match, read in Unicode mode as HTML's `pattern` attribute reads it;
   * Frigade's `/…/` form is read without its slashes.
   */
  pattern?: ValidationRule<string>;
  /** Smallest number allowed (number fields). */
  min?: ValidationRule<number>;
  /** Largest number allowed (number fields). */
  max?: ValidationRule<number>;
  /** Fewest characters allowed. */
  minLength?: ValidationRule<number>;
  /** Most characters allowed. */
  maxLength?: ValidationRule<number>;
  /**
   * The choices of a select or radio field, of a checkbox group (a checkbox without options is one yes/no box), or
   * the points of an `nps` scale (whole numbers from 0 to 10, as numbers or text; 0 to 10 when absent).
   */
  options?: ChoiceOption[];
  /** A select that takes several choices (Frigade's `multiple`); its answer is a list. @default false */
  multiple?: boolean;
  /** The value the field starts with. */
  value?: string;
  /** The message shown when the value is invalid, instead of the built-in one. */
  message?: string;
  /** Label under the high end of an `nps` scale (Frigade's key). @default "Very likely" */
  positiveLabel?: string;
  /** Label under the low end of an `nps` scale (Frigade's key). @default "Not likely" */
  negativeLabel?: string;
  /** Free-form data for the code that draws the field. */
  props?: Record<string, unknown>;
}

/** Presentation options of a step; keys not listed here are free-form custom data, kept and served as they are. */
export interface StepProps {
  [custom: string]: unknown;
}

/** Presentation options of a flow; keys not listed here are free-form custom data, kept and served as they are. */
export interface FlowProps {
  /** Shows a close button (and lets Escape dismiss); dismissing skips the flow. @default true */
  dismissible?: boolean;
  [custom: string]: unknown;
}

/** Options of the flows that take turns in the one modal slot (announcements, surveys, tours). */
export interface ModalFlowProps extends FlowProps {
  /** Opens before flows of lower priority waiting for the modal slot. @default 0 */
  priority?: number;
}

/** What a checklist shows once every step is done. */
export type ChecklistWhenDone = 'hide' | 'show' | 'keep';

/** Options of a checklist. */
export interface ChecklistProps extends FlowProps {
  /** Steps open only in order: a step is locked until every earlier visible step is done or skipped. @default false */
  sequential?: boolean;
  /**
   * Once every step is done: `show` the "all done" state when the user finishes on the page, until they close it or
   * leave; `keep` it on every visit until closed on that page; or `hide` the checklist at once. @default "show"
   */
  whenDone?: ChecklistWhenDone;
  /** Title of the "all done" state. @default "All done" */
  doneTitle?: string;
  /** Text of the "all done" state; rich text allowed. Without it the state shows its title alone. */
  doneSubtitle?: string;
}

/** Where a step that points at an element sits around it. */
export type TourPlacement = 'top' | 'bottom' | 'left' | 'right' | 'top-start' | 'top-end' | 'bottom-start' | 'bottom-end' | 'left-start' | 'left-end' | 'right-start' | 'right-end';

/** Options of the flows whose steps point at an element of the page (tours, hints, tooltips), on the flow or on one step (the step's wins). */
export interface TargetOptions {
  /** Where the step sits around its target. @default "bottom" */
  placement?: TourPlacement;
  /** How long to wait for a target that is not on the page yet, in milliseconds. @default 5000 @minimum 0 */
  targetTimeout?: number;
  /** When the target never appears: `hide` the step until it does, or `skip` the step. @default "hide" */
  missingTarget?: 'hide' | 'skip';
}

/** Tour options, on the flow or on one step (the step's wins). */
export interface TourOptions extends TargetOptions {
  /** Dims the page behind the step. @default false */
  overlay?: boolean;
  /** Dims the page except around the target. @default false */
  spotlight?: boolean;
  /**
   * With an overlay or a spotlight, the target can still be clicked (the rest of the page is blocked); `false` blocks
   * the target too. @default true
   */
  canClickTarget?: boolean;
}

/** Options of a tour. */
export interface TourProps extends ModalFlowProps, TourOptions {}

/** Options of one tour step. */
export interface TourStepProps extends StepProps, TourOptions {}

/** Options of a hint flow: one beacon per step, each on its own target. */
export interface HintProps extends FlowProps, TargetOptions {}

/** Options of one hint. */
export interface HintStepProps extends StepProps, TargetOptions {}

/** What opens a stand-alone tooltip: `hover` (hovering or focusing its target), or `beacon` (a beacon on the target). */
export type TooltipTrigger = 'hover' | 'beacon';

/** Options of a stand-alone tooltip. */
export interface TooltipProps extends FlowProps, TargetOptions {
  /** What opens the tooltip: `hover` opens it while the target is hovered or focused; `beacon` puts a beacon on the target that opens it. @default "hover" */
  trigger?: TooltipTrigger;
}

/** Options of a tooltip's step. */
export interface TooltipStepProps extends StepProps, TargetOptions {}

/** Options of a survey (SURVEY or `NPS_SURVEY`). */
export interface SurveyProps extends ModalFlowProps {
  /** Label under the high end of every `nps` scale of the survey (Frigade's key). @default "Very likely" */
  positiveLabel?: string;
  /** Label under the low end of every `nps` scale of the survey (Frigade's key). @default "Not likely" */
  negativeLabel?: string;
  /** The points of every `nps` scale of the survey: whole numbers from 0 to 10 (Frigade's key). */
  options?: ChoiceOption[];
}

/** Options of one survey step. */
export interface SurveyStepProps extends StepProps {
  /** Number of stars of a `rating` step, from 2 to 10. @default 5 @minimum 2 @maximum 10 */
  max?: number;
  /** Label under the low end of an `nps` scale. @default "Not likely" */
  lowLabel?: string;
  /** Label under the high end of an `nps` scale. @default "Very likely" */
  highLabel?: string;
}

/** The fields every step has. */
export interface StepBase {
  /** Unique within the flow; users' progress is stored by it, so keep it when the text changes. @minLength 1 @pattern ^[^\u0000-\u001f]{1,256}$ */
  id: string;
  /** The step's title; rich text and `${variable|fallback}` allowed. */
  title?: string;
  /** The step's text; rich text and `${variable|fallback}` allowed. */
  subtitle?: string;
  /** The main button. */
  primaryButton?: FlowButton;
  /** The second button. */
  secondaryButton?: FlowButton;
  /** Frigade's flat form of `primaryButton.title`, read when the step has no `primaryButton`. @minLength 1 */
  primaryButtonTitle?: string;
  /** Frigade's flat form of `primaryButton.uri`. @format link */
  primaryButtonUri?: string;
  /** Frigade's flat form of `primaryButton.target`. */
  primaryButtonUriTarget?: '_self' | '_blank' | '_parent' | '_top';
  /** Frigade's flat form of `secondaryButton.title`, read when the step has no `secondaryButton`; as in Frigade, it completes the step. @minLength 1 */
  secondaryButtonTitle?: string;
  /** Frigade's flat form of `secondaryButton.uri`. @format link */
  secondaryButtonUri?: string;
  /** Frigade's flat form of `secondaryButton.target`. */
  secondaryButtonUriTarget?: '_self' | '_blank' | '_parent' | '_top';
  /** CEL: when true, the step counts as completed without a click. */
  completionCriteria?: string;
  /** CEL: while false, the step is blocked (shown, but cannot be done). */
  startCriteria?: string;
  /** CEL: while false, the step is not shown and not counted. */
  visibilityCriteria?: string;
  /** Presentation options; other keys are free-form custom data. */
  props?: StepProps;
  /** Frigade: the step's name in a list view. Our elements do not show it (a checklist shows `title`); it is served for your code. */
  stepName?: string;
  /** Frigade: an icon (http, https or relative address) for components that show one. Our elements do not show it. */
  iconUri?: string;
  /** Frigade: the text of a Back button. Our elements do not read it; their Back is the `back` string (`setStrings`). */
  backButtonTitle?: string;
  /** Frigade: the secondary button marks the step skipped. Our elements do not read it: the secondary button's `action` (or the type's default) decides. */
  skippable?: boolean;
  /** Frigade: the step can be dismissed (tooltips and other non-essential steps). Our elements do not read it: the flow's `props.dismissible` decides. */
  dismissible?: boolean;
  /** Frigade: the primary button marks the step completed. Our elements do not read it: the primary button's `action` decides, and by default completes the step. */
  autoMarkCompleted?: boolean;
}

/**
 * An image or a video shown with a step. Every step takes them, as in Frigade's files; announcements, cards, tours,
 * hints and tooltips draw them, and on other types they are for Frigade's components or the page's own code.
 */
export interface StepMedia {
  /** An image (http, https or relative address). */
  imageUri?: string;
  /** The image's text alternative. */
  imageAlt?: string;
  /** A video (http, https or relative address); shown instead of the image. */
  videoUri?: string;
}

/** A step of an ANNOUNCEMENT: a modal dialog. */
export interface AnnouncementStep extends StepBase, StepMedia {}
/** A step of a BANNER: an inline bar. */
export interface BannerStep extends StepBase, StepMedia {}
/** A step of a CARD: an inline card. */
export interface CardStep extends StepBase, StepMedia {}
/** A step of a CHECKLIST: one task. */
export interface ChecklistStep extends StepBase, StepMedia {}
/** A step of a CUSTOM flow, drawn by the page; put its own data in `props`. */
export interface CustomStep extends StepBase, StepMedia {}
/** A step of a FORM: a page of fields. */
export interface FormStep extends StepBase, StepMedia {
  /** The step's fields; their values are sent as the step's data. */
  fields?: FormField[];
}
/** A step of a SURVEY: one question, by `type`, or fields in Frigade's shape (`fields: [{ id, type: nps }]`). */
export interface SurveyStep extends StepBase, StepMedia {
  /** The kind of question. @default "nps" for the first step, "text" after it */
  type?: SurveyKind;
  /** The step's fields, in Frigade's shape; with them the step has no `type`, and its data holds each field's answer under its `id`. */
  fields?: FormField[];
  /** The choices of a `single` or `multiple` question. */
  options?: ChoiceOption[];
  /** Options of the question. */
  props?: SurveyStepProps;
}
/**
 * What moves a tour on besides its buttons: `click` (the user clicks the step's target), or `{ appears: selector }`
 * (an element matching the selector comes onto the page).
 */
export type AdvanceOn =
  | 'click'
  | {
      /** CSS selector of the element whose arrival completes the step; parts joined by `>>>` reach into open shadow roots and same-origin iframes. @format css-selector */
      appears: string;
    };

/** A step of a TOUR: a tooltip pointing at an element of the page. */
export interface TourStep extends StepBase, StepMedia {
  /**
   * CSS selector of the element to point at; parts joined by `>>>` reach into open shadow roots (`host >>> .inner`) and
   * same-origin iframes (`iframe#editor >>> .toolbar`). Without it the step is centred. @format css-selector
   */
  selector?: string;
  /**
   * The page the step lives on, as a path pattern: `/projects/:id/settings` (`:name` is one segment), `/reports/*` (`*`,
   * only at the end, is one or more characters). The tour waits on other pages. Without it the step shows on any page. @format path-pattern
   */
  page?: string;
  /** What completes the step besides its buttons: `click` on its target, or `{ appears: selector }`. Without it only the buttons do. */
  advanceOn?: AdvanceOn;
  /** Tour options for this step. */
  props?: TourStepProps;
}
/** A step of a HINT: a pulsing beacon on its target; clicking it opens the step in a tooltip. Steps are independent. */
export interface HintStep extends StepBase, StepMedia {
  /** CSS selector of the element the beacon sits on; parts joined by `>>>` reach into open shadow roots and same-origin iframes. @format css-selector */
  selector: string;
  /** The page the hint lives on, as a path pattern (`/projects/:id/settings`, `/reports/*`). Without it the hint shows on any page. @format path-pattern */
  page?: string;
  /** Hint options for this step. */
  props?: HintStepProps;
}
/** The one step of a TOOLTIP: a tooltip anchored to an element, opened on hover or focus of it, or by a beacon. */
export interface TooltipStep extends StepBase, StepMedia {
  /** CSS selector of the element the tooltip belongs to; parts joined by `>>>` reach into open shadow roots and same-origin iframes. @format css-selector */
  selector: string;
  /** The page the tooltip lives on, as a path pattern (`/projects/:id/settings`, `/reports/*`). Without it the tooltip works on any page. @format path-pattern */
  page?: string;
  /** Tooltip options for this step. */
  props?: TooltipStepProps;
}

/** The `data` block of a flow file, with the step and props shape of its type. */
export interface FlowDataOf<Step, Props> {
  /** The flow's title (a checklist's heading). */
  title?: string;
  /** The flow's text. */
  subtitle?: string;
  /** CEL: when true, the whole flow counts as completed. */
  completionCriteria?: string;
  /** Presentation options; other keys are free-form custom data. */
  props?: Props;
  /** The steps, in order. */
  steps: Step[];
}

/** The `data` block of a TOOLTIP: exactly one step. */
export interface TooltipData extends FlowDataOf<TooltipStep, TooltipProps> {
  /** The tooltip's one step. @minItems 1 @maxItems 1 */
  steps: TooltipStep[];
}

/** The `data` shape of each flow type. */
export interface FlowDataByType {
  ANNOUNCEMENT: FlowDataOf<AnnouncementStep, ModalFlowProps>;
  BANNER: FlowDataOf<BannerStep, FlowProps>;
  CARD: FlowDataOf<CardStep, FlowProps>;
  CHECKLIST: FlowDataOf<ChecklistStep, ChecklistProps>;
  CUSTOM: FlowDataOf<CustomStep, FlowProps>;
  FORM: FlowDataOf<FormStep, FlowProps>;
  HINT: FlowDataOf<HintStep, HintProps>;
  SURVEY: FlowDataOf<SurveyStep, SurveyProps>;
  TOOLTIP: TooltipData;
  TOUR: FlowDataOf<TourStep, TourProps>;
}

/** One flow file (YAML): one flow. */
export interface FlowFile {
  /** Unique; stable across versions, since users' progress is stored by it. @pattern ^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$ */
  slug: string;
  /** The flow's name. @minLength 1 */
  name: string;
  /** The kind of flow; it decides the shape of `data` and the element that shows it. `NPS_SURVEY` is read as SURVEY. */
  type: FlowType | keyof typeof FLOW_TYPE_ALIASES;
  /** Only ACTIVE flows are served to users. @default "ACTIVE" */
  status?: FlowStatus;
  /** CEL: who gets the flow. Empty or absent: everyone. @default "" */
  targetingLogic?: string;
  /** A dismissed flow comes back: after `after` since the dismissal, at most `times` more times; a completed one never. */
  reshow?: FlowReshow;
  /**
   * When an eligible flow opens in the page: every rule given must hold (AND). Targeting decides who gets the flow;
   * these decide the moment. Served inside `Flow.data` as `startWhen`.
   */
  startWhen?: StartWhen;
  /** The flow's content, served JSON-encoded as `Flow.data`. */
  data: FlowDataByType[FlowType];
  /**
   * The flow's text in other languages, by locale code (`fr`, `fr-CA`, `pt-BR`). Each overlays the source text field
   * by field, steps by their `id`: a field a translation leaves out shows the source text. One flow, one slug, one
   * state, whatever the language. A code is a language (2 or 3 lowercase letters), then optionally a script (`Hans`) and a
   * region (`CA`, `419`), joined by `-`.
   * @keyPattern ^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$
   */
  translations?: Record<string, FlowTranslation>;
}

/** One locale's text of a flow: the text fields of `data`, each optional. */
export interface FlowTranslation {
  /** The flow's title. */
  title?: string;
  /** The flow's text. */
  subtitle?: string;
  /** The text options of the flow's props. */
  props?: PropsTranslation;
  /** The steps' text, by step `id`. */
  steps?: Record<string, StepTranslation>;
}

/** Text options of a flow's or a step's props. */
export interface PropsTranslation {
  /** A checklist's "all done" title. */
  doneTitle?: string;
  /** A checklist's "all done" text. */
  doneSubtitle?: string;
  /** The low end of an nps scale (ours). */
  lowLabel?: string;
  /** The high end of an nps scale (ours). */
  highLabel?: string;
  /** The high end of an nps scale (Frigade's key). */
  positiveLabel?: string;
  /** The low end of an nps scale (Frigade's key). */
  negativeLabel?: string;
}

/** One locale's text of a step. */
export interface StepTranslation {
  /** The step's title. */
  title?: string;
  /** The step's text. */
  subtitle?: string;
  /** The image's text alternative. */
  imageAlt?: string;
  /** The main button's text, and its link when the page differs by language. */
  primaryButton?: ButtonTranslation;
  /** The second button's text and link. */
  secondaryButton?: ButtonTranslation;
  /** The text options of the step's props. */
  props?: PropsTranslation;
  /** The labels of a survey step's choices, by choice `value`. */
  options?: Record<string, string>;
  /** The text of the step's fields, by field `id`. */
  fields?: Record<string, FieldTranslation>;
}

/** One locale's text of a button. */
export interface ButtonTranslation {
  /** The button's text. @minLength 1 */
  title?: string;
  /** The link, checked like the source one: http, https, mailto, tel, relative or #fragment. @format link */
  uri?: string;
}

/** One locale's text of a form or survey field. */
export interface FieldTranslation {
  label?: string;
  placeholder?: string;
  /** The message shown when the value is invalid. */
  message?: string;
  /** The high end of an nps scale. */
  positiveLabel?: string;
  /** The low end of an nps scale. */
  negativeLabel?: string;
  /** The labels of the field's choices, by choice `value`. */
  options?: Record<string, string>;
}

/** Start rules, checked in the page with no request: on load, on every route change and as the page changes. */
export interface StartWhen {
  /**
   * The pages the flow opens on: a path pattern (`/reports/*`, `/projects/:id`) or a list of them; one starting with
   * `!` excludes (`!/settings/*`). The flow opens where a pattern without `!` matches (any page when there is none)
   * and no `!` pattern does; on another page it closes, its state unchanged, and opens again on a matching page.
   */
  page?: string | string[];
  /** Opens once an element matching this selector is on the page and visible; `>>>` reaches into shadow roots and same-origin iframes. @format css-selector */
  element?: string;
  /** Opens, and starts, when the user clicks an element matching this selector (a "Take the tour" button); a finished flow starts over. @format css-selector */
  click?: string;
  /** How long to wait once the other rules hold: `500ms`, `3s`, `1m` (they must still hold then). */
  delay?: string;
}

/** When a dismissed flow is shown again. */
export interface FlowReshow {
  /** How long after a dismissal the flow comes back: `30s`, `15m`, `48h`, `2d` or `1w` (more than 0). */
  after: string;
  /** How many times at most it comes back: a whole number, 1 or more. @minimum 1 */
  times: number;
}

/** Any step, as the script reads it: the fields of every flow type's steps (a service may send more). */
export interface StepDefinition extends StepBase, StepMedia {
  selector?: string;
  page?: string;
  advanceOn?: AdvanceOn;
  fields?: FormField[];
  type?: SurveyKind;
  options?: ChoiceOption[];
  props?: TourStepProps & SurveyStepProps;
  [extra: string]: unknown;
}

/** Any flow's `data`, as the script reads it (a service may send more). */
export interface FlowData {
  /** The flow file's start rules, served with its content. */
  startWhen?: StartWhen;
  title?: string;
  subtitle?: string;
  completionCriteria?: string;
  props?: ChecklistProps & TourProps & TooltipProps & SurveyProps;
  steps: StepDefinition[];
  [extra: string]: unknown;
}

// ---- Collections (collections.yaml beside the flow files; see docs/flows.md) ----

export const COLLECTION_TYPES = ['DEFAULT', 'CUSTOM'] as const;
/** DEFAULT: drawn where the SDK draws its default collection; CUSTOM: where the page places it. */
export type CollectionType = (typeof COLLECTION_TYPES)[number];

/** collections.yaml: the collections, each showing its flows one at a time. */
export interface CollectionsFile {
  collections: CollectionDefinition[];
}

export interface CollectionDefinition {
  /** Unique among the collections. */
  id: string;
  type: CollectionType;
  /** Slugs of its flows, first shown first. A flow may be in one collection of each type. */
  flows: string[];
  /** How long the next flow waits after the user completes or dismisses one: `30s`, `15m`, `48h`, `2d`, `1w`, or 0. @default 0 */
  coolOff?: string | 0;
  /** Passed through to `computedOrder` for the SDK (such as [Banner, Card]). @default [] */
  allowedComponents?: string[];
}

/** One flow of a collection, in `GET /v1/collections`. */
export interface CollectionFlow {
  slug: string;
  /** The flow's name, type and status; null when its file was removed while collections.yaml still names it. */
  name: string | null;
  type: FlowType | null;
  status: FlowStatus | null;
}

/** One collection of collections.yaml, as the service holds it. */
export interface CollectionReport {
  id: string;
  type: CollectionType;
  /** As written (`48h`), or `0` for none. */
  coolOff: string;
  coolOffSeconds: number;
  allowedComponents: string[];
  /** Priority order: first shown first. */
  flows: CollectionFlow[];
}

/** `GET /v1/collections` (private key): the collections in force, in the order of collections.yaml. */
export interface CollectionsResponse {
  collections: CollectionReport[];
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
  /** Reshowings: present when the flow being served has `reshow`, or the window counts any; absent otherwise. */
  reshow?: FlowReshowCounts;
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
