// Flow-state transitions (POST /v1/public/flowStates): checks, pointer moves, and the append-only response log.
import type { ActionType, FlowState, FlowStateWriteRequest, FlowStatesResponse } from '../../src/api/wire.js';
import type { CatalogFlow, FlowCatalog } from '../flows/catalog.js';
import { HttpProblem } from '../http/problem.js';
import type { Queryable } from '../storage/database.js';
import { loadUserSnapshot, type UserSnapshot } from './context.js';
import { deriveFlowState, deriveFlowStates, isEligible } from './derive.js';

const STEP_ACTIONS: ReadonlySet<ActionType> = new Set(['STARTED_STEP', 'COMPLETED_STEP', 'SKIPPED_STEP', 'NOT_STARTED_STEP']);

/** Creates the user row when missing and locks it, so one user's transitions apply one at a time. */
export async function lockUser(tx: Queryable, userId: string): Promise<void> {
  await tx.query('INSERT INTO users (id) VALUES ($1) ON CONFLICT (id) DO NOTHING', [userId]);
  await tx.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
}

/** Appends one Flow response; `data` is stored JSON-encoded. */
export async function appendResponse(
  tx: Queryable,
  userId: string,
  flowSlug: string,
  stepId: string,
  actionType: ActionType,
  data: unknown,
  at: Date,
): Promise<void> {
  await tx.query(
    'INSERT INTO flow_responses (user_id, flow_slug, step_id, action_type, data, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [userId, flowSlug, stepId, actionType, JSON.stringify(data === undefined ? {} : data), at],
  );
}

/** Upserts the flow's stored row, setting the given columns. */
async function setFlow(
  tx: Queryable,
  userId: string,
  slug: string,
  at: Date,
  changes: { started?: boolean; completed?: boolean; skipped?: boolean; currentStepId?: string | null },
): Promise<void> {
  await tx.query(
    `INSERT INTO flow_states (user_id, flow_slug, current_step_id, started, completed, skipped, last_action_at)
     VALUES ($1, $2, $3, COALESCE($4, false), COALESCE($5, false), COALESCE($6, false), $7)
     ON CONFLICT (user_id, flow_slug) DO UPDATE SET
       current_step_id = CASE WHEN $8 THEN EXCLUDED.current_step_id ELSE flow_states.current_step_id END,
       started = COALESCE($4, flow_states.started),
       completed = COALESCE($5, flow_states.completed),
       skipped = COALESCE($6, flow_states.skipped),
       last_action_at = EXCLUDED.last_action_at`,
    [
      userId,
      slug,
      changes.currentStepId ?? null,
      changes.started ?? null,
      changes.completed ?? null,
      changes.skipped ?? null,
      at,
      changes.currentStepId !== undefined,
    ],
  );
}

/** Upserts one step's stored row, setting the given columns. */
export async function setStep(
  tx: Queryable,
  userId: string,
  slug: string,
  stepId: string,
  at: Date,
  changes: { started?: boolean; completed?: boolean; skipped?: boolean; data?: unknown },
): Promise<void> {
  await tx.query(
    `INSERT INTO step_states (user_id, flow_slug, step_id, started, completed, skipped, data, last_action_at)
     VALUES ($1, $2, $3, COALESCE($4, false), COALESCE($5, false), COALESCE($6, false), $7::jsonb, $8)
     ON CONFLICT (user_id, flow_slug, step_id) DO UPDATE SET
       started = COALESCE($4, step_states.started),
       completed = COALESCE($5, step_states.completed),
       skipped = COALESCE($6, step_states.skipped),
       data = COALESCE($7::jsonb, step_states.data),
       last_action_at = EXCLUDED.last_action_at`,
    [
      userId,
      slug,
      stepId,
      changes.started ?? null,
      changes.completed ?? null,
      changes.skipped ?? null,
      changes.data === undefined ? null : JSON.stringify(changes.data),
      at,
    ],
  );
}

function conflict(detail: string, field?: string): HttpProblem {
  return new HttpProblem(409, detail, field);
}

/**
 * Applies one transition and answers with the user's full flow-state read. Unknown flows and steps
 * are 404; a transition the state does not allow is 409; repeating one that already happened
 * changes nothing (and records nothing).
 */
export async function applyTransition(tx: Queryable, catalog: FlowCatalog, body: FlowStateWriteRequest, now: Date): Promise<FlowStatesResponse> {
  const flow = catalog.get(body.flowSlug);
  if (!flow) throw new HttpProblem(404, `There is no flow with slug "${body.flowSlug}".`, 'flowSlug');
  const isStepAction = STEP_ACTIONS.has(body.actionType);
  const stepIndex = flow.steps.findIndex((step) => step.definition.id === body.stepId);
  // Flow actions may leave stepId empty; a non-empty one must still name a step of the flow.
  if (stepIndex < 0 && (isStepAction || body.stepId !== '')) {
    throw new HttpProblem(404, `Flow "${body.flowSlug}" has no step "${body.stepId}".`, 'stepId');
  }
  const at = body.createdAt ? new Date(body.createdAt) : now;
  if (Number.isNaN(at.getTime())) throw new HttpProblem(400, 'body field "createdAt" must be an ISO 8601 date-time', 'createdAt');
  await lockUser(tx, body.userId);
  const flows = catalog.list();
  const snapshot = await loadUserSnapshot(tx, body.userId, body.groupId, flows);
  if (!isEligible(flow, snapshot)) {
    throw conflict(
      flow.flow.status === 'ACTIVE'
        ? `User "${body.userId}" is not eligible for flow "${flow.flow.slug}" (its targeting does not hold).`
        : `Flow "${flow.flow.slug}" is ${flow.flow.status}, so no user can move through it.`,
      'flowSlug',
    );
  }
  const changed = isStepAction
    ? await applyStepAction(tx, flow, snapshot, body, stepIndex, at)
    : await applyFlowAction(tx, flow, snapshot, body, at);
  if (changed) await appendResponse(tx, body.userId, flow.flow.slug, body.stepId, body.actionType, body.data, at);
  if (changed && (body.actionType === 'COMPLETED_STEP' || body.actionType === 'SKIPPED_STEP')) {
    await movePointer(tx, flows, flow, body, stepIndex, at);
  }
  return deriveFlowStates(flows, await loadUserSnapshot(tx, body.userId, body.groupId, flows));
}

/** Returns false when the transition already happened. */
async function applyFlowAction(tx: Queryable, flow: CatalogFlow, snapshot: UserSnapshot, body: FlowStateWriteRequest, at: Date): Promise<boolean> {
  const slug = flow.flow.slug;
  const stored = snapshot.flows.get(slug);
  const view = deriveFlowState(flow, snapshot).$state;
  switch (body.actionType) {
    case 'STARTED_FLOW':
      if (view.completed || view.skipped) {
        throw conflict(`Flow "${slug}" is already ${view.completed ? 'completed' : 'skipped'}; restart it (NOT_STARTED_FLOW) to start it again.`, 'actionType');
      }
      if (stored?.started) return false;
      await setFlow(tx, body.userId, slug, at, { started: true });
      return true;
    case 'COMPLETED_FLOW':
      if (stored?.completed) return false;
      if (view.skipped) throw conflict(`Flow "${slug}" is skipped; restart it (NOT_STARTED_FLOW) before completing it.`, 'actionType');
      await setFlow(tx, body.userId, slug, at, { started: true, completed: true });
      return true;
    case 'SKIPPED_FLOW':
      if (stored?.skipped) return false;
      if (view.completed) throw conflict(`Flow "${slug}" is completed; restart it (NOT_STARTED_FLOW) before skipping it.`, 'actionType');
      await setFlow(tx, body.userId, slug, at, { skipped: true });
      return true;
    default: {
      // NOT_STARTED_FLOW: a restart clears the flow and all of its steps; the response log is kept.
      if (!stored && !snapshot.steps.get(slug)?.size) return false;
      await tx.query('DELETE FROM flow_states WHERE user_id = $1 AND flow_slug = $2', [body.userId, slug]);
      await tx.query('DELETE FROM step_states WHERE user_id = $1 AND flow_slug = $2', [body.userId, slug]);
      return true;
    }
  }
}

/** Returns false when the transition already happened. */
async function applyStepAction(
  tx: Queryable,
  flow: CatalogFlow,
  snapshot: UserSnapshot,
  body: FlowStateWriteRequest,
  stepIndex: number,
  at: Date,
): Promise<boolean> {
  const slug = flow.flow.slug;
  const view: FlowState = deriveFlowState(flow, snapshot);
  const step = view.data.steps[stepIndex]!;
  if (!step.$state.visible) throw conflict(`Step "${step.id}" of flow "${slug}" is not visible to this user.`, 'stepId');
  if (step.$state.blocked) throw conflict(`Step "${step.id}" of flow "${slug}" is blocked: its startCriteria does not hold.`, 'stepId');
  const stored = snapshot.steps.get(slug)?.get(step.id);
  const finished = view.$state.completed || view.$state.skipped;
  const refuseFinished = () => {
    if (finished) {
      throw conflict(
        `Flow "${slug}" is already ${view.$state.completed ? 'completed' : 'skipped'}; restart it (NOT_STARTED_FLOW) to change its steps.`,
        'actionType',
      );
    }
  };
  switch (body.actionType) {
    case 'STARTED_STEP':
      refuseFinished();
      if (stored?.started && snapshot.flows.get(slug)?.currentStepId === step.id) return false;
      await setStep(tx, body.userId, slug, step.id, at, { started: true, data: body.data });
      await setFlow(tx, body.userId, slug, at, { started: true, currentStepId: step.id });
      return true;
    case 'COMPLETED_STEP':
      if (stored?.completed) return false;
      refuseFinished();
      await setStep(tx, body.userId, slug, step.id, at, { started: true, completed: true, skipped: false, data: body.data });
      await setFlow(tx, body.userId, slug, at, { started: true });
      return true;
    case 'SKIPPED_STEP':
      if (stored?.skipped) return false;
      refuseFinished();
      if (stored?.completed) throw conflict(`Step "${step.id}" is completed; reset it (NOT_STARTED_STEP) before skipping it.`, 'actionType');
      await setStep(tx, body.userId, slug, step.id, at, { skipped: true, data: body.data });
      await setFlow(tx, body.userId, slug, at, { started: true });
      return true;
    default:
      // NOT_STARTED_STEP: forget the step and point at it again (this is how "back" works).
      refuseFinished();
      if (!stored) return false;
      await tx.query('DELETE FROM step_states WHERE user_id = $1 AND flow_slug = $2 AND step_id = $3', [body.userId, slug, step.id]);
      await setFlow(tx, body.userId, slug, at, { currentStepId: step.id });
      return true;
  }
}

/**
 * After a step is completed or skipped: point at the next visible undone step (looking after it
 * first, then from the start); with none left, the flow is completed, and that is recorded too.
 */
async function movePointer(
  tx: Queryable,
  flows: CatalogFlow[],
  flow: CatalogFlow,
  body: FlowStateWriteRequest,
  stepIndex: number,
  at: Date,
): Promise<void> {
  const slug = flow.flow.slug;
  const snapshot = await loadUserSnapshot(tx, body.userId, body.groupId, flows);
  const steps = deriveFlowState(flow, snapshot).data.steps;
  const open = (i: number) => steps[i]!.$state.visible && !steps[i]!.$state.completed && !steps[i]!.$state.skipped;
  const order = [...steps.keys()].filter((i) => i > stepIndex).concat([...steps.keys()].filter((i) => i < stepIndex));
  const next = order.find(open);
  if (next !== undefined) {
    await setFlow(tx, body.userId, slug, at, { currentStepId: steps[next]!.id });
    return;
  }
  await setFlow(tx, body.userId, slug, at, { started: true, completed: true });
  await appendResponse(tx, body.userId, slug, body.stepId, 'COMPLETED_FLOW', { reason: 'last-step' }, at);
}
