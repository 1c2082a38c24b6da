// Runs a definition's button action on the core's Flow and Step objects; failures are reported, never thrown.
import type { ButtonAction } from '../../api/wire.js';
import type { Flow, Step } from '../../flows/flow.js';
import { reportError } from '../../core/errors.js';

type ActionName = Exclude<ButtonAction, false>;

/**
 * Calls the Flow or Step method `action` names (`flow.skip` → `flow.skip()`); `data` goes to step actions that take it.
 * A plain object without the method (a flow the core did not build) is left alone.
 */
export async function runAction(flow: Flow, step: Step | undefined, action: ActionName, data?: unknown): Promise<void> {
  const [scope, method] = action.split('.') as ['flow' | 'step', string];
  const target = (scope === 'flow' ? flow : step) as
    Partial<Record<string, (data?: unknown) => Promise<void>>> | undefined;
  try {
    await target?.[method]?.(data);
  } catch (error) {
    reportError('action-failed', error);
  }
}

const showings: Array<() => void> = [];

/**
 * Records a first showing in the next task, with those of every element drawn in this one: drawing a page's elements
 * and recording what they show are then two tasks, not one long one. `current` gives the flow as it is by then, or
 * undefined when the element no longer shows that step (a click in between may have moved it on).
 */
export function markShownSoon(current: () => Flow | undefined): void {
  const record = () => {
    const flow = current();
    if (flow) markShown(flow, flow.currentStep);
  };
  if (showings.push(record) === 1) setTimeout(() => showings.splice(0).forEach((next) => next()), 0);
}

/**
 * Marks a flow and its first shown step started when an element first shows the flow. Later steps are not
 * started on sight: STARTED_STEP moves the pointer, and an optimistic step shown for a moment before the service
 * answers (a form branch, say) must not take the pointer from the step the service chose.
 */
export function markShown(flow: Flow, step: Step | undefined): void {
  if (flow.isStarted) return;
  // Both queued now, in order (an action queues its write before it returns): the outbox stores them and the view
  // is computed again once for the two, and for every element that records its showing in the same task.
  void runAction(flow, step, 'flow.start');
  if (step && !step.state.started && !step.state.completed) void runAction(flow, step, 'step.start');
}
