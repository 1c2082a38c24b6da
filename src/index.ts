// ESM entry for bundler users: the SDK singleton, its stores and the element classes, all typed.
import { watchStartRules } from './page/start-rules.js';
import { setStartRules } from './page/rules.js';
import { forwardEvents } from './core/forward.js';
import { setForwarder } from './core/forwarding.js';
import { explainFlows } from './core/debug.js';
import { setDebugger } from './core/debugging.js';

// Start rules, with the element watcher of the tour's engine, forwarding and debug() (the script tag loads them on demand).
setStartRules(watchStartRules);
setForwarder(forwardEvents);
setDebugger(async (options) => explainFlows(options));

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
  ResourceCenterChange,
  ExperimentExposedEvent,
} from './core/events.js';
export type { ResourceCenterApi } from './core/public-api.js';
export type { DebugOptions, FlowDebug, WaitingFor } from './core/debugging.js';
export { $collections, $flows, $flowStates, $flowDefinitions, $ineligibleFlows, $userId } from './stores/flows.js';
export type { FlowDefinition } from './stores/flows.js';
export { $unread, $resourceCenterOpen } from './stores/resource-center.js';
export type { Flow, Step, StepStateView, FlowActions, StepActions } from './flows/flow.js';
// The element classes, named as the table of elements names them (components/elements.ts).
export * from './components/classes.js';
// Defines every element, the checklist, form, survey, tour, hint and tooltip included (a bundler splits them as it
// likes), and starts auto-mount. The script tag build loads those on demand instead.
export { registerElements } from './components/register.js';
export { setStrings, type OnboardingStrings } from './components/shared/strings.js';
export { DEFAULT_STRINGS } from './components/default-strings.js';
export { MODAL_TYPE_ORDER } from './components/shared/modal-queue.js';
export type {
  OnboardingActionDetail,
  OnboardingStepChangeDetail,
  OnboardingTargetMissingDetail,
  ActionTrigger,
} from './components/shared/events.js';
export { onboarding } from './sdk.js';
export { createApiClient, ApiError } from './api/client.js';
export type * from './api/wire.js';
export { assignVariant, BUCKETS } from './api/experiment-assignment.js';
