// The pure plan of a flow-state transition: checks a write and works out the rows it changes, from the user's snapshot alone.
// No database here: the orchestration (transitions.ts) loads the snapshot and writes the plan (user-rows.ts).
import type { ActionType, FlowState, FlowStateWriteRequest } from '../../src/api/wire.js';
import type { ProgressUpdate } from '../analytics/progress-facts.js';
import type { CatalogFlow } from '../flows/catalog.js';
import { HttpProblem } from '../shared/problem.js';
import { deriveFlowState } from './derive.js';
import type { StoredFlowState, StoredStepState, UserSnapshot } from './snapshot.js';

const STEP_ACTIONS: ReadonlySet<ActionType> = new Set([
  'STARTED_STEP',
  'COMPLETED_STEP',
  'SKIPPED_STEP',
  'NOT_STARTED_STEP',
]);

/** The earliest `createdAt` a transition may carry (2000-01-01T00:00:00Z). */
export const EARLIEST_CREATED_AT = Date.UTC(2000, 0, 1);
/** How far ahead of the service's clock a client's `createdAt` may be. */
export const MAX_CLOCK_AHEAD_MS = 24 * 3600_000;
/** Longest page address kept with a flow response; longer ones are cut. */
export const MAX_URL_LENGTH = 2048;

/** One response to append to the log. */
export interface NewResponse {
  stepId: string;
  actionType: ActionType;
  data: unknown;
  at: Date;
  url: string | null;
}

/** What one transition changes in one flow: the new state of rows, never a delta, so the write is plain. */
export interface FlowChange {
  /** NOT_STARTED_FLOW: the flow's row and all its step rows go. */
  reset?: true;
  /** The new row of one step, or null to delete it. */
  step?: { id: string; state: StoredStepState | null };
  /** The new row of the flow. */
  flow?: StoredFlowState;
  responses: NewResponse[];
}

/**
 * Checks a write against its flow and the service's clock (400 for a missing stepId or a time out of bounds, 404 for a
 * step the flow does not have), and returns it with its step, time and page: what the plan functions take.
 */
export function checkWrite(
  flow: CatalogFlow,
  body: FlowStateWriteRequest,
  now: Date,
): { write: Write; stepIndex: number; isStepAction: boolean } {
  const isStepAction = STEP_ACTIONS.has(body.actionType);
  const stepId = body.stepId ?? '';
  if (isStepAction && stepId === '') {
    throw new HttpProblem(400, `body field "stepId" is required for ${body.actionType}`, 'stepId');
  }
  const stepIndex = flow.steps.findIndex((step) => step.definition.id === stepId);
  // Flow actions may leave stepId out; a non-empty one must still name a step of the flow.
  if (stepIndex < 0 && stepId !== '') {
    throw new HttpProblem(404, `Flow "${body.flowSlug}" has no step "${stepId}".`, 'stepId');
  }
  const at = body.createdAt ? new Date(body.createdAt) : now;
  if (Number.isNaN(at.getTime()))
    throw new HttpProblem(400, 'body field "createdAt" must be an ISO 8601 date-time', 'createdAt');
  // Queued writes may arrive long after they were made, and clocks drift; anything outside this is a bug, and
  // a year such as 0000 is not even a time PostgreSQL can store.
  if (at.getTime() < EARLIEST_CREATED_AT || at.getTime() > now.getTime() + MAX_CLOCK_AHEAD_MS) {
    throw new HttpProblem(
      400,
      'body field "createdAt" must be a time from 2000-01-01 to 24 hours after the service\'s clock',
      'createdAt',
    );
  }
  const url = typeof body.context?.url === 'string' ? body.context.url.slice(0, MAX_URL_LENGTH) : null;
  return { write: { ...body, stepId, at: at.toISOString(), url, date: at, now }, stepIndex, isStepAction };
}

export function conflict(detail: string, field?: string): HttpProblem {
  return new HttpProblem(409, detail, field);
}

/**
 * What a change did, as analytics counts it (null for a restart, which counts nothing): whether the flow
 * is started now, its stored completion or skip, the step acted on, the step the user now sees, and the comebacks.
 */
export function progressOf(
  flow: CatalogFlow,
  snapshot: UserSnapshot,
  write: Write,
  change: FlowChange,
  locale: string,
): ProgressUpdate | null {
  if (change.reset) return null;
  const slug = flow.flow.slug;
  const steps: ProgressUpdate['steps'] = [];
  if (STEP_ACTIONS.has(write.actionType) && write.actionType !== 'NOT_STARTED_STEP') {
    steps.push({
      id: write.stepId,
      completed: write.actionType === 'COMPLETED_STEP',
      skipped: write.actionType === 'SKIPPED_STEP',
    });
  }
  const view = deriveFlowState(flow, snapshot, write.now).$state;
  if (!view.completed && !view.skipped && view.currentStepId && view.currentStepId !== steps[0]?.id)
    steps.push({ id: view.currentStepId });
  const completed = change.responses.some((r) => r.actionType === 'COMPLETED_FLOW');
  const skipped = change.responses.some((r) => r.actionType === 'SKIPPED_FLOW');
  const row = snapshot.flows.get(slug);
  // Dismissing a flow that was never marked started still means the user saw it. A flow that came back is told
  // apart by its row's count of comebacks, which the first change after the comeback stores.
  return {
    at: write.date,
    started: row?.started === true || completed || skipped,
    completed,
    skipped,
    steps,
    reshows: row?.reshows ?? 0,
    locale,
  };
}

/** A write whose stepId is known ("" for a flow action that named no step), with its time, page and the service's clock. */
export type Write = FlowStateWriteRequest & { stepId: string; at: string; date: Date; url: string | null; now: Date };

const NO_FLOW: StoredFlowState = {
  currentStepId: null,
  started: false,
  completed: false,
  skipped: false,
  lastActionAt: null,
  reshows: 0,
};
const NO_STEP: StoredStepState = { started: false, completed: false, skipped: false, data: null, lastActionAt: null };

const response = (write: Write): NewResponse => ({
  stepId: write.stepId,
  actionType: write.actionType,
  data: write.data,
  at: write.date,
  url: write.url,
});

/**
 * A flow that came back (reshow) is stored as such by the first change the user makes in it: no longer skipped,
 * and one more comeback counted, so a dismissal now waits `after` again and counts toward `times`.
 */
function cameBack(stored: StoredFlowState | undefined, view: FlowState['$state']): Partial<StoredFlowState> {
  return stored?.skipped && !view.skipped ? { skipped: false, reshows: stored.reshows + 1 } : {};
}

/** The change a flow action makes, or null when it would change nothing. */
export function planFlowAction(flow: CatalogFlow, snapshot: UserSnapshot, write: Write): FlowChange | null {
  const slug = flow.flow.slug;
  const stored = snapshot.flows.get(slug);
  const view = deriveFlowState(flow, snapshot, write.now).$state;
  const base = { ...(stored ?? NO_FLOW), ...cameBack(stored, view), lastActionAt: write.at };
  if (write.actionType === 'NOT_STARTED_FLOW') {
    // A restart clears the flow and all of its steps; the response log is kept.
    if (!stored && !snapshot.steps.get(slug)?.size) return null;
    return { reset: true, responses: [response(write)] };
  }
  if (write.actionType === 'COMPLETED_FLOW') {
    // A flow that reads completed through its criteria is stored as completed, so the completion stays.
    if (stored?.completed || view.skipped) return null;
    return { flow: { ...base, started: true, completed: true }, responses: [response(write)] };
  }
  // A finished flow stays finished until it is restarted.
  if (view.completed || view.skipped) return null;
  if (write.actionType === 'STARTED_FLOW') {
    if (stored?.started) return null;
    return { flow: { ...base, started: true }, responses: [response(write)] };
  }
  // SKIPPED_FLOW
  return { flow: { ...base, skipped: true }, responses: [response(write)] };
}

/** The change a step action makes, or null when it would change nothing; 409 for a hidden or blocked step. */
export function planStepAction(
  flow: CatalogFlow,
  snapshot: UserSnapshot,
  write: Write,
  stepIndex: number,
): FlowChange | null {
  const slug = flow.flow.slug;
  const view = deriveFlowState(flow, snapshot, write.now);
  const step = view.data.steps[stepIndex];
  if (!step.$state.visible)
    throw conflict(`Step "${step.id}" of flow "${slug}" is not visible to this user.`, 'stepId');
  if (step.$state.blocked)
    throw conflict(`Step "${step.id}" of flow "${slug}" is blocked: its startCriteria does not hold.`, 'stepId');
  // Steps of a finished flow stay as they are until the flow is restarted.
  if (view.$state.completed || view.$state.skipped) return null;
  const storedFlow = snapshot.flows.get(slug);
  const stored = snapshot.steps.get(slug)?.get(step.id);
  const flowBase = { ...(storedFlow ?? NO_FLOW), ...cameBack(storedFlow, view.$state), lastActionAt: write.at };
  // A step keeps the data of its latest transition that carried one.
  const stepBase = {
    ...(stored ?? NO_STEP),
    lastActionAt: write.at,
    data: write.data === undefined ? (stored?.data ?? null) : write.data,
  };
  const responses = [response(write)];
  switch (write.actionType) {
    case 'STARTED_STEP':
      if (stored?.started && storedFlow?.currentStepId === step.id) return null;
      return {
        step: { id: step.id, state: { ...stepBase, started: true } },
        flow: { ...flowBase, started: true, currentStepId: step.id },
        responses,
      };
    case 'COMPLETED_STEP':
      if (stored?.completed) return null;
      return {
        step: { id: step.id, state: { ...stepBase, started: true, completed: true, skipped: false } },
        flow: { ...flowBase, started: true },
        responses,
      };
    case 'SKIPPED_STEP':
      // A completed step stays completed until it is reset.
      if (stored?.skipped || stored?.completed) return null;
      return {
        step: { id: step.id, state: { ...stepBase, skipped: true } },
        flow: { ...flowBase, started: true },
        responses,
      };
    default:
      // NOT_STARTED_STEP: forget the step and point at it again (this is how "back" works).
      if (!stored) return null;
      return { step: { id: step.id, state: null }, flow: { ...flowBase, currentStepId: step.id }, responses };
  }
}

/**
 * After a step is completed or skipped: point at the next visible undone step (looking after it
 * first, then from the start); with none left, the flow is completed, and that is recorded too.
 */
export function movePointer(
  flow: CatalogFlow,
  snapshot: UserSnapshot,
  write: Write,
  stepIndex: number,
): { flow: StoredFlowState; responses: NewResponse[] } {
  const stored = snapshot.flows.get(flow.flow.slug) ?? NO_FLOW;
  const steps = deriveFlowState(flow, snapshot, write.now).data.steps;
  const open = (i: number) => steps[i].$state.visible && !steps[i].$state.completed && !steps[i].$state.skipped;
  const order = [...steps.keys()].filter((i) => i > stepIndex).concat([...steps.keys()].filter((i) => i < stepIndex));
  const next = order.find(open);
  if (next !== undefined) return { flow: { ...stored, currentStepId: steps[next].id }, responses: [] };
  return {
    flow: { ...stored, started: true, completed: true },
    responses: [
      {
        stepId: write.stepId,
        actionType: 'COMPLETED_FLOW',
        data: { reason: 'last-step' },
        at: write.date,
        url: write.url,
      },
    ],
  };
}
