// The flow file format: the presentation options (`props`) of each flow type and of its steps.
import type { ChoiceOption } from './flow-file-fields.js';

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
export type TourPlacement =
  | 'top'
  | 'bottom'
  | 'left'
  | 'right'
  | 'top-start'
  | 'top-end'
  | 'bottom-start'
  | 'bottom-end'
  | 'left-start'
  | 'left-end'
  | 'right-start'
  | 'right-end';

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
