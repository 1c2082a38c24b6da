// Fixtures for the component tests: seeds the flow stores and records the actions an element runs.
import { $collections, $flowDefinitions, $flowStates, $held } from '../../src/stores/flows.js';
import { $userProperties } from '../../src/stores/user.js';
import { $elementOptions } from '../../src/stores/options.js';
import type { FlowData, FlowState, FlowType, StepState } from '../../src/api/wire.js';
import type { Flow, Step } from '../../src/flows/flow.js';

export interface SeedOptions {
  completed?: boolean;
  skipped?: boolean;
  current?: string;
  steps?: Record<string, Partial<StepState>>;
}

/** Puts one flow definition and the user's state in it into the stores. */
export function seedFlow(slug: string, type: FlowType, data: FlowData, options: SeedOptions = {}): void {
  // A copy, as the script's own definitions come from parsed answers.
  const definition = {
    slug,
    name: `Flow ${slug}`,
    type,
    version: 1,
    data: JSON.parse(JSON.stringify(data)) as FlowData,
  };
  $flowDefinitions.set({ ...$flowDefinitions.get(), [slug]: definition });
  const steps = data.steps.map((step) => ({
    id: step.id,
    $state: {
      started: false,
      completed: false,
      skipped: false,
      visible: true,
      blocked: false,
      flowResponses: [],
      ...options.steps?.[step.id],
    },
  }));
  const open = steps.find((s) => s.$state.visible && !s.$state.completed && !s.$state.skipped);
  const current = options.current ?? open?.id ?? steps[0]?.id ?? '';
  const done = Boolean(options.completed || options.skipped);
  const state: FlowState = {
    flowSlug: slug,
    flowName: `Flow ${slug}`,
    flowType: type,
    version: 1,
    data: { steps },
    $state: {
      currentStepId: current,
      currentStepIndex: steps.findIndex((s) => s.id === current),
      started: false,
      completed: Boolean(options.completed),
      skipped: Boolean(options.skipped),
      visible: !done,
      flowResponses: [],
    },
  };
  $flowStates.set({ ...$flowStates.get(), [slug]: state });
}

export function resetStores(): void {
  $flowDefinitions.set({});
  $flowStates.set({});
  $collections.set([]);
  $held.set(new Set());
  $userProperties.set({});
  $elementOptions.set({ autoMount: true });
}

export interface RecordedCall {
  action: string;
  stepId?: string;
  data?: unknown;
}

/** A copy of `flow` whose Flow and Step actions record their calls instead of reaching the core. */
export function recordingFlow(flow: Flow, calls: RecordedCall[]): Flow {
  const record = (action: string, stepId?: string) => async (data?: unknown) => {
    calls.push(data === undefined ? { action, stepId } : { action, stepId, data });
  };
  const steps: Step[] = flow.steps.map((step) => ({
    ...step,
    start: record('step.start', step.id),
    complete: record('step.complete', step.id),
    skip: record('step.skip', step.id),
    reset: record('step.reset', step.id),
  }));
  return {
    ...flow,
    steps,
    currentStep: steps.find((step) => step.id === flow.currentStep?.id),
    start: record('flow.start'),
    complete: record('flow.complete'),
    skip: record('flow.skip'),
    restart: record('flow.restart'),
    forward: record('flow.forward'),
    back: record('flow.back'),
  };
}

/** Waits for timers and microtasks, e.g. the modal queue's grant. */
export const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

/** The first element of `el`'s shadow root matching `selector`. */
export const q = (el: Element, selector: string) => el.shadowRoot!.querySelector<HTMLElement>(selector);
/** Every element of `el`'s shadow root matching `selector`. */
export const qa = (el: Element, selector: string) => [...el.shadowRoot!.querySelectorAll<HTMLElement>(selector)];
