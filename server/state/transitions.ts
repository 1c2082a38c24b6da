// Flow-state transitions (POST /v1/public/flowStates): checks, pointer moves, and the append-only response log.
// A transition reads the user once, applies the change to that snapshot in memory, and writes only what changed.
import type { ActionType, FlowState, FlowStateWriteRequest, FlowStatesResponse } from '../../src/api/wire.js';
import type { CatalogFlow, CatalogVersion, FlowCatalog } from '../flows/catalog.js';
import { localeChain } from '../flows/translations.js';
import { HttpProblem } from '../shared/problem.js';
import { asOneStatement, type Queryable } from '../storage/store.js';
import { isGuestId, loadUserSnapshot, refreshCelFlow, type StoredFlowState, type StoredStepState, type UserSnapshot } from './snapshot.js';
import { RawJson } from '../shared/raw-json.js';
import { countAnswers, isCountedAnswer, progressWrites, readFacts, type ProgressUpdate } from '../analytics/progress.js';
import { deriveFlowState, deriveFlowStates, isEligible, renderFlowStateParts, type ReadOptions } from './derive.js';
import { emitEvents, progressEvents } from './events.js';

const STEP_ACTIONS: ReadonlySet<ActionType> = new Set(['STARTED_STEP', 'COMPLETED_STEP', 'SKIPPED_STEP', 'NOT_STARTED_STEP']);

/** The earliest `createdAt` a transition may carry (2000-01-01T00:00:00Z). */
export const EARLIEST_CREATED_AT = Date.UTC(2000, 0, 1);
/** How far ahead of the service's clock a client's `createdAt` may be. */
export const MAX_CLOCK_AHEAD_MS = 24 * 3600_000;
/** Longest page address kept with a flow response; longer ones are cut. */
export const MAX_URL_LENGTH = 2048;

/**
 * Locks the user's row for this transaction, creating it when missing, so one user's writes apply
 * one at a time, and returns the user the write belongs to: a guest that was linked into a user
 * (even while this waited for the lock) is that user, so a late write of the guest is never
 * orphaned. A row deleted while this waited is created again. On PostgreSQL the lock is taken by
 * moving the row's state version on, which every write must do (see the cache in snapshot.ts). PGlite
 * runs one transaction at a time, so there the row only needs to exist: one statement makes it unless the guest
 * was linked. Never the read cache: it holds what a read saw, not a row this transaction can rely on.
 */
export async function lockUser(tx: Queryable, userId: string): Promise<string> {
  if (tx.exclusive) {
    if (!isGuestId(userId)) {
      await tx.query(CREATE_USER_SQL, [userId]);
      return userId;
    }
    const [row] = await tx.query<{ linked_to: string | null }>(CREATE_GUEST_SQL, [userId]);
    return row?.linked_to ?? userId;
  }
  let id = userId;
  for (let attempt = 0; attempt < 4; attempt++) {
    if ((await tx.query(LOCK_USER_SQL, [id])).length > 0) {
      tx.versionMoved?.('user', id);
      return id;
    }
    const linked = isGuestId(id) ? await linkedUser(tx, id) : undefined;
    if (linked) {
      id = linked;
      continue;
    }
    await tx.query(CREATE_USER_SQL, [id]);
  }
  throw new HttpProblem(409, `User "${userId}" changed under this request several times; send it again.`, 'userId');
}

const LOCK_USER_SQL = "UPDATE users SET state_version = nextval('state_versions') WHERE id = $1 RETURNING 1";
const CREATE_USER_SQL = 'INSERT INTO users (id) VALUES ($1) ON CONFLICT (id) DO NOTHING';
/** A guest's row, made unless the guest was linked into a user (whose row the link's foreign key keeps); that user comes back. */
const CREATE_GUEST_SQL = `WITH link AS (SELECT user_id FROM guest_links WHERE guest_id = $1),
  made AS (INSERT INTO users (id) SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM link) ON CONFLICT (id) DO NOTHING)
SELECT (SELECT user_id FROM link) AS linked_to`;

/** The user a guest was linked into, if it was. */
export async function linkedUser(tx: Queryable, guestId: string): Promise<string | undefined> {
  const [row] = await tx.query<{ user_id: string }>('SELECT user_id FROM guest_links WHERE guest_id = $1', [guestId]);
  return row?.user_id;
}

/** One response to append to the log. */
interface NewResponse {
  stepId: string;
  actionType: ActionType;
  data: unknown;
  at: Date;
  url: string | null;
}

/** What one transition changes in one flow: the new state of rows, never a delta, so the write is plain. */
interface FlowChange {
  /** NOT_STARTED_FLOW: the flow's row and all its step rows go. */
  reset?: true;
  /** The new row of one step, or null to delete it. */
  step?: { id: string; state: StoredStepState | null };
  /** The new row of the flow. */
  flow?: StoredFlowState;
  responses: NewResponse[];
}

/** Numbers a statement's parameter after $1 (the user) and $2 (the flow), and returns its placeholder. */
type Param = (value: unknown) => string;

/** Runs writes on one user's rows in one flow as one statement: one round trip, however many tables. */
async function writeAsOne(tx: Queryable, userId: string, slug: string, build: ($: Param) => string[]): Promise<void> {
  const params: unknown[] = [userId, slug];
  const writes = build((value) => `$${params.push(value)}`);
  if (writes.length > 0) await tx.query(asOneStatement(writes), params);
}

/** The responses' data as the JSON text stored (`{}` for none). */
const responseTexts = (responses: NewResponse[]) => responses.map((r) => JSON.stringify(r.data === undefined ? {} : r.data));

/** The responses among these that analytics counts as answers (a SURVEY's answers given as fields too, when `flowType` says so). */
const countedAnswers = (responses: NewResponse[], texts: string[], flowType?: string) =>
  responses.flatMap((r, i) => (isCountedAnswer(r.actionType, r.data, flowType) ? [{ stepId: r.stepId, data: texts[i]!, at: r.at }] : []));

const responsesSql = ($: Param, responses: NewResponse[], texts: string[], flowVersion: number | null, locale: string) =>
  `INSERT INTO flow_responses (user_id, flow_slug, step_id, action_type, data, created_at, url, flow_version, locale)
   SELECT $1, $2, r.step_id, r.action_type, r.data, r.created_at, r.url, ${$(flowVersion)}::int, ${$(locale)}::text
   FROM unnest(${$(responses.map((r) => r.stepId))}::text[], ${$(responses.map((r) => r.actionType))}::text[], ${$(texts)}::text[],
               ${$(responses.map((r) => r.at.toISOString()))}::timestamptz[], ${$(responses.map((r) => r.url))}::text[])
        WITH ORDINALITY AS r(step_id, action_type, data, created_at, url, n)
   ORDER BY r.n`;

const flowRowSql = ($: Param, row: StoredFlowState) =>
  `INSERT INTO flow_states (user_id, flow_slug, current_step_id, started, completed, skipped, last_action_at, reshows)
   VALUES ($1, $2, ${$(row.currentStepId)}, ${$(row.started)}, ${$(row.completed)}, ${$(row.skipped)}, ${$(row.lastActionAt)}::timestamptz, ${$(row.reshows)}::int)
   ON CONFLICT (user_id, flow_slug) DO UPDATE SET current_step_id = EXCLUDED.current_step_id, started = EXCLUDED.started,
     completed = EXCLUDED.completed, skipped = EXCLUDED.skipped, last_action_at = EXCLUDED.last_action_at, reshows = EXCLUDED.reshows`;

const stepRowSql = ($: Param, stepId: string, row: StoredStepState) =>
  `INSERT INTO step_states (user_id, flow_slug, step_id, started, completed, skipped, data, last_action_at)
   VALUES ($1, $2, ${$(stepId)}, ${$(row.started)}, ${$(row.completed)}, ${$(row.skipped)},
           ${$(row.data === null || row.data === undefined ? null : JSON.stringify(row.data))}::jsonb, ${$(row.lastActionAt)}::timestamptz)
   ON CONFLICT (user_id, flow_slug, step_id) DO UPDATE SET started = EXCLUDED.started, completed = EXCLUDED.completed,
     skipped = EXCLUDED.skipped, data = EXCLUDED.data, last_action_at = EXCLUDED.last_action_at`;

/**
 * Appends Flow responses; `data` is stored JSON-encoded, with the page address when the client sent one,
 * the flow version the user was shown and the translation it was shown in ('' for the source; analytics filters by both).
 * Answers among them are counted for analytics.
 */
export async function appendResponses(
  tx: Queryable,
  userId: string,
  flowSlug: string,
  responses: NewResponse[],
  flowVersion: number | null = null,
  locale = '',
): Promise<void> {
  if (responses.length === 0) return;
  const texts = responseTexts(responses);
  await writeAsOne(tx, userId, flowSlug, ($) => [responsesSql($, responses, texts, flowVersion, locale)]);
  await countAnswers(tx, { slug: flowSlug, version: flowVersion }, countedAnswers(responses, texts), locale);
}

/** Writes a flow's row as it now is. */
export async function writeFlowRow(tx: Queryable, userId: string, slug: string, row: StoredFlowState): Promise<void> {
  await writeAsOne(tx, userId, slug, ($) => [flowRowSql($, row)]);
}

/** Writes a step's row as it now is. */
export async function writeStepRow(tx: Queryable, userId: string, slug: string, stepId: string, row: StoredStepState): Promise<void> {
  await writeAsOne(tx, userId, slug, ($) => [stepRowSql($, stepId, row)]);
}

/**
 * Writes the rows of one transition, then what derives from the responses it appends: the analytics facts
 * and rollups (`progress`), and the events (`startedBefore`: the flow's row said started before the change).
 * The responses and answers are tagged with `locale`, the flow's translation the request resolved to ('' for the source).
 */
async function persist(
  tx: Queryable,
  userId: string,
  flow: CatalogFlow,
  change: FlowChange,
  progress: ProgressUpdate | null,
  startedBefore: boolean,
  facts: UserSnapshot['progress'],
  locale: string,
): Promise<void> {
  const slug = flow.flow.slug;
  tx.touchUser?.(userId);
  const version = { slug, version: flow.flow.version, type: flow.flow.type };
  // The user's facts in this flow before the change: loaded with the user, when they were (null: none).
  const known = progress ? (facts ? (facts.get(slug) ?? null) : await readFacts(tx, userId, slug)) : null;
  // The rows, the analytics facts and the rollups in one statement: one round trip for all its writes.
  const texts = responseTexts(change.responses);
  await writeAsOne(tx, userId, slug, ($) => [
    ...(change.reset ? ['DELETE FROM flow_states WHERE user_id = $1 AND flow_slug = $2', 'DELETE FROM step_states WHERE user_id = $1 AND flow_slug = $2'] : []),
    ...(change.step?.state ? [stepRowSql($, change.step.id, change.step.state)] : []),
    ...(change.step && !change.step.state ? [`DELETE FROM step_states WHERE user_id = $1 AND flow_slug = $2 AND step_id = ${$(change.step.id)}`] : []),
    ...(change.flow ? [flowRowSql($, change.flow)] : []),
    ...(change.responses.length > 0 ? [responsesSql($, change.responses, texts, version.version, locale)] : []),
    ...(progress ? progressWrites(version, progress, known, $) : []),
  ]);
  await countAnswers(tx, version, countedAnswers(change.responses, texts, version.type), locale);
  await emitEvents(tx, progressEvents(userId, version, change.responses, { startedNow: !startedBefore && change.flow?.started === true }));
}

/** Puts a change into the snapshot, so the answer is derived without reading the user again. */
function applyToSnapshot(snapshot: UserSnapshot, catalog: CatalogVersion, slug: string, change: FlowChange): void {
  if (change.reset) {
    snapshot.flows.delete(slug);
    snapshot.steps.delete(slug);
  }
  if (change.step) {
    let steps = snapshot.steps.get(slug);
    if (!steps) snapshot.steps.set(slug, (steps = new Map()));
    if (change.step.state) steps.set(change.step.id, change.step.state);
    else steps.delete(change.step.id);
  }
  if (change.flow) snapshot.flows.set(slug, change.flow);
  const log = snapshot.responses.get(slug) ?? [];
  for (const response of change.responses) {
    // The answer keeps the latest response of each step and of the flow (see snapshot.ts).
    const flowLevel = response.actionType.endsWith('FLOW');
    const kept = log.filter((r) => (flowLevel ? !r.actionType.endsWith('FLOW') : r.actionType.endsWith('FLOW') || r.stepId !== response.stepId));
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

function conflict(detail: string, field?: string): HttpProblem {
  return new HttpProblem(409, detail, field);
}

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
  return deriveFlowStates(version, snapshot, { ...options, now: options.now ?? now });
}

/** The same transition, answered with the JSON text a route sends. */
export async function applyTransitionJson(tx: Queryable, catalog: FlowCatalog, body: FlowStateWriteRequest, now: Date, options: ReadOptions = {}): Promise<RawJson> {
  const { version, snapshot } = await transition(tx, catalog, body, now, options.locale);
  return new RawJson(renderFlowStateParts(version, snapshot, { ...options, now: options.now ?? now }));
}

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
  const userId = await lockUser(tx, body.userId);
  // With the analytics facts the transition updates (on the embedded store; PostgreSQL reads them under the lock).
  const snapshot = await loadUserSnapshot(tx, userId, body.groupId, version, { progress: true, now, locale });
  if (!isEligible(flow, snapshot)) {
    throw conflict(
      flow.flow.status === 'ACTIVE'
        ? `User "${userId}" is not eligible for flow "${flow.flow.slug}" (its targeting does not hold).`
        : `Flow "${flow.flow.slug}" is ${flow.flow.status}, so no user can move through it.`,
      'flowSlug',
    );
  }
  const url = typeof body.context?.url === 'string' ? body.context.url.slice(0, MAX_URL_LENGTH) : null;
  const write: Write = { ...body, stepId, at: at.toISOString(), url, date: at, now };
  const change = isStepAction ? planStepAction(flow, snapshot, write, stepIndex) : planFlowAction(flow, snapshot, write);
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
    await persist(tx, userId, flow, change, progressOf(flow, snapshot, write, change, locale), startedBefore, snapshot.progress, locale);
  }
  return { version, snapshot };
}

/**
 * What a change did, as analytics counts it (null for a restart, which counts nothing): whether the flow
 * is started now, its stored completion or skip, the step acted on, the step the user now sees, and the comebacks.
 */
function progressOf(flow: CatalogFlow, snapshot: UserSnapshot, write: Write, change: FlowChange, locale: string): ProgressUpdate | null {
  if (change.reset) return null;
  const slug = flow.flow.slug;
  const steps: ProgressUpdate['steps'] = [];
  if (STEP_ACTIONS.has(write.actionType) && write.actionType !== 'NOT_STARTED_STEP') {
    steps.push({ id: write.stepId, completed: write.actionType === 'COMPLETED_STEP', skipped: write.actionType === 'SKIPPED_STEP' });
  }
  const view = deriveFlowState(flow, snapshot, write.now).$state;
  if (!view.completed && !view.skipped && view.currentStepId && view.currentStepId !== steps[0]?.id) steps.push({ id: view.currentStepId });
  const completed = change.responses.some((r) => r.actionType === 'COMPLETED_FLOW');
  const skipped = change.responses.some((r) => r.actionType === 'SKIPPED_FLOW');
  const row = snapshot.flows.get(slug);
  // Dismissing a flow that was never marked started still means the user saw it. A flow that came back is told
  // apart by its row's count of comebacks, which the first change after the comeback stores.
  return { at: write.date, started: row?.started === true || completed || skipped, completed, skipped, steps, reshows: row?.reshows ?? 0, locale };
}

/** A write whose stepId is known ("" for a flow action that named no step), with its time, page and the service's clock. */
type Write = FlowStateWriteRequest & { stepId: string; at: string; date: Date; url: string | null; now: Date };

const NO_FLOW: StoredFlowState = { currentStepId: null, started: false, completed: false, skipped: false, lastActionAt: null, reshows: 0 };
const NO_STEP: StoredStepState = { started: false, completed: false, skipped: false, data: null, lastActionAt: null };

const response = (write: Write): NewResponse => ({ stepId: write.stepId, actionType: write.actionType, data: write.data, at: write.date, url: write.url });

/**
 * A flow that came back (reshow) is stored as such by the first change the user makes in it: no longer skipped,
 * and one more comeback counted, so a dismissal now waits `after` again and counts toward `times`.
 */
function cameBack(stored: StoredFlowState | undefined, view: FlowState['$state']): Partial<StoredFlowState> {
  return stored?.skipped && !view.skipped ? { skipped: false, reshows: stored.reshows + 1 } : {};
}

/** The change a flow action makes, or null when it would change nothing. */
function planFlowAction(flow: CatalogFlow, snapshot: UserSnapshot, write: Write): FlowChange | null {
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
function planStepAction(flow: CatalogFlow, snapshot: UserSnapshot, write: Write, stepIndex: number): FlowChange | null {
  const slug = flow.flow.slug;
  const view = deriveFlowState(flow, snapshot, write.now);
  const step = view.data.steps[stepIndex]!;
  if (!step.$state.visible) throw conflict(`Step "${step.id}" of flow "${slug}" is not visible to this user.`, 'stepId');
  if (step.$state.blocked) throw conflict(`Step "${step.id}" of flow "${slug}" is blocked: its startCriteria does not hold.`, 'stepId');
  // Steps of a finished flow stay as they are until the flow is restarted.
  if (view.$state.completed || view.$state.skipped) return null;
  const storedFlow = snapshot.flows.get(slug);
  const stored = snapshot.steps.get(slug)?.get(step.id);
  const flowBase = { ...(storedFlow ?? NO_FLOW), ...cameBack(storedFlow, view.$state), lastActionAt: write.at };
  // A step keeps the data of its latest transition that carried one.
  const stepBase = { ...(stored ?? NO_STEP), lastActionAt: write.at, data: write.data === undefined ? (stored?.data ?? null) : write.data };
  const responses = [response(write)];
  switch (write.actionType) {
    case 'STARTED_STEP':
      if (stored?.started && storedFlow?.currentStepId === step.id) return null;
      return { step: { id: step.id, state: { ...stepBase, started: true } }, flow: { ...flowBase, started: true, currentStepId: step.id }, responses };
    case 'COMPLETED_STEP':
      if (stored?.completed) return null;
      return { step: { id: step.id, state: { ...stepBase, started: true, completed: true, skipped: false } }, flow: { ...flowBase, started: true }, responses };
    case 'SKIPPED_STEP':
      // A completed step stays completed until it is reset.
      if (stored?.skipped || stored?.completed) return null;
      return { step: { id: step.id, state: { ...stepBase, skipped: true } }, flow: { ...flowBase, started: true }, responses };
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
function movePointer(flow: CatalogFlow, snapshot: UserSnapshot, write: Write, stepIndex: number): { flow: StoredFlowState; responses: NewResponse[] } {
  const stored = snapshot.flows.get(flow.flow.slug) ?? NO_FLOW;
  const steps = deriveFlowState(flow, snapshot, write.now).data.steps;
  const open = (i: number) => steps[i]!.$state.visible && !steps[i]!.$state.completed && !steps[i]!.$state.skipped;
  const order = [...steps.keys()].filter((i) => i > stepIndex).concat([...steps.keys()].filter((i) => i < stepIndex));
  const next = order.find(open);
  if (next !== undefined) return { flow: { ...stored, currentStepId: steps[next]!.id }, responses: [] };
  return {
    flow: { ...stored, started: true, completed: true },
    responses: [{ stepId: write.stepId, actionType: 'COMPLETED_FLOW', data: { reason: 'last-step' }, at: write.date, url: write.url }],
  };
}
