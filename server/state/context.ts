// Loads what targeting and state derivation need about one user: entity facts for CEL plus stored flow progress.
import type { FlowResponse } from '../../src/api/wire.js';
import type { CatalogFlow } from '../flows/catalog.js';
import type { Queryable } from '../storage/database.js';
import { emptyEntity, type CelContext, type CelEntity, type FlowStatusName } from '../targeting/cel.js';

export interface StoredFlowState {
  currentStepId: string | null;
  started: boolean;
  completed: boolean;
  skipped: boolean;
  lastActionAt: string | null;
}

export interface StoredStepState {
  started: boolean;
  completed: boolean;
  skipped: boolean;
  data: unknown;
  lastActionAt: string | null;
}

export interface UserSnapshot {
  exists: boolean;
  cel: CelContext;
  flows: Map<string, StoredFlowState>;
  /** flowSlug → stepId → state */
  steps: Map<string, Map<string, StoredStepState>>;
  /** flowSlug → the latest flow-level response and the latest response of each step, oldest first */
  responses: Map<string, FlowResponse[]>;
}

export const isGuestId = (id: string) => id.startsWith('guest_');

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

export async function loadEntity(
  db: Queryable,
  kind: 'user' | 'group',
  id: string | undefined,
): Promise<CelEntity & { exists: boolean }> {
  if (!id) return { ...emptyEntity(), exists: false };
  const table = kind === 'user' ? 'users' : 'groups';
  const eventTable = kind === 'user' ? 'user_events' : 'group_events';
  const key = kind === 'user' ? 'user_id' : 'group_id';
  const [row] = await db.query<{ properties: Record<string, unknown>; created_at: Date }>(
    `SELECT properties, created_at FROM ${table} WHERE id = $1`,
    [id],
  );
  const counts = await db.query<{ event: string; count: string | number }>(
    `SELECT event, count(*) AS count FROM ${eventTable} WHERE ${key} = $1 GROUP BY event`,
    [id],
  );
  // Groups do not nest, so a group's own `groups` is empty; listing its members would grow without bound.
  const memberships =
    kind === 'user'
      ? await db.query<{ other: string }>('SELECT group_id AS other FROM group_members WHERE user_id = $1 ORDER BY group_id', [id])
      : [];
  return {
    exists: Boolean(row),
    id,
    isGuest: kind === 'user' && isGuestId(id),
    createdAt: row ? new Date(row.created_at) : null,
    properties: row?.properties ?? {},
    events: Object.fromEntries(counts.map((c) => [c.event, Number(c.count)])),
    groups: memberships.map((m) => m.other),
  };
}

/**
 * Loads one user's facts and progress. `catalog` fills the CEL `flows` map, so every known flow and
 * step can be named in an expression even before the user has touched it.
 */
export async function loadUserSnapshot(db: Queryable, userId: string, groupId: string | undefined, catalog: CatalogFlow[]): Promise<UserSnapshot> {
  const now = new Date();
  const user = await loadEntity(db, 'user', userId);
  // An unknown user reads as a new one: created now.
  if (!user.exists) user.createdAt = now;
  const group = await loadEntity(db, 'group', groupId);
  const flowRows = await db.query<{
    flow_slug: string;
    current_step_id: string | null;
    started: boolean;
    completed: boolean;
    skipped: boolean;
    last_action_at: Date | null;
  }>('SELECT flow_slug, current_step_id, started, completed, skipped, last_action_at FROM flow_states WHERE user_id = $1', [userId]);
  const stepRows = await db.query<{
    flow_slug: string;
    step_id: string;
    started: boolean;
    completed: boolean;
    skipped: boolean;
    data: unknown;
    last_action_at: Date | null;
  }>('SELECT flow_slug, step_id, started, completed, skipped, data, last_action_at FROM step_states WHERE user_id = $1', [userId]);
  // State answers carry a bounded summary of the log, never all of it: per flow, the latest flow-level
  // response and the latest response of each step. The whole log stays in the table.
  const responseRows = await db.query<{
    flow_slug: string;
    step_id: string;
    action_type: FlowResponse['actionType'];
    data: string;
    created_at: Date;
  }>(
    `SELECT flow_slug, step_id, action_type, data, created_at FROM (
       SELECT DISTINCT ON (flow_slug, step_key) id, flow_slug, step_id, action_type, data, created_at
       FROM (SELECT id, flow_slug, step_id, action_type, data, created_at,
                    CASE WHEN action_type LIKE '%FLOW' THEN NULL ELSE step_id END AS step_key
             FROM flow_responses WHERE user_id = $1) AS log
       ORDER BY flow_slug, step_key, id DESC
     ) AS latest ORDER BY id`,
    [userId],
  );

  const flows = new Map<string, StoredFlowState>();
  for (const row of flowRows) {
    flows.set(row.flow_slug, {
      currentStepId: row.current_step_id,
      started: row.started,
      completed: row.completed,
      skipped: row.skipped,
      lastActionAt: iso(row.last_action_at),
    });
  }
  const steps = new Map<string, Map<string, StoredStepState>>();
  for (const row of stepRows) {
    let byStep = steps.get(row.flow_slug);
    if (!byStep) steps.set(row.flow_slug, (byStep = new Map()));
    byStep.set(row.step_id, {
      started: row.started,
      completed: row.completed,
      skipped: row.skipped,
      data: row.data,
      lastActionAt: iso(row.last_action_at),
    });
  }
  const responses = new Map<string, FlowResponse[]>();
  for (const row of responseRows) {
    let list = responses.get(row.flow_slug);
    if (!list) responses.set(row.flow_slug, (list = []));
    list.push({
      flowSlug: row.flow_slug,
      actionType: row.action_type,
      stepId: row.step_id,
      data: row.data,
      createdAt: new Date(row.created_at).toISOString(),
    });
  }

  const celFlows: CelContext['flows'] = {};
  const slugs = new Set([...catalog.map((entry) => entry.flow.slug), ...flows.keys(), ...steps.keys()]);
  for (const slug of slugs) {
    const stored = flows.get(slug);
    const stepMap: Record<string, { status: string; data: unknown }> = {};
    for (const step of catalog.find((entry) => entry.flow.slug === slug)?.steps ?? []) {
      stepMap[step.definition.id] = { status: 'NOT_STARTED_STEP', data: null };
    }
    for (const [stepId, step] of steps.get(slug) ?? []) {
      stepMap[stepId] = { status: stepStatusName(step), data: step.data ?? null };
    }
    celFlows[slug] = { status: flowStatusName(stored), steps: stepMap };
  }

  const { exists, ...userEntity } = user;
  const { exists: _groupExists, ...groupEntity } = group;
  return {
    exists,
    cel: { user: userEntity, group: groupEntity, flows: celFlows, now },
    flows,
    steps,
    responses,
  };
}

export function flowStatusName(state: StoredFlowState | undefined): FlowStatusName {
  if (!state) return 'NOT_STARTED_FLOW';
  if (state.completed) return 'COMPLETED_FLOW';
  if (state.skipped) return 'SKIPPED_FLOW';
  if (state.started) return 'STARTED_FLOW';
  return 'NOT_STARTED_FLOW';
}

export function stepStatusName(state: StoredStepState | undefined): string {
  if (!state) return 'NOT_STARTED_STEP';
  if (state.completed) return 'COMPLETED_STEP';
  if (state.skipped) return 'SKIPPED_STEP';
  if (state.started) return 'STARTED_STEP';
  return 'NOT_STARTED_STEP';
}
