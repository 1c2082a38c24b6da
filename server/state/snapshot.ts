// Loads what targeting and state derivation need about one user: entity facts for CEL plus stored flow progress.
import type { FlowResponse } from '../../src/api/wire.js';
import { USER_FACTS_JSON_SQL } from '../analytics/progress.js';
import type { FactsRow } from '../storage/snapshot-cache.js';
import type { CatalogVersion } from '../flows/catalog.js';
import type { Queryable } from '../storage/store.js';
import type { CachedGroup, CachedUser } from '../storage/snapshot-cache.js';
import { contextChanged, emptyEntity, EVENT_WINDOWS, NO_EVENT_WINDOWS, type CelContext, type CelFlow, type CelEntity, type FlowStatusName } from '../targeting/cel.js';
import { canonicalLocale } from '../flows/translations.js';
import { isStorableText } from '../shared/json-guard.js';
import type { EventNameSet } from '../targeting/event-names.js';
import type { EventScope } from '../targeting/event-window-calls.js';
import { eventWindows, literal, windowColumnsSql, windowsFromRows, windowsHold, type WindowCountRow, type WindowLastRow } from './event-window-values.js';

export interface StoredFlowState {
  currentStepId: string | null;
  started: boolean;
  completed: boolean;
  skipped: boolean;
  lastActionAt: string | null;
  /** How many times the flow came back after a dismissal and was acted on again (reshow). */
  reshows: number;
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
  /**
   * flowSlug → the user's analytics facts, when loaded with the rest (the embedded store, whose cache keeps them
   * for the user's next transition); absent on PostgreSQL, where a transition reads them under the user's lock.
   */
  progress?: Map<string, FactsRow>;
}

export const isGuestId = (id: string) => id.startsWith('guest_');

/** Stored rows come back through JSON, where timestamps are strings such as 2026-03-01T09:30:00.123456+00:00. */
const isoOrNull = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

interface SnapshotRow {
  user_properties: Record<string, unknown> | null;
  user_created_at: Date | string | null;
  user_events: Record<string, number> | null;
  user_groups: string[] | null;
  group_properties: Record<string, unknown> | null;
  group_created_at: Date | string | null;
  group_events: Record<string, number> | null;
  /** [flow_slug, current_step_id, started, completed, skipped, last_action_at, reshows] */
  flows: Array<[string, string | null, boolean, boolean, boolean, string | null, number]> | null;
  /** [flow_slug, step_id, started, completed, skipped, data, last_action_at] */
  steps: Array<[string, string, boolean, boolean, boolean, unknown, string | null]> | null;
  /** [flow_slug, step_id, action_type, data, created_at], oldest first */
  responses: Array<[string, string, FlowResponse['actionType'], string, string]> | null;
  /** The user a guest was linked into. */
  linked_to: string | null;
  /** Loaded only when the catalog's CEL counts events over time (see event-window-values.ts). */
  user_window_counts?: WindowCountRow[] | null;
  user_window_last?: WindowLastRow[] | null;
  group_window_counts?: WindowCountRow[] | null;
  group_window_last?: WindowLastRow[] | null;
  /** Loaded only with the embedded store's cache. */
  progress?: FactsRow[] | null;
  /** The rows' state versions (bigint as text on PostgreSQL); null without a row. */
  user_version: string | number | null;
  group_version: string | number | null;
}

/** What the check of a cached user (and group) reads: each row's state version. */
interface VersionRow {
  user_version: string | number | null;
  group_version?: string | number | null;
}

// Everything a read needs about one user (and their group) in one statement. State answers carry a bounded
// summary of the response log, never all of it: per flow, the latest flow-level response and the latest
// response of each step. Event counts come from the counts kept beside the event log. Only a guest can have
// been linked, and only a read with a group needs the group's rows: the statement has a variant for each. When the
// catalog's CEL counts events over time, the counts and last times it names come too, after the IDs' parameters.
// Of the counts kept beside the event log, only those of the names the catalog's CEL reads are loaded (see
// countsSql), so a user's many other names cost a read nothing.
const snapshotSql = ({ progress, guest, group, windows, names }: SnapshotVariant) => `
SELECT${progress ? `\n  ${USER_FACTS_JSON_SQL} AS progress,` : ''}${windows ? `\n  ${windowColumnsSql('user', windows.user, '$1', group ? '$3' : '$2')},` : ''}${
  windows && group ? `\n  ${windowColumnsSql('group', windows.group, '$2', '$3')},` : ''
}
  u.properties AS user_properties,
  u.created_at AS user_created_at,
  u.state_version AS user_version,
  ${group ? 'g.state_version' : 'NULL::bigint'} AS group_version,
  ${guest ? '(SELECT user_id FROM guest_links WHERE guest_id = $1)' : 'NULL'} AS linked_to,
  ${countsSql('user', names.user, '$1')} AS user_events,
  (SELECT json_agg(group_id ORDER BY group_id) FROM group_members WHERE user_id = $1) AS user_groups,
  ${group ? 'g.properties' : 'NULL::jsonb'} AS group_properties,
  ${group ? 'g.created_at' : 'NULL::timestamptz'} AS group_created_at,
  ${group ? countsSql('group', names.group, '$2') : 'NULL::json'} AS group_events,
  (SELECT json_agg(json_build_array(flow_slug, current_step_id, started, completed, skipped, last_action_at, reshows))
     FROM flow_states WHERE user_id = $1) AS flows,
  (SELECT json_agg(json_build_array(flow_slug, step_id, started, completed, skipped, data, last_action_at))
     FROM step_states WHERE user_id = $1) AS steps,
  (SELECT json_agg(json_build_array(flow_slug, step_id, action_type, data, created_at) ORDER BY id)
     FROM (SELECT DISTINCT ON (flow_slug, step_key) id, flow_slug, step_id, action_type, data, created_at
           FROM (SELECT id, flow_slug, step_id, action_type, data, created_at,
                        CASE WHEN action_type LIKE '%FLOW' THEN NULL ELSE step_id END AS step_key
                 FROM flow_responses WHERE user_id = $1) AS log
           ORDER BY flow_slug, step_key, id DESC) AS latest) AS responses
FROM (SELECT 1) AS one
LEFT JOIN users u ON u.id = $1${group ? '\nLEFT JOIN groups g ON g.id = $2' : ''}`;

/**
 * The `<scope>_events` column: the kept counts of the names the catalog's CEL reads, each found by the primary key
 * (id, event); every name only when some expression may read any (`size(user.events)`, say), and none when no
 * expression reads `events`. The names are written into the statement, one per catalog, as the windows are; a name
 * no event can have (a NUL) is left out, as PostgreSQL would refuse the statement.
 */
function countsSql(scope: EventScope, set: EventNameSet, id: string): string {
  const [table, key] = scope === 'user' ? ['user_event_counts', 'user_id'] : ['group_event_counts', 'group_id'];
  const names = set.names?.filter(isStorableText);
  if (names?.length === 0) return 'NULL::json';
  const which = names ? ` AND event IN (${names.map(literal).join(', ')})` : '';
  return `(SELECT json_object_agg(event, count) FROM ${table} WHERE ${key} = ${id}${which})`;
}

interface SnapshotVariant {
  progress: boolean;
  guest: boolean;
  group: boolean;
  /** The catalog's events over time, when its CEL asks about any; their read time is the parameter after the IDs. */
  windows: CatalogVersion['eventWindows'];
  /** The names of `events` the catalog's CEL reads. */
  names: CatalogVersion['eventNames'];
}

const SNAPSHOT_SQL = new Map<string, string>();
/** The statement for a read: with the analytics facts (the embedded store, see below) or not, for a guest or not, with a group or not, with events over time or not. */
function snapshotStatement(variant: SnapshotVariant): string {
  const { windows } = variant;
  const { names } = variant;
  const key = `${variant.progress}-${variant.guest}-${variant.group}-${windows ? `${windows.user.key} ${windows.group.key}` : ''}-${names.user.key} ${names.group.key}`;
  let sql = SNAPSHOT_SQL.get(key);
  if (sql === undefined) {
    // A statement per set of windows: forget those of catalogs long replaced.
    if (SNAPSHOT_SQL.size >= 64) SNAPSHOT_SQL.clear();
    SNAPSHOT_SQL.set(key, (sql = snapshotSql(variant)));
  }
  return sql;
}

/** The check of cached rows on PostgreSQL: the user's state version, and the group's when the read names one. */
const USER_VERSION_SQL = 'SELECT state_version AS user_version FROM users WHERE id = $1';
const USER_AND_GROUP_VERSION_SQL =
  'SELECT (SELECT state_version FROM users WHERE id = $1) AS user_version, (SELECT state_version FROM groups WHERE id = $2) AS group_version';

const versionText = (version: string | number | null | undefined): string | null => (version === null || version === undefined ? null : String(version));

/**
 * Loads one user's facts and progress: from the cache when it holds them, otherwise in one statement.
 * On PostgreSQL a cached user (and group) is used only when one primary-key lookup finds its row at the
 * version it was loaded with; another instance's write has moved it on otherwise. The catalog's CEL
 * defaults fill the `flows` map, so every known flow and step can be named in an expression even
 * before the user has touched it. On the embedded store the analytics facts come too when `progress`
 * (a transition records progress with them; by default, loads outside a transaction, which the cache
 * keeps for the user's next transition). `now` is the read's time by the service's clock: CEL's `now`, and the
 * end of every window that eventCount counts in.
 */
export async function loadUserSnapshot(
  db: Queryable,
  userId: string,
  groupId: string | undefined,
  catalog: CatalogVersion,
  { progress = !db.inTransaction, now = new Date(), locale }: { progress?: boolean; now?: Date; locale?: string } = {},
): Promise<UserSnapshot> {
  const cache = db.cache;
  const windows = catalog.eventWindows;
  let user = cache?.user(userId);
  let group = groupId ? cache?.group(groupId) : undefined;
  // Kept counts over time that an event has left since (or that another catalog asked for) are loaded again.
  if (windows && user && !windowsHold(user.windows, windows.user, now)) user = undefined;
  if (windows && group && !windowsHold(group.windows, windows.group, now)) group = undefined;
  // Counts kept for a catalog that read other names are loaded again.
  const names = catalog.eventNames;
  if (user && user.eventsKey !== names.user.key) user = undefined;
  if (group && group.eventsKey !== names.group.key) group = undefined;
  if (cache?.versioned && user && (!groupId || group)) {
    const [row] = groupId
      ? await db.query<VersionRow>(USER_AND_GROUP_VERSION_SQL, [userId, groupId])
      : await db.query<VersionRow>(USER_VERSION_SQL, [userId]);
    const current = versionText(row?.user_version) === user.version && (!groupId || versionText(row?.group_version) === group!.version);
    if (!current) user = group = undefined;
  }
  if (!user || (groupId && !group)) {
    const generation = cache?.begin() ?? 0;
    // Only the embedded store keeps the facts with the user (PostgreSQL reads them under the user's lock).
    const withProgress = cache !== undefined && !cache.versioned && progress;
    const sql = snapshotStatement({ progress: withProgress, guest: isGuestId(userId), group: groupId !== undefined, windows, names });
    const params: unknown[] = groupId !== undefined ? [userId, groupId] : [userId];
    if (windows) params.push(now.toISOString());
    const [row] = await db.query<SnapshotRow>(sql, params);
    // A guest that was linked reads as the user it became.
    if (row.user_properties === null && row.linked_to) return loadUserSnapshot(db, row.linked_to, groupId, catalog, { progress, now, locale });
    user = {
      version: versionText(row.user_version),
      exists: row.user_properties !== null,
      properties: row.user_properties ?? {},
      createdAt: isoOrNull(row.user_created_at),
      events: row.user_events ?? {},
      eventsKey: names.user.key,
      groups: row.user_groups ?? [],
      ...(windows ? { windows: windowsFromRows(windows.user, row.user_window_counts ?? null, row.user_window_last ?? null, now) } : {}),
      // Times as ISO strings once, here: shorter to keep, and nothing to convert on each read.
      flows: (row.flows ?? []).map(([slug, step, started, completed, skipped, at, reshows]) => [slug, step, started, completed, skipped, isoOrNull(at), reshows]),
      steps: (row.steps ?? []).map(([slug, step, started, completed, skipped, data, at]) => [slug, step, started, completed, skipped, data, isoOrNull(at)]),
      responses: (row.responses ?? []).map(([slug, step, action, data, at]) => [slug, step, action, data, new Date(at).toISOString()]),
      ...(withProgress ? { progress: row.progress ?? [] } : {}),
    };
    group = groupId
      ? {
          version: versionText(row.group_version),
          properties: row.group_properties ?? {},
          createdAt: isoOrNull(row.group_created_at),
          events: row.group_events ?? {},
          eventsKey: names.group.key,
          ...(windows ? { windows: windowsFromRows(windows.group, row.group_window_counts ?? null, row.group_window_last ?? null, now) } : {}),
        }
      : undefined;
    // A versioned entry without a row could never be checked, so only rows are kept there. What a transaction
    // loads is not kept: it may roll back, and the cache must hold only what was committed.
    const keep = (rows: { version?: string | null }) => !cache?.versioned || rows.version !== null;
    if (keep(user) && !db.inTransaction) cache?.store(generation, userId, user, groupId && group && keep(group) ? { id: groupId, rows: group } : undefined);
  }
  return buildSnapshot(userId, groupId, user, group, catalog, now, locale);
}

/** A fresh snapshot from loaded rows: new maps and lists, so a transition may change it without touching the cache. */
function buildSnapshot(
  userId: string,
  groupId: string | undefined,
  rows: CachedUser,
  groupRows: CachedGroup | undefined,
  catalog: CatalogVersion,
  now: Date,
  locale: string | undefined,
): UserSnapshot {
  const flows = new Map<string, StoredFlowState>();
  for (const [slug, currentStepId, started, completed, skipped, lastActionAt, reshows] of rows.flows) {
    flows.set(slug, { currentStepId, started, completed, skipped, lastActionAt, reshows });
  }
  const steps = new Map<string, Map<string, StoredStepState>>();
  for (const [slug, stepId, started, completed, skipped, data, lastActionAt] of rows.steps) {
    let byStep = steps.get(slug);
    if (!byStep) steps.set(slug, (byStep = new Map()));
    byStep.set(stepId, { started, completed, skipped, data, lastActionAt });
  }
  const responses = new Map<string, FlowResponse[]>();
  for (const [flowSlug, stepId, actionType, data, createdAt] of rows.responses) {
    let list = responses.get(flowSlug);
    if (!list) responses.set(flowSlug, (list = []));
    list.push({ flowSlug, actionType: actionType as FlowResponse['actionType'], stepId, data, createdAt });
  }
  const user: CelEntity = {
    id: userId,
    isGuest: isGuestId(userId),
    // An unknown user reads as a new one: created now.
    createdAt: rows.createdAt === null ? now : new Date(rows.createdAt),
    properties: rows.properties,
    events: rows.events,
    groups: rows.groups,
    // The read's locale, else the one the page stored on the user: what CEL's user.locale and the content go by.
    locale: locale ?? canonicalLocale(rows.properties.locale) ?? '',
    [EVENT_WINDOWS]: rows.windows ? eventWindows(rows.windows) : NO_EVENT_WINDOWS,
  };
  // Groups do not nest, so a group's own `groups` is empty; listing its members would grow without bound.
  const group: CelEntity =
    groupId && groupRows
      ? {
          id: groupId,
          isGuest: false,
          createdAt: groupRows.createdAt === null ? null : new Date(groupRows.createdAt),
          properties: groupRows.properties,
          events: groupRows.events,
          groups: [],
          [EVENT_WINDOWS]: groupRows.windows ? eventWindows(groupRows.windows) : NO_EVENT_WINDOWS,
        }
      : emptyEntity();
  const snapshot: UserSnapshot = { exists: rows.exists, cel: { user, group, flows: catalog.celFlows as Map<string, CelFlow>, now }, flows, steps, responses };
  if (rows.progress) snapshot.progress = new Map(rows.progress.map((facts) => [facts.flow_slug, facts]));
  if (catalog.celReadsFlows) for (const slug of new Set([...flows.keys(), ...steps.keys()])) refreshCelFlow(snapshot, catalog, slug);
  return snapshot;
}

/** Rebuilds one flow's entry of the CEL `flows` map from the snapshot's stored state (after a load or a change). */
export function refreshCelFlow(snapshot: UserSnapshot, catalog: CatalogVersion, slug: string): void {
  contextChanged(snapshot.cel);
  // No expression of this catalog can tell one user's map from the catalog's.
  if (!catalog.celReadsFlows) return;
  // The catalog's map serves every user who has touched nothing; the first change gets the user a copy.
  if (snapshot.cel.flows === catalog.celFlows) snapshot.cel.flows = new Map(catalog.celFlows);
  const stored = snapshot.flows.get(slug);
  const storedSteps = snapshot.steps.get(slug);
  if (!stored && !storedSteps?.size) {
    const defaults = catalog.celFlows.get(slug);
    if (defaults) snapshot.cel.flows.set(slug, defaults);
    else snapshot.cel.flows.delete(slug);
    return;
  }
  const stepMap: Record<string, { status: string; data: unknown }> = { ...catalog.celFlows.get(slug)?.steps };
  for (const [stepId, step] of storedSteps ?? []) stepMap[stepId] = { status: stepStatusName(step), data: step.data ?? null };
  snapshot.cel.flows.set(slug, { status: flowStatusName(stored), steps: stepMap });
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
