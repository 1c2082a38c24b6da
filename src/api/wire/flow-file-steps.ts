// The flow file format: the steps of each flow type, and any step as the script reads it.
import type { ChoiceOption, FlowButton, FormField } from './flow-file-fields.js';
import type { HintStepProps, StepProps, SurveyStepProps, TooltipStepProps, TourStepProps } from './flow-file-props.js';

/** Survey step kinds; a step without `type` is `nps` when it is the first step and `text` after it. */
export const SURVEY_KINDS = ['nps', 'rating', 'single', 'multiple', 'text'] as const;
export type SurveyKind = (typeof SURVEY_KINDS)[number];

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
