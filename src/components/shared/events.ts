// The DOM events every element fires: prefixed, kebab-case, bubbling and composed; typed for addEventListener.
import type { ButtonAction, TargetMissingProperties } from '../../api/wire.js';
import type { Flow, Step } from '../../flows/flow.js';

/**
 * What started an action: a button, the close button, a key, a form submit, a tour target that never appeared
 * (`timeout`), a click on the step's target (`target`) or the element a step waits for appearing (`appears`).
 */
export type ActionTrigger =
  'primary' | 'secondary' | 'close' | 'escape' | 'key' | 'submit' | 'timeout' | 'target' | 'appears';

export interface OnboardingActionDetail {
  flowSlug: string;
  stepId: string | undefined;
  action: Exclude<ButtonAction, false>;
  trigger: ActionTrigger;
  /** The step data that goes with the action (form values, survey answers). */
  data?: unknown;
}

export interface OnboardingStepChangeDetail {
  flow: Flow | undefined;
  step: Step | undefined;
}

export interface OnboardingVisibilityDetail {
  flowSlug: string;
}

/** A step's target was not found (or stayed hidden) for its `targetTimeout`. */
export type OnboardingTargetMissingDetail = TargetMissingProperties;

type ActionName = Exclude<ButtonAction, false>;

/** `flow.complete` → `onboarding-flow-complete`: the action's own cancelable event. */
export type ActionEventName<A extends ActionName = ActionName> = A extends `${infer Scope}.${infer Verb}`
  ? `onboarding-${Scope}-${Verb}`
  : never;

type ActionEvents = { [A in ActionName as ActionEventName<A>]: CustomEvent<OnboardingActionDetail> };

declare global {
  /** Each action also fires its own cancelable event, such as `onboarding-step-complete` or `onboarding-flow-skip`. */
  interface GlobalEventHandlersEventMap extends ActionEvents {
    /** Fires before every action; cancel it to veto the action or to take it over. */
    'onboarding-action': CustomEvent<OnboardingActionDetail>;
    /** A modal or popover element opened. */
    'onboarding-show': CustomEvent<OnboardingVisibilityDetail>;
    /** A modal or popover element closed. */
    'onboarding-hide': CustomEvent<OnboardingVisibilityDetail>;
    /** The flow or the current step an element shows changed. */
    'onboarding-step-change': CustomEvent<OnboardingStepChangeDetail>;
    /** A step's target was missing; the script reports it as `target-missing` on `Onboarding.on` and to the service. */
    'onboarding-target-missing': CustomEvent<OnboardingTargetMissingDetail>;
  }
}

/** Dispatches a bubbling, composed event; returns false when a listener cancelled it. */
export function emit<
  K extends
    | 'onboarding-action'
    | 'onboarding-show'
    | 'onboarding-hide'
    | 'onboarding-step-change'
    | 'onboarding-target-missing'
    | ActionEventName,
>(target: EventTarget, name: K, detail: GlobalEventHandlersEventMap[K]['detail'], cancelable = false): boolean {
  return target.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable }));
}
