// ESM entry for bundler users: the SDK singleton, its stores and the element classes, all typed.
import { Onboarding } from './core/onboarding.js';

export { Onboarding } from './core/onboarding.js';
export type { OnboardingConfig } from './core/onboarding.js';
export type {
  OnboardingEventMap,
  OnboardingEventName,
  FlowEvent,
  StepEvent,
  ChangeEvent,
  OnboardingErrorEvent,
} from './core/events.js';
export { $flows, $flowStates, $flowDefinitions, $ineligibleFlows, $userId } from './stores/flows.js';
export type { FlowDefinition } from './stores/flows.js';
export type { Flow, Step, StepStateView, FlowActions, StepActions } from './flows/flow.js';
export { OnboardingBanner } from './components/banner/banner.component.js';
export { registerElements } from './components/register.js';
export { createApiClient, ApiError } from './api/client.js';
export type * from './api/wire.js';

/** The shared SDK instance; the script-tag build exposes it as `window.Onboarding`. */
export const onboarding = new Onboarding();
