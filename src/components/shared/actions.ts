// Runs a definition's button action on the core's Flow and Step objects; failures are reported, never thrown.
import type { ButtonAction } from '../../api/wire.js';
import type { Flow, FlowActions, Step, StepActions } from '../../flows/flow.js';
import { reportError } from '../../core/report.js';

type ActionName = Exclude<ButtonAction, false>;

// The core puts the actions on its Flow and Step objects; a plain object without them is left alone.
type Actionable<T, A> = T & Partial<A>;

/** Calls the Flow or Step method `action` names; `data` goes to step actions that take it. */
export async function runAction(flow: Flow, step: Step | undefined, action: ActionName, data?: unknown): Promise<void> {
  const f = flow as Actionable<Flow, FlowActions>;
  const s = step as Actionable<Step, StepActions> | undefined;
  try {
    switch (action) {
      case 'flow.start':
        return await f.start?.();
      case 'flow.complete':
        return await f.complete?.();
      case 'flow.skip':
        return await f.skip?.();
      case 'flow.restart':
        return await f.restart?.();
      case 'flow.forward':
        return await f.forward?.();
      case 'flow.back':
        return await f.back?.();
      case 'step.start':
        return await s?.start?.(data);
      case 'step.complete':
        return await s?.complete?.(data);
      case 'step.skip':
        return await s?.skip?.(data);
      case 'step.reset':
        return await s?.reset?.();
    }
  } catch (error) {
    reportError('action-failed', error);
  }
}

/**
 * Marks a flow and its first shown step started when an element first shows the flow. Later steps are not
 * started on sight: STARTED_STEP moves the pointer, and an optimistic step shown for a moment before the service
 * answers (a form branch, say) must not take the pointer from the step the service chose.
 */
export async function markShown(flow: Flow, step: Step | undefined): Promise<void> {
  if (flow.isStarted) return;
  await runAction(flow, step, 'flow.start');
  if (step && !step.state.started && !step.state.completed) await runAction(flow, step, 'step.start');
}
