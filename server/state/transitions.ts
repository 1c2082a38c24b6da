// Flow-state transitions (POST /v1/public/flowStates): the service's authority on them. Checks the write, locks and
// reads the user once, applies the plan (transition-plan.ts) to that snapshot in memory, and writes only what changed.
import type { FlowStateWriteRequest, FlowStatesResponse } from '../../src/api/wire.js';
import type { CatalogVersion, FlowCatalog } from '../flows/catalog.js';
import { localeChain } from '../flows/translations.js';
import { HttpProblem } from '../shared/problem.js';
import { RawJson } from '../shared/raw-json.js';
import type { Queryable } from '../storage/store.js';
import { deriveFlowStates, inSchedule, isEligible, renderFlowStateParts, type ReadOptions } from './derive.js';
import { recordNewExposures } from './read.js';
import { loadUserSnapshot, refreshCelFlow, type StoredStepState, type UserSnapshot } from './snapshot.js';
import {
  checkWrite,
  conflict,
  movePointer,
  planFlowAction,
  planStepAction,
  progressOf,
  type FlowChange,
} from './transition-plan.js';
import { lockUser, persist } from './user-rows.js';

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
  const { version, snapshot } = await transition(tx, catalog, body, now, options.locale);
  await recordNewExposures(tx, version, snapshot, now);
  return deriveFlowStates(version, snapshot, { ...options, now: options.now ?? now });
}

/** The same transition, answered with the JSON text a route sends. */
export async function applyTransitionJson(
  tx: Queryable,
  catalog: FlowCatalog,
  body: FlowStateWriteRequest,
  now: Date,
  options: ReadOptions = {},
): Promise<RawJson> {
  const { version, snapshot } = await transition(tx, catalog, body, now, options.locale);
  // Its answer is an answer like a read's: the first that finds the user in an experiment's audience exposes them.
  await recordNewExposures(tx, version, snapshot, now);
  return new RawJson(renderFlowStateParts(version, snapshot, { ...options, now: options.now ?? now }));
}

/** Checks, plans and writes one transition; returns the catalog version read and the user's snapshot as it now is. */
async function transition(
  tx: Queryable,
  catalog: FlowCatalog,
  body: FlowStateWriteRequest,
  now: Date,
  locale: string | undefined,
): Promise<{ version: CatalogVersion; snapshot: UserSnapshot }> {
  const version = catalog.current();
  const flow = version.bySlug.get(body.flowSlug);
  if (!flow) throw new HttpProblem(404, `There is no flow with slug "${body.flowSlug}".`, 'flowSlug');
  const { write, stepIndex, isStepAction } = checkWrite(flow, body, now);
  const userId = await lockUser(tx, body.userId);
  // With the analytics facts the transition updates (on the embedded store; PostgreSQL reads them under the lock).
  const snapshot = await loadUserSnapshot(tx, userId, body.groupId, version, { progress: true, now, locale });
  if (!isEligible(flow, snapshot)) {
    throw conflict(
      flow.flow.status !== 'ACTIVE'
        ? `Flow "${flow.flow.slug}" is ${flow.flow.status}, so no user can move through it.`
        : !inSchedule(flow, snapshot.cel.now)
          ? `Flow "${flow.flow.slug}" is outside its schedule, so no user can move through it now.`
          : `User "${userId}" is not eligible for flow "${flow.flow.slug}" (its targeting does not hold).`,
      'flowSlug',
    );
  }
  const change = isStepAction
    ? planStepAction(flow, snapshot, write, stepIndex)
    : planFlowAction(flow, snapshot, write);
  if (change) {
    const slug = flow.flow.slug;
    const startedBefore = snapshot.flows.get(slug)?.started === true;
    applyToSnapshot(snapshot, version, slug, change);
    if (body.actionType === 'COMPLETED_STEP' || body.actionType === 'SKIPPED_STEP') {
      const pointer = movePointer(flow, snapshot, write, stepIndex);
      change.flow = pointer.flow;
      change.responses.push(...pointer.responses);
      applyToSnapshot(snapshot, version, slug, { flow: pointer.flow, responses: pointer.responses });
    }
    // Recorded under the translation this flow's content resolved to for the read's locale (the request's, else the user
    // property), its most specific one (fr-CA, else fr), or '' for the source text: one of the flow file's translations
    // or '', so visitors sending any number of locale codes add no rows of their own to the rollups.
    const locale = localeChain(snapshot.cel.user.locale, flow.definition.translations).at(-1) ?? '';
    const progress = progressOf(flow, snapshot, write, change, locale);
    await persist({ tx, userId, flow, change, progress, startedBefore, facts: snapshot.progress, locale });
    // Its first start counts toward the global limits from this answer on.
    if (progress?.started && snapshot.starts && !snapshot.starts.has(slug)) {
      snapshot.starts.set(slug, write.date.getTime());
      if (snapshot.memo) snapshot.memo.limits = undefined;
    }
  }
  return { version, snapshot };
}

/** Puts a change into the snapshot, so the answer is derived without reading the user again. */
function applyToSnapshot(snapshot: UserSnapshot, catalog: CatalogVersion, slug: string, change: FlowChange): void {
  if (change.reset) {
    snapshot.flows.delete(slug);
    snapshot.steps.delete(slug);
  }
  if (change.step) {
    let steps = snapshot.steps.get(slug);
    if (!steps) snapshot.steps.set(slug, (steps = new Map<string, StoredStepState>()));
    if (change.step.state) steps.set(change.step.id, change.step.state);
    else steps.delete(change.step.id);
  }
  if (change.flow) snapshot.flows.set(slug, change.flow);
  const log = snapshot.responses.get(slug) ?? [];
  for (const response of change.responses) {
    // The answer keeps the latest response of each step and of the flow (see snapshot.ts).
    const flowLevel = response.actionType.endsWith('FLOW');
    const kept = log.filter((r) =>
      flowLevel ? !r.actionType.endsWith('FLOW') : r.actionType.endsWith('FLOW') || r.stepId !== response.stepId,
    );
    kept.push({
      flowSlug: slug,
      actionType: response.actionType,
      stepId: response.stepId,
      data: JSON.stringify(response.data === undefined ? {} : response.data),
      createdAt: response.at.toISOString(),
    });
    log.splice(0, log.length, ...kept);
  }
  snapshot.responses.set(slug, log);
  refreshCelFlow(snapshot, catalog, slug);
}
