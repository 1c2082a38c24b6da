// Flow-state transitions (POST /v1/public/flowStates): checks, pointer moves, and the append-only response log.
import type { ActionType, FlowState, FlowStateWriteRequest, FlowStatesResponse } from '../../src/api/wire.js';
import type { CatalogFlow, FlowCatalog } from '../flows/catalog.js';
import { HttpProblem } from '../http/problem.js';
import type { Queryable } from '../storage/database.js';
import { loadUserSnapshot, type UserSnapshot } from './context.js';
import { deriveFlowState, deriveFlowStates, isEligible, type ReadOptions } from './derive.js';

const STEP_ACTIONS: ReadonlySet<ActionType> = new Set(['STARTED_STEP', 'COMPLETED_STEP', 'SKIPPED_STEP', 'NOT_STARTED_STEP']);

/** Creates the user row when missing and locks it, so one user's transitions apply one at a time. */
export async function lockUser(tx: Queryable, userId: string): Promise<void> {
  await tx.query('INSERT INTO users (id) VALUES ($1) ON CONFLICT (id) DO NOTHING', [userId]);
  await tx.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
}

/** Appends one Flow response; `data` is stored JSON-encoded, with the page address when the client sent one. */
export async function appendResponse(
  tx: Queryable,
  userId: string,
  flowSlug: string,
  stepId: string,
  actionType: ActionType,
  data: unknown,
  at: Date,
  url: string | null = null,
): Promise<void> {
  await tx.query(
    'INSERT INTO flow_responses (user_id, flow_slug, step_id, action_type, data, created_at, url) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [userId, flowSlug, stepId, actionType, JSON.stringify(data === undefined ? {} : data), at, url],
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

/** The earliest `createdAt` a transition may carry (2000-01-01T00:00:00Z). */
export const EARLIEST_CREATED_AT = Date.UTC(2000, 0, 1);
/** How far ahead of the service's clock a client's `createdAt` may be. */
export const MAX_CLOCK_AHEAD_MS = 24 * 3600_000;

/** Longest page address kept with a flow response; longer ones are cut. */
export const MAX_URL_LENGTH = 2048;

/**
 * Applies one transition and answers with the user's full flow-state read. Unknown flows and steps
 * are 404; a flow the user is not eligible for, and a hidden or blocked step, are 409. Every other
 * transition answers 2xx with the true state: one that would change nothing (a repeat, or any move
 * but a restart in a finished flow) is not applied and not recorded, so a client that applies the
 * answer agrees with the service.
 */
export async function applyTransition(
  tx: Queryable,
  catalog: FlowCatalog,
  body: FlowStateWriteRequest,
  now: Date,
  options: ReadOptions = {},
): Promise<FlowStatesResponse> {
  const flow = catalog.get(body.flowSlug);
  if (!flow) throw new HttpProblem(404, `There is no flow with slug "${body.flowSlug}".`, 'flowSlug');
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
  if (Number.isNaN(at.getTime())) throw new HttpProblem(400, 'body field "createdAt" must be an ISO 8601 date-time', 'createdAt');
  // Queued writes may arrive long after they were made, and clocks drift; anything outside this is a bug, and
  // a year such as 0000 is not even a time PostgreSQL can store.
  if (at.getTime() < EARLIEST_CREATED_AT || at.getTime() > now.getTime() + MAX_CLOCK_AHEAD_MS) {
    throw new HttpProblem(400, 'body field "createdAt" must be a time from 2000-01-01 to 24 hours after the service\'s clock', 'createdAt');
  }
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
  const write: Write = { ...body, stepId };
  const changed = isStepAction ? await applyStepAction(tx, flow, snapshot, write, stepIndex, at) : await applyFlowAction(tx, flow, snapshot, write, at);
  if (changed) {
    const url = typeof body.context?.url === 'string' ? body.context.url.slice(0, MAX_URL_LENGTH) : null;
    await appendResponse(tx, body.userId, flow.flow.slug, stepId, body.actionType, body.data, at, url);
    if (body.actionType === 'COMPLETED_STEP' || body.actionType === 'SKIPPED_STEP') await movePointer(tx, flows, flow, write, stepIndex, at, url);
  }
  return deriveFlowStates(flows, await loadUserSnapshot(tx, body.userId, body.groupId, flows), options);
}

/** A write whose stepId is known ("" for a flow action that named no step). */
type Write = FlowStateWriteRequest & { stepId: string };

/** Returns false when the transition would change nothing. */
async function applyFlowAction(tx: Queryable, flow: CatalogFlow, snapshot: UserSnapshot, body: Write, at: Date): Promise<boolean> {
  const slug = flow.flow.slug;
  const stored = snapshot.flows.get(slug);
  const view = deriveFlowState(flow, snapshot).$state;
  if (body.actionType === 'NOT_STARTED_FLOW') {
    // A restart clears the flow and all of its steps; the response log is kept.
    if (!stored && !snapshot.steps.get(slug)?.size) return false;
    await tx.query('DELETE FROM flow_states WHERE user_id = $1 AND flow_slug = $2', [body.userId, slug]);
    await tx.query('DELETE FROM step_states WHERE user_id = $1 AND flow_slug = $2', [body.userId, slug]);
    return true;
  }
  if (body.actionType === 'COMPLETED_FLOW') {
    // A flow that reads completed through its criteria is stored as completed, so the completion stays.
    if (stored?.completed || view.skipped) return false;
    await setFlow(tx, body.userId, slug, at, { started: true, completed: true });
    return true;
  }
  // A finished flow stays finished until it is restarted.
  if (view.completed || view.skipped) return false;
  if (body.actionType === 'STARTED_FLOW') {
    if (stored?.started) return false;
    await setFlow(tx, body.userId, slug, at, { started: true });
    return true;
  }
  // SKIPPED_FLOW
  await setFlow(tx, body.userId, slug, at, { skipped: true });
  return true;
}

/** Returns false when the transition would change nothing. */
async function applyStepAction(tx: Queryable, flow: CatalogFlow, snapshot: UserSnapshot, body: Write, stepIndex: number, at: Date): Promise<boolean> {
  const slug = flow.flow.slug;
  const view: FlowState = deriveFlowState(flow, snapshot);
  const step = view.data.steps[stepIndex]!;
  if (!step.$state.visible) throw conflict(`Step "${step.id}" of flow "${slug}" is not visible to this user.`, 'stepId');
  if (step.$state.blocked) throw conflict(`Step "${step.id}" of flow "${slug}" is blocked: its startCriteria does not hold.`, 'stepId');
  // Steps of a finished flow stay as they are until the flow is restarted.
  if (view.$state.completed || view.$state.skipped) return false;
  const stored = snapshot.steps.get(slug)?.get(step.id);
  switch (body.actionType) {
    case 'STARTED_STEP':
      if (stored?.started && snapshot.flows.get(slug)?.currentStepId === step.id) return false;
      await setStep(tx, body.userId, slug, step.id, at, { started: true, data: body.data });
      await setFlow(tx, body.userId, slug, at, { started: true, currentStepId: step.id });
      return true;
    case 'COMPLETED_STEP':
      if (stored?.completed) return false;
      await setStep(tx, body.userId, slug, step.id, at, { started: true, completed: true, skipped: false, data: body.data });
      await setFlow(tx, body.userId, slug, at, { started: true });
      return true;
    case 'SKIPPED_STEP':
      // A completed step stays completed until it is reset.
      if (stored?.skipped || stored?.completed) return false;
      await setStep(tx, body.userId, slug, step.id, at, { skipped: true, data: body.data });
      await setFlow(tx, body.userId, slug, at, { started: true });
      return true;
    default:
      // NOT_STARTED_STEP: forget the step and point at it again (this is how "back" works).
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
  body: Write,
  stepIndex: number,
  at: Date,
  url: string | null,
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
  await appendResponse(tx, body.userId, slug, body.stepId, 'COMPLETED_FLOW', { reason: 'last-step' }, at, url);
}
