// Users: upsert (properties merge, events append), guest linking, bootstrapFlowStates, and hard delete.
import type { ActionType, Properties, TrackingEvent, UserRecord, UserUpsertRequest } from '../../src/api/wire.js';
import type { Limits } from '../shared/limits.js';
import type { FlowCatalog } from '../flows/catalog.js';
import { HttpProblem } from '../shared/problem.js';
import type { Queryable } from '../storage/store.js';
import { isGuestId, loadUserSnapshot } from './snapshot.js';
import { deriveFlowState, isEligible } from './derive.js';
import { appendResponses, lockUser, writeFlowRow, writeStepRow } from './user-rows.js';
import { forgetProgress } from '../analytics/progress.js';
import {
  countMissingTargets,
  forgetMissingTargets,
  mergeMissingTargets,
  missingTargets,
} from '../analytics/target-missing.js';
import { emitEvents, progressEvents, userEvent } from './events.js';

export type StoredLimits = Pick<Limits, 'storedProperties' | 'storedPropertyBytes' | 'storedEventNames'>;

/**
 * Upserts the user (linking the guest and bootstrapping first when asked). Returns the user it wrote
 * (a guest that was already linked is its user) and whether a guest was linked now.
 */
export async function upsertUser(
  tx: Queryable,
  catalog: FlowCatalog,
  body: UserUpsertRequest,
  now: Date,
  limits: StoredLimits,
): Promise<{ userId: string; guestLinked: boolean }> {
  // With a guest to link, both rows are locked in one order, so two links that name each other wait
  // for one another instead of deadlocking.
  if (body.linkGuestId && body.linkGuestId !== body.userId && !tx.exclusive) {
    await tx.query('SELECT id FROM users WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [
      [body.userId, body.linkGuestId],
    ]);
  }
  const userId = await lockUser(tx, body.userId);
  tx.touchUser?.(userId);
  const guestLinked = body.linkGuestId ? await linkGuest(tx, userId, body.linkGuestId, limits) : false;
  // Top-level keys merge: a supplied key replaces the stored value, keys not supplied stay.
  const merging = Boolean(body.properties && Object.keys(body.properties).length > 0);
  if (merging) {
    const [stored] = await tx.query<StoredSize>(
      `UPDATE users SET properties = properties || $2::jsonb, updated_at = now() WHERE id = $1 RETURNING ${STORED_SIZE}`,
      [userId, JSON.stringify(body.properties)],
    );
    refuseOversized('user', userId, stored, limits);
  } else if (guestLinked) {
    await checkStoredProperties(tx, 'user', userId, limits);
  }
  await appendEvents(tx, 'user', userId, body.events, now, limits);
  await countMissingTargets(tx, userId, missingTargets(catalog, body.events), now);
  if (body.bootstrapFlowStates) await bootstrapFlowStates(tx, catalog, userId, now);
  return { userId, guestLinked };
}

/** How many keys and bytes a row's properties hold, as columns `keys` and `bytes` (for a SELECT or a RETURNING). */
export const STORED_SIZE = `(SELECT count(*) FROM jsonb_object_keys(properties))::int AS keys, octet_length(properties::text) AS bytes`;

export interface StoredSize {
  keys: number;
  bytes: number;
}

/**
 * Refuses (409) a write that leaves a user's or group's stored properties past the limits. It runs
 * inside the write's transaction, so the refused write rolls back and nothing of it is kept.
 */
export async function checkStoredProperties(
  tx: Queryable,
  kind: 'user' | 'group',
  id: string,
  limits: StoredLimits,
): Promise<void> {
  const table = kind === 'user' ? 'users' : 'groups';
  const [row] = await tx.query<StoredSize>(`SELECT ${STORED_SIZE} FROM ${table} WHERE id = $1`, [id]);
  refuseOversized(kind, id, row, limits);
}

/** The same refusal, from the size a write returned (`undefined`: no row, nothing to refuse). */
export function refuseOversized(
  kind: 'user' | 'group',
  id: string,
  row: StoredSize | undefined,
  limits: StoredLimits,
): void {
  if (!row) return;
  const refuse = (what: string) => {
    throw new HttpProblem(
      409,
      `This would store ${what} for ${kind} "${id}". Update the keys it already has instead of adding new ones; nothing of this request was stored.`,
      'properties',
    );
  };
  if (row.keys > limits.storedProperties)
    refuse(`${row.keys} property keys, over the limit of ${limits.storedProperties},`);
  if (row.bytes > limits.storedPropertyBytes)
    refuse(`${row.bytes} bytes of properties, over the limit of ${limits.storedPropertyBytes},`);
}

/**
 * Appends tracking events to a user or a group, in their order, at `at` (the service's clock, which event
 * windows are measured to), and adds them to the counts kept beside the log (targeting reads counts, so a read
 * never counts the log). Earlier events never change. A request whose new names would leave the user or group
 * with more distinct names than the limit is refused (409) whole, as the property limits refuse one.
 */
export async function appendEvents(
  tx: Queryable,
  kind: 'user' | 'group',
  id: string,
  events: TrackingEvent[] | undefined,
  at: Date,
  limits: StoredLimits,
): Promise<void> {
  if (!events?.length) return;
  if (kind === 'user') tx.touchUser?.(id);
  else tx.touchGroup?.(id);
  const [log, counts, key] =
    kind === 'user'
      ? ['user_events', 'user_event_counts', 'user_id']
      : ['group_events', 'group_event_counts', 'group_id'];
  // A row PostgreSQL inserted (not updated) has no xmax: the names this request adds.
  const [row] = await tx.query<{ added: number }>(
    `WITH batch AS (SELECT e.event, e.properties, e.n FROM unnest($2::text[], $3::jsonb[]) WITH ORDINALITY AS e(event, properties, n)),
          logged AS (INSERT INTO ${log} (${key}, event, properties, created_at) SELECT $1, event, properties, $4::timestamptz FROM batch ORDER BY n),
          counted AS (INSERT INTO ${counts} (${key}, event, count) SELECT $1, event, count(*) FROM batch GROUP BY event
                      ON CONFLICT (${key}, event) DO UPDATE SET count = ${counts}.count + EXCLUDED.count
                      RETURNING xmax = 0 AS added)
     SELECT count(*) FILTER (WHERE added)::int AS added FROM counted`,
    [id, events.map((e) => e.event), events.map((e) => JSON.stringify(e.properties ?? {})), at.toISOString()],
  );
  await checkEventNames(tx, kind, id, row?.added ?? 0, limits);
}

/**
 * Refuses (409) a write that added `added` names and left the user or group with more distinct event names than the
 * limit; inside the write's transaction, so nothing of it is kept. Names an entity has already are always taken,
 * and a write that adds none costs nothing here: only a new name pays for the count, which stops past the limit.
 */
async function checkEventNames(
  tx: Queryable,
  kind: 'user' | 'group',
  id: string,
  added: number,
  limits: StoredLimits,
): Promise<void> {
  if (added === 0) return;
  const [counts, key] = kind === 'user' ? ['user_event_counts', 'user_id'] : ['group_event_counts', 'group_id'];
  const limit = limits.storedEventNames;
  const [row] = await tx.query<{ names: number }>(
    `SELECT count(*)::int AS names FROM (SELECT 1 FROM ${counts} WHERE ${key} = $1 LIMIT $2) AS known`,
    [id, limit + 1],
  );
  if ((row?.names ?? 0) <= limit) return;
  throw new HttpProblem(
    409,
    `This would store ${added} new event name${added === 1 ? '' : 's'} for ${kind} "${id}", past the limit of ${limit} distinct event names. ` +
      "Track names it already has (put what varies in the event's properties) instead of new ones; nothing of this request was stored.",
    'events',
  );
}

/**
 * Moves a guest into `userId`: flow states, steps, responses, events, group memberships and properties
 * (the user's own properties win), then deletes the guest. Refused (false) unless `guestId` is an
 * existing guest other than the user, and the user has no state in any flow yet.
 */
async function linkGuest(tx: Queryable, userId: string, guestId: string, limits: StoredLimits): Promise<boolean> {
  if (!isGuestId(guestId) || guestId === userId) return false;
  tx.touchUser?.(guestId);
  const [guest] = await tx.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [guestId]);
  if (!guest) return false;
  const [state] = await tx.query<{ has_state: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM flow_states WHERE user_id = $1)
         OR EXISTS (SELECT 1 FROM step_states WHERE user_id = $1)
         OR EXISTS (SELECT 1 FROM flow_responses WHERE user_id = $1) AS has_state`,
    [userId],
  );
  if (state?.has_state) return false;
  await tx.query(
    `UPDATE users AS u SET properties = g.properties || u.properties, created_at = LEAST(u.created_at, g.created_at), updated_at = now()
     FROM users AS g WHERE u.id = $1 AND g.id = $2`,
    [userId, guestId],
  );
  // The analytics facts move too (the user has none of progress: it has no responses; a missing target both
  // reported counts once), and so do the guest's undelivered events, so that deleting the user later deletes them as well.
  await mergeMissingTargets(tx, userId, guestId);
  // The guest's names the user lacks count against the user's limit, as the guest's properties do. Counted before the
  // events move, so that the move's trigger finds every name's row and makes its kept times again (migration 19).
  const [merged] = await tx.query<{ added: number }>(
    `WITH counted AS (INSERT INTO user_event_counts (user_id, event, count) SELECT $1, event, count FROM user_event_counts WHERE user_id = $2
                      ON CONFLICT (user_id, event) DO UPDATE SET count = user_event_counts.count + EXCLUDED.count
                      RETURNING xmax = 0 AS added)
     SELECT count(*) FILTER (WHERE added)::int AS added FROM counted`,
    [userId, guestId],
  );
  await checkEventNames(tx, 'user', userId, merged?.added ?? 0, limits);
  const tables = [
    'user_events',
    'flow_states',
    'step_states',
    'flow_responses',
    'idempotency_keys',
    'analytics_flow_users',
    'analytics_step_users',
    'analytics_target_missing_users',
    'webhook_outbox',
  ];
  for (const table of tables) {
    await tx.query(`UPDATE ${table} SET user_id = $1 WHERE user_id = $2`, [userId, guestId]);
  }
  // The user keeps the guest's variant in every experiment the guest was exposed to (what that person has seen),
  // in place of one the user may have been given meanwhile.
  await tx.query(
    `DELETE FROM experiment_exposures WHERE user_id = $1 AND experiment_id IN (SELECT experiment_id FROM experiment_exposures WHERE user_id = $2)`,
    [userId, guestId],
  );
  await tx.query('UPDATE experiment_exposures SET user_id = $1 WHERE user_id = $2', [userId, guestId]);
  await tx.query(
    `INSERT INTO group_members (group_id, user_id) SELECT group_id, $1 FROM group_members WHERE user_id = $2
     ON CONFLICT DO NOTHING`,
    [userId, guestId],
  );
  // The guest's later writes (a retry, another tab) go to the user; so do those of guests linked into this one.
  await tx.query('UPDATE guest_links SET user_id = $1 WHERE user_id = $2', [userId, guestId]);
  await tx.query(
    `INSERT INTO guest_links (guest_id, user_id) VALUES ($2, $1) ON CONFLICT (guest_id) DO UPDATE SET user_id = EXCLUDED.user_id, linked_at = now()`,
    [userId, guestId],
  );
  await tx.query('DELETE FROM users WHERE id = $1', [guestId]);
  await emitEvents(tx, [userEvent('user.linked', userId, guestId)]);
  return true;
}

/**
 * For every eligible flow the user has not completed that has completion criteria (on the flow or a
 * step): steps whose criteria hold are stored as completed, and the flow is stored as completed when
 * its own criteria hold or no visible step is left undone. Each is recorded as a Flow response.
 */
export async function bootstrapFlowStates(
  tx: Queryable,
  catalog: FlowCatalog,
  userId: string,
  now: Date,
  groupId?: string,
): Promise<void> {
  const version = catalog.current();
  const snapshot = await loadUserSnapshot(tx, userId, groupId, version, { now });
  tx.touchUser?.(userId);
  const at = now.toISOString();
  for (const flow of version.flows) {
    const slug = flow.flow.slug;
    const hasCriteria = flow.completion !== null || flow.steps.some((step) => step.completion !== null);
    if (!hasCriteria || snapshot.flows.get(slug)?.completed || !isEligible(flow, snapshot)) continue;
    const stored = snapshot.steps.get(slug);
    const view = deriveFlowState(flow, snapshot, now);
    const responses: Parameters<typeof appendResponses>[3] = [];
    for (const [index, step] of flow.steps.entries()) {
      const id = step.definition.id;
      if (!step.completion?.(snapshot.cel) || stored?.get(id)?.completed) continue;
      const previous = stored?.get(id);
      await writeStepRow(tx, userId, slug, id, {
        started: true,
        completed: true,
        skipped: false,
        data: previous?.data ?? null,
        lastActionAt: at,
      });
      responses.push({ stepId: id, actionType: 'COMPLETED_STEP', data: { reason: 'bootstrap' }, at: now, url: null });
      view.data.steps[index].$state.completed = true;
    }
    const undone = view.data.steps.some((s) => s.$state.visible && !s.$state.completed && !s.$state.skipped);
    if (flow.completion?.(snapshot.cel) || !undone) {
      const storedFlow = snapshot.flows.get(slug);
      await writeFlowRow(tx, userId, slug, {
        currentStepId: storedFlow?.currentStepId ?? null,
        started: true,
        completed: true,
        skipped: storedFlow?.skipped ?? false,
        lastActionAt: at,
        reshows: storedFlow?.reshows ?? 0,
      });
      responses.push({
        stepId: view.$state.currentStepId,
        actionType: 'COMPLETED_FLOW',
        data: { reason: 'bootstrap' },
        at: now,
        url: null,
      });
    }
    await appendResponses(tx, userId, slug, responses, flow.flow.version);
    // Completions the service made are events (step.completed, flow.completed), but not views: analytics leaves them out.
    await emitEvents(
      tx,
      progressEvents(userId, { slug, version: flow.flow.version, type: flow.flow.type }, responses, { answers: false }),
    );
  }
}

/**
 * Hard-deletes the user and everything tied to it, takes them out of the analytics counts, drops their
 * undelivered webhook events (they carry what is being erased) and emits `user.deleted`; false when there
 * is no such user.
 */
export async function deleteUser(tx: Queryable, userId: string): Promise<boolean> {
  // Events, memberships, flow and step states, responses and analytics facts go with the user row (ON DELETE CASCADE).
  tx.touchUser?.(userId);
  if (!tx.exclusive) await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
  await forgetProgress(tx, userId);
  await forgetMissingTargets(tx, userId);
  // Exposures name users without a key (a user may be exposed before it has a row).
  await tx.query('DELETE FROM experiment_exposures WHERE user_id = $1', [userId]);
  const deleted = await tx.query('DELETE FROM users WHERE id = $1 RETURNING id', [userId]);
  if (deleted.length === 0) return false;
  await tx.query('DELETE FROM idempotency_keys WHERE user_id = $1', [userId]);
  await tx.query('DELETE FROM webhook_outbox WHERE user_id = $1', [userId]);
  await emitEvents(tx, [userEvent('user.deleted', userId)]);
  return true;
}

/**
 * Everything stored about one user (for `GET /v1/users?foreignId=`, a private-key export), or undefined. The
 * analytics facts are not listed: they are read off the response log, which is.
 */
export async function readUserRecord(db: Queryable, userId: string): Promise<UserRecord | undefined> {
  const [user] = await db.query<{ properties: Properties; created_at: Date; updated_at: Date }>(
    'SELECT properties, created_at, updated_at FROM users WHERE id = $1',
    [userId],
  );
  if (!user) return undefined;
  const events = await db.query<{ event: string; properties: Properties; created_at: Date }>(
    'SELECT event, properties, created_at FROM user_events WHERE user_id = $1 ORDER BY id',
    [userId],
  );
  const groups = await db.query<{ id: string; properties: Properties }>(
    'SELECT g.id, g.properties FROM group_members m JOIN groups g ON g.id = m.group_id WHERE m.user_id = $1 ORDER BY g.id',
    [userId],
  );
  const responses = await db.query<{
    flow_slug: string;
    step_id: string;
    action_type: ActionType;
    data: string;
    created_at: Date;
    url: string | null;
    flow_version: number | null;
    locale: string;
  }>(
    'SELECT flow_slug, step_id, action_type, data, created_at, url, flow_version, locale FROM flow_responses WHERE user_id = $1 ORDER BY id',
    [userId],
  );
  const exposures = await db.query<{ experiment_id: string; variant: string; exposed_at: Date }>(
    'SELECT experiment_id, variant, exposed_at FROM experiment_exposures WHERE user_id = $1 ORDER BY exposed_at, experiment_id',
    [userId],
  );
  return {
    userId,
    properties: user.properties,
    createdAt: new Date(user.created_at).toISOString(),
    updatedAt: new Date(user.updated_at).toISOString(),
    events: events.map((e) => ({
      event: e.event,
      properties: e.properties,
      createdAt: new Date(e.created_at).toISOString(),
    })),
    groups: groups.map((g) => ({ groupId: g.id, properties: g.properties })),
    experiments: exposures.map((x) => ({
      id: x.experiment_id,
      variant: x.variant,
      exposedAt: new Date(x.exposed_at).toISOString(),
    })),
    // The log holds the JSON the service wrote itself.
    flowResponses: responses.map((r) => ({
      flowSlug: r.flow_slug,
      stepId: r.step_id,
      actionType: r.action_type,
      data: JSON.parse(r.data) as unknown,
      createdAt: new Date(r.created_at).toISOString(),
      url: r.url,
      flowVersion: r.flow_version,
      locale: r.locale,
    })),
  };
}
