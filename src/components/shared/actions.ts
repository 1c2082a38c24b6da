// Runs a definition's button action on the core's Flow and Step objects; failures are reported, never thrown.
import type { ButtonAction } from '../../api/wire.js';
import type { Flow, Step } from '../../flows/flow.js';
import { reportError } from '../../core/report.js';

type ActionName = Exclude<ButtonAction, false>;

/**
 * Calls the Flow or Step method `action` names (`flow.skip` → `flow.skip()`); `data` goes to step actions that take it.
 * A plain object without the method (a flow the core did not build) is left alone.
 */
export async function runAction(flow: Flow, step: Step | undefined, action: ActionName, data?: unknown): Promise<void> {
  const [scope, method] = action.split('.') as ['flow' | 'step', string];
  const target = (scope === 'flow' ? flow : step) as Partial<Record<string, (data?: unknown) => Promise<void>>> | undefined;
  try {
    await target?.[method]?.(data);
  } catch (error) {
    reportError('action-failed', error);
  }
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
