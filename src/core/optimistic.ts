// Optimistic transitions: applies a flowStates write to the local state the way the service (the authority) will.
import type { FlowState, FlowStatesResponse, FlowStateWriteRequest, StepState, StepWithState } from '../api/wire.js';

const isOpen = (step: StepWithState) => step.$state.visible && !step.$state.completed && !step.$state.skipped;

/** Points the flow at `preferred` when it is still open, else at the first open step, else at the last visible one. */
function pointAt(state: FlowState, preferred: number): void {
  const steps = state.data.steps;
  let index = preferred >= 0 && steps[preferred] && isOpen(steps[preferred]) ? preferred : steps.findIndex(isOpen);
  if (index < 0) {
    index = steps.length - 1;
    while (index > 0 && !steps[index].$state.visible) index--;
  }
  state.$state.currentStepIndex = steps.length ? index : -1;
  state.$state.currentStepId = steps[index]?.id ?? '';
}

/** The first open step after `index`, wrapping to the first open step of the flow. */
function nextOpen(state: FlowState, index: number): number {
  const steps = state.data.steps;
  for (let i = index + 1; i < steps.length; i++) if (isOpen(steps[i])) return i;
  return steps.findIndex(isOpen);
}

/** Returns a new FlowState with `write` applied; `state` is left untouched. */
export function applyWrite(state: FlowState, write: FlowStateWriteRequest): FlowState {
  const next: FlowState = {
    ...state,
    $state: { ...state.$state },
    data: { ...state.data, steps: state.data.steps.map((step) => ({ ...step, $state: { ...step.$state } })) },
  };
  const flow = next.$state;
  const steps = next.data.steps;
  const index = steps.findIndex((step) => step.id === write.stepId);
  const step: StepState | undefined = steps[index]?.$state;
  const at = write.createdAt ?? new Date().toISOString();
  flow.lastActionAt = at;
  if (step) step.lastActionAt = at;
  switch (write.actionType) {
    case 'STARTED_FLOW':
      flow.started = true;
      break;
    case 'COMPLETED_FLOW':
      flow.started = flow.completed = true;
      flow.visible = false;
      break;
    case 'SKIPPED_FLOW':
      flow.skipped = true;
      flow.visible = false;
      break;
    case 'NOT_STARTED_FLOW':
      flow.started = flow.completed = flow.skipped = false;
      flow.visible = true;
      for (const s of steps) s.$state.started = s.$state.completed = s.$state.skipped = false;
      pointAt(next, -1);
      break;
    case 'STARTED_STEP':
      if (!step) break;
      step.started = flow.started = true;
      pointAt(next, index);
      break;
    case 'COMPLETED_STEP':
    case 'SKIPPED_STEP':
      if (!step) break;
      flow.started = true;
      if (write.actionType === 'COMPLETED_STEP') {
        step.started = step.completed = true;
        step.skipped = false;
      } else {
        step.skipped = true;
      }
      pointAt(next, nextOpen(next, index));
      if (!steps.some(isOpen)) {
        flow.completed = true;
        flow.visible = false;
      }
      break;
    case 'NOT_STARTED_STEP':
      if (!step) break;
      // Forgetting a step points at it again: this is how `back()` returns to a finished step.
      step.started = step.completed = step.skipped = false;
      pointAt(next, index);
      break;
  }
  return next;
}

/** The server's last answer with every still-pending write replayed on top, in order. */
export function replayWrites(base: FlowStatesResponse, writes: FlowStateWriteRequest[]): Record<string, FlowState> {
  const states: Record<string, FlowState> = {};
  for (const state of base.eligibleFlows) states[state.flowSlug] = state;
  for (const write of writes) {
    const state = states[write.flowSlug];
    if (state) states[write.flowSlug] = applyWrite(state, write);
  }
  return states;
}

/** Folds a write the server accepted without answering a body into the base, so the change is not undone. */
export function foldWrite(base: FlowStatesResponse, write: FlowStateWriteRequest): FlowStatesResponse {
  return {
    ...base,
    eligibleFlows: base.eligibleFlows.map((state) =>
      state.flowSlug === write.flowSlug ? applyWrite(state, write) : state,
    ),
  };
}

type Flags = {
  started: boolean;
  completed: boolean;
  skipped: boolean;
  visible: boolean;
  lastActionAt?: string;
  flowResponses: unknown[];
};
const sameFlags = (a: Flags, b: Flags) =>
  a.started === b.started &&
  a.completed === b.completed &&
  a.skipped === b.skipped &&
  a.visible === b.visible &&
  a.lastActionAt === b.lastActionAt &&
  a.flowResponses.length === b.flowResponses.length;

/**
 * Whether two states of one flow show the same thing: the version, the pointer, and every flag and last action time.
 * Every transition moves `lastActionAt`, so this compares what changes, field by field, without serialising anything.
 */
export function sameFlowState(a: FlowState, b: FlowState): boolean {
  if (a === b) return true;
  const x = a.data.steps;
  const y = b.data.steps;
  if (
    a.version !== b.version ||
    a.contentHash !== b.contentHash ||
    a.$state.currentStepId !== b.$state.currentStepId ||
    !sameFlags(a.$state, b.$state) ||
    x.length !== y.length
  )
    return false;
  for (let i = 0; i < x.length; i++) {
    const s = x[i];
    const t = y[i];
    if (s.id !== t.id || s.$state.blocked !== t.$state.blocked || !sameFlags(s.$state, t.$state)) return false;
  }
  return true;
}
