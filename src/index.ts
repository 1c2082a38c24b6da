// ESM entry for bundler users: the SDK singleton, its stores and the element classes, all typed.
import { ELEMENTS, registerElements as register } from './components/register.js';
import { OnboardingHint } from './components/hint/hint.component.js';
import { OnboardingTooltip } from './components/hint/tooltip.component.js';
import { OnboardingTour } from './components/tour/tour.component.js';
import { watchStartRules } from './page/start-rules.js';
import { setStartRules } from './page/rules.js';

// Start rules, with the element watcher of the tour's engine (the script tag loads both on demand).
setStartRules(watchStartRules);

export { Onboarding } from './core/onboarding.js';
export type { OnboardingConfig, IdentifyOptions } from './core/config.js';
export type { ForwardTarget } from './core/forward.js';
export type {
  OnboardingEventMap,
  OnboardingEventName,
  FlowEvent,
  StepEvent,
  ChangeEvent,
  OnboardingErrorEvent,
  TargetMissingEvent,
} from './core/events.js';
export { $collections, $flows, $flowStates, $flowDefinitions, $ineligibleFlows, $userId } from './stores/flows.js';
export type { FlowDefinition } from './stores/flows.js';
export type { Flow, Step, StepStateView, FlowActions, StepActions } from './flows/flow.js';
export { OnboardingAnnouncement } from './components/announcement/announcement.component.js';
export { OnboardingBanner } from './components/banner/banner.component.js';
export { OnboardingCard } from './components/card/card.component.js';
export { OnboardingChecklist } from './components/checklist/checklist.component.js';
export { OnboardingCollection } from './components/collection/collection.component.js';
export { OnboardingFlow } from './components/flow/flow.component.js';
export { OnboardingForm } from './components/form/form.component.js';
export { OnboardingHint } from './components/hint/hint.component.js';
export { OnboardingSurvey } from './components/survey/survey.component.js';
export { OnboardingTooltip } from './components/hint/tooltip.component.js';
export { OnboardingTour } from './components/tour/tour.component.js';
export { setStrings, type OnboardingStrings } from './components/shared/strings.js';
export { DEFAULT_STRINGS } from './components/default-strings.js';
export { MODAL_TYPE_ORDER } from './components/shared/modal-queue.js';
export type { OnboardingActionDetail, OnboardingStepChangeDetail, OnboardingTargetMissingDetail, ActionTrigger } from './components/shared/events.js';
export { onboarding } from './sdk.js';
export { createApiClient, ApiError } from './api/client.js';
export type * from './api/wire.js';

/**
 * Defines every element, the checklist, form, survey, tour, hint and tooltip included (a bundler splits them as it
 * likes), and starts auto-mount. The script tag build loads those on demand instead.
 */
export function registerElements(registry: CustomElementRegistry | undefined = globalThis.customElements): void {
  register(registry, { ...ELEMENTS, 'onboarding-hint': OnboardingHint, 'onboarding-tooltip': OnboardingTooltip, 'onboarding-tour': OnboardingTour });
}
