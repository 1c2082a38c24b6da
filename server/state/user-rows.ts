// One user's rows as a transition writes them: the user's lock, the flow and step rows, the response log, and persist,
// which writes a planned change (transition-plan.ts) with its analytics and events in one round trip.
import type { CatalogFlow } from '../flows/catalog.js';
import { HttpProblem } from '../shared/problem.js';
import { asOneStatement, type Queryable } from '../storage/store.js';
import { countAnswers, isCountedAnswer } from '../analytics/answer-counts.js';
import type { ProgressUpdate } from '../analytics/progress-facts.js';
import { progressWrites, readFacts } from '../analytics/progress.js';
import { emitEvents, progressEvents } from './events.js';
import { isGuestId, type StoredFlowState, type StoredStepState, type UserSnapshot } from './snapshot.js';
import type { FlowChange, NewResponse } from './transition-plan.js';

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

/** Numbers a statement's parameter after $1 (the user) and $2 (the flow), and returns its placeholder. */
type Param = (value: unknown) => string;

/** Runs writes on one user's rows in one flow as one statement: one round trip, however many tables. */
async function writeAsOne(tx: Queryable, userId: string, slug: string, build: ($: Param) => string[]): Promise<void> {
  const params: unknown[] = [userId, slug];
  const writes = build((value) => `$${params.push(value)}`);
  if (writes.length > 0) await tx.query(asOneStatement(writes), params);
}

/** The responses' data as the JSON text stored (`{}` for none). */
const responseTexts = (responses: NewResponse[]) =>
  responses.map((r) => JSON.stringify(r.data === undefined ? {} : r.data));

/** The responses among these that analytics counts as answers (a SURVEY's answers given as fields too, when `flowType` says so). */
const countedAnswers = (responses: NewResponse[], texts: string[], flowType?: string) =>
  responses.flatMap((r, i) =>
    isCountedAnswer(r.actionType, r.data, flowType) ? [{ stepId: r.stepId, data: texts[i], at: r.at }] : [],
  );

const responsesSql = (
  $: Param,
  responses: NewResponse[],
  texts: string[],
  flowVersion: number | null,
  locale: string,
) =>
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
export async function writeStepRow(
  tx: Queryable,
  userId: string,
  slug: string,
  stepId: string,
  row: StoredStepState,
): Promise<void> {
  await writeAsOne(tx, userId, slug, ($) => [stepRowSql($, stepId, row)]);
}

/** What persist writes: one transition's planned change in one flow, and what it needs to derive the rest. */
export interface Persisted {
  tx: Queryable;
  userId: string;
  flow: CatalogFlow;
  change: FlowChange;
  /** What the change did, as analytics counts it (null for a restart). */
  progress: ProgressUpdate | null;
  /** The flow's row said started before the change. */
  startedBefore: boolean;
  /** The user's analytics facts, when loaded with the snapshot (else read under the lock). */
  facts: UserSnapshot['progress'];
  /** The flow's translation the request resolved to ('' for the source). */
  locale: string;
}

/**
 * Writes the rows of one transition, then what derives from the responses it appends: the analytics facts
 * and rollups (`progress`), and the events (`startedBefore`: the flow's row said started before the change).
 * The responses and answers are tagged with `locale`, the flow's translation the request resolved to ('' for the source).
 */
export async function persist({
  tx,
  userId,
  flow,
  change,
  progress,
  startedBefore,
  facts,
  locale,
}: Persisted): Promise<void> {
  const slug = flow.flow.slug;
  tx.touchUser?.(userId);
  const version = { slug, version: flow.flow.version, type: flow.flow.type };
  // The user's facts in this flow before the change: loaded with the user, when they were (null: none).
  const known = progress ? (facts ? (facts.get(slug) ?? null) : await readFacts(tx, userId, slug)) : null;
  // The rows, the analytics facts and the rollups in one statement: one round trip for all its writes.
  const texts = responseTexts(change.responses);
  await writeAsOne(tx, userId, slug, ($) => [
    ...(change.reset
      ? [
          'DELETE FROM flow_states WHERE user_id = $1 AND flow_slug = $2',
          'DELETE FROM step_states WHERE user_id = $1 AND flow_slug = $2',
        ]
      : []),
    ...(change.step?.state ? [stepRowSql($, change.step.id, change.step.state)] : []),
    ...(change.step && !change.step.state
      ? [`DELETE FROM step_states WHERE user_id = $1 AND flow_slug = $2 AND step_id = ${$(change.step.id)}`]
      : []),
    ...(change.flow ? [flowRowSql($, change.flow)] : []),
    ...(change.responses.length > 0 ? [responsesSql($, change.responses, texts, version.version, locale)] : []),
    ...(progress ? progressWrites(version, progress, known, $) : []),
  ]);
  await countAnswers(tx, version, countedAnswers(change.responses, texts, version.type), locale);
  await emitEvents(
    tx,
    progressEvents(userId, version, change.responses, { startedNow: !startedBefore && change.flow?.started === true }),
  );
}
