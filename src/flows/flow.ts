// The flow model: a definition joined with the user's state into the Flow and Step objects pages use.
import type { ActionType, FlowData, FlowState, FlowType, StepDefinition, StepState } from '../api/wire.js';

/** A flow's content, as the state answers carry it: one version of its definition. */
export interface FlowDefinition {
  slug: string;
  name: string;
  type: FlowType;
  version: number;
  /** The content's hash, which (unlike the number) a restore of the service never gives to other content. */
  contentHash?: string;
  data: FlowData;
}

export interface StepStateView {
  started: boolean;
  completed: boolean;
  skipped: boolean;
  visible: boolean;
  blocked: boolean;
}

/**
 * Step actions. Each applies optimistically, queues the write in the outbox, and resolves once applied
 * locally; it never rejects (a refused write is rolled back and reported through the `error` event).
 */
export interface StepActions {
  start(data?: unknown): Promise<void>;
  complete(data?: unknown): Promise<void>;
  skip(data?: unknown): Promise<void>;
  reset(): Promise<void>;
}

/** Flow actions, with the same promise contract as StepActions. */
export interface FlowActions {
  start(): Promise<void>;
  complete(): Promise<void>;
  skip(): Promise<void>;
  restart(): Promise<void>;
  /** Completes the current step and moves to the next visible one. */
  forward(): Promise<void>;
  /** Moves the pointer back to the previous visible step (resetting it when it was finished). */
  back(): Promise<void>;
}

export type Step = StepDefinition &
  StepActions & {
    id: string;
    index: number;
    state: StepStateView;
  };

export interface Flow extends FlowActions {
  slug: string;
  name: string;
  type: FlowType;
  version: number;
  data: FlowData;
  steps: Step[];
  currentStep: Step | undefined;
  /** Share of visible steps that are completed or skipped, 0..1; 1 once the flow is completed, however it was. */
  progress: number;
  isStarted: boolean;
  isCompleted: boolean;
  isSkipped: boolean;
  isVisible: boolean;
}

/** Records one transition; the core applies it optimistically and queues the write. Never rejects. */
export type Transition = (flowSlug: string, actionType: ActionType, stepId: string, data?: unknown) => Promise<void>;

const EMPTY_STEP_STATE: StepState = {
  started: false,
  completed: false,
  skipped: false,
  visible: true,
  blocked: false,
  flowResponses: [],
};

const done = Promise.resolve();

export function buildFlow(definition: FlowDefinition, state: FlowState, transition: Transition = () => done): Flow {
  const slug = state.flowSlug;
  const stepStates = new Map(state.data.steps.map((step) => [step.id, step.$state]));
  const steps: Step[] = definition.data.steps.map((step, index) => {
    const s = stepStates.get(step.id) ?? EMPTY_STEP_STATE;
    return {
      ...step,
      index,
      state: { started: s.started, completed: s.completed, skipped: s.skipped, visible: s.visible, blocked: s.blocked },
      start: (data?: unknown) => transition(slug, 'STARTED_STEP', step.id, data),
      complete: (data?: unknown) => transition(slug, 'COMPLETED_STEP', step.id, data),
      skip: (data?: unknown) => transition(slug, 'SKIPPED_STEP', step.id, data),
      reset: () => transition(slug, 'NOT_STARTED_STEP', step.id),
    };
  });
  const visible = steps.filter((step) => step.state.visible);
  const finished = visible.filter((step) => step.state.completed || step.state.skipped).length;
  const currentStep = steps.find((step) => step.id === state.$state.currentStepId) ?? visible[0];
  const currentId = () => currentStep?.id ?? steps[0]?.id ?? '';
  const flowAction = (actionType: ActionType) => () => transition(slug, actionType, currentId());
  return {
    slug,
    name: definition.name,
    type: definition.type,
    version: definition.version,
    data: definition.data,
    steps,
    currentStep,
    // A flow completed before its last step (`flow.complete` from a button, or its criteria) is all the way done.
    progress: state.$state.completed ? 1 : visible.length ? finished / visible.length : 0,
    isStarted: state.$state.started,
    isCompleted: state.$state.completed,
    isSkipped: state.$state.skipped,
    isVisible: state.$state.visible,
    start: flowAction('STARTED_FLOW'),
    complete: flowAction('COMPLETED_FLOW'),
    skip: flowAction('SKIPPED_FLOW'),
    restart: flowAction('NOT_STARTED_FLOW'),
    forward: () => (currentStep ? currentStep.complete() : done),
    back() {
      const previous = currentStep && visible.filter((step) => step.index < currentStep.index).pop();
      if (!previous) return done;
      // The pointer only rests on an unfinished step, so a finished one is reset to go back to it.
      return previous.state.completed || previous.state.skipped ? previous.reset() : previous.start();
    },
  };
}
