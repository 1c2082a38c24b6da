// The flow file format (YAML, one flow a file): its top level, `data` by flow type (served as Flow.data), translations.
import type { FlowStatus, FlowType } from './common.js';
import type {
  AnnouncementStep,
  BannerStep,
  CardStep,
  ChecklistStep,
  CustomStep,
  FormStep,
  HintStep,
  StepDefinition,
  SurveyStep,
  TooltipStep,
  TourStep,
} from './flow-file-steps.js';
import type {
  ChecklistProps,
  FlowProps,
  HintProps,
  ModalFlowProps,
  SurveyProps,
  TooltipProps,
  TourProps,
} from './flow-file-props.js';
import type { BlockTranslation, ResourceCenterData } from './flow-file-resource-center.js';
import type { GoalDefinition } from './experiments.js';

// schema/flow.schema.json is generated from the declarations of this module and of flow-file-steps.ts,
// flow-file-fields.ts and flow-file-props.ts (npm run schema), and a test fails when the two differ. Descriptions and
// `@default`, `@minLength`, `@pattern`, `@minimum`, `@maximum`, `@minItems`, `@maxItems` and `@format` tags go into
// it. The formats `css-selector` and `path-pattern` are checked by the service and by `onboarding-flows check`
// (server/flows/formats.ts); an editor that does not know them skips them.

/** Flow type names a flow file may use for another: Frigade's `NPS_SURVEY` is a SURVEY (served as `SURVEY`). */
export const FLOW_TYPE_ALIASES = { NPS_SURVEY: 'SURVEY' } as const satisfies Record<string, FlowType>;

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
  RESOURCE_CENTER: ResourceCenterData;
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
   * What the flow is for: a user converts when they record `event` within `within` (default `7d`) after first starting
   * the flow. Counted in the flow's analytics (`goal`).
   */
  goal?: GoalDefinition;
  /**
   * When the flow may be shown: from `start` (inclusive) until `end` (exclusive), ISO 8601 date-times with an offset
   * (`2026-12-01T09:00:00+01:00`, `…Z`). Either may be left out. Outside the window the flow is not eligible.
   */
  schedule?: FlowSchedule;
  /** Never held back by a global limit of limits.yaml; its first start still counts toward them. @default false */
  ignoreLimits?: boolean;
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

/** A flow's time window: ISO 8601 date-times with an offset; either may be left out. */
export interface FlowSchedule {
  /** The first moment the flow is eligible. @format date-time */
  start?: string;
  /** The first moment it no longer is: after `start`. @format date-time */
  end?: string;
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
  /** A resource centre's launcher text. */
  launcher?: { label?: string };
  /** A resource centre's blocks' text, by block `id`. */
  blocks?: Record<string, BlockTranslation>;
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
