// Loads what targeting and state derivation need about one user: entity facts for CEL plus stored flow progress.
import type { FlowResponse } from '../../src/api/wire.js';
import type { FactsRow } from '../storage/snapshot-cache.js';
import type { CatalogFlow, CatalogVersion } from '../flows/catalog.js';
import type { ExperimentsView } from './experiments-view.js';
import type { LimitsView } from './limits-view.js';
import type { Queryable } from '../storage/store.js';
import type { CacheEntry, CachedGroup, CachedUser, SnapshotCache } from '../storage/snapshot-cache.js';
import {
  contextChanged,
  emptyEntity,
  EVENT_WINDOWS,
  NO_EVENT_WINDOWS,
  type CelContext,
  type CelFlow,
  type CelEntity,
  type FlowStatusName,
} from '../targeting/cel.js';
import { canonicalLocale } from '../flows/translations.js';
import { eventWindows, loadWindows, windowsHold } from './event-window-values.js';
import {
  snapshotStatement,
  USER_AND_GROUP_VERSION_SQL,
  USER_VERSION_SQL,
  type SnapshotRow,
  type VersionRow,
} from './snapshot-sql.js';

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

/** A user's recorded exposure to an experiment (state/experiments.ts). */
export interface StoredExposure {
  variant: string;
  /** ISO time. */
  exposedAt: string;
  /** Its fields in a state answer's `experiments`, as JSON text without braces, once made. */
  json?: string;
}

/** One object per cached exposure row, shared by every read of it (its JSON text is made once). */
const STORED = new WeakMap<readonly [string, string, string], StoredExposure>();

function storedExposure(row: [string, string, string]): StoredExposure {
  let stored = STORED.get(row);
  if (!stored) STORED.set(row, (stored = { variant: row[1], exposedAt: row[2] }));
  return stored;
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
  /** experiment id → the user's exposure; loaded while an experiment runs. */
  exposures?: Map<string, StoredExposure>;
  /** flow slug → the user's first start of it (epoch milliseconds); loaded while a global limit is in force. */
  starts?: Map<string, number>;
  /**
   * What one read works out from the snapshot once, for each of its steps (recording exposures, then the answer):
   * the user's eligibility for each flow, and the experiments' view. A transition changes its snapshot before it first
   * asks; recording an exposure drops the view.
   */
  memo?: { eligible?: (flow: CatalogFlow) => boolean; experiments?: ExperimentsView; limits?: LimitsView };
}

export const isGuestId = (id: string) => id.startsWith('guest_');

/**
 * Stored rows come back as Dates, or through JSON as epoch milliseconds (the statement's msOf) or strings such as
 * 2026-03-01T09:30:00.123456+00:00; as ISO strings to the millisecond, the microseconds cut off either way.
 */
const isoOrNull = (value: Date | string | number | null) => (value === null ? null : new Date(value).toISOString());

const versionText = (version: string | number | null | undefined): string | null =>
  version === null || version === undefined ? null : String(version);

/**
 * Loads one user's facts and progress: from the cache when it holds them, otherwise in one statement.
 * On PostgreSQL a cached user (and group) is used only when one primary-key lookup finds its row at the
 * version it was loaded with; another instance's write has moved it on otherwise. The catalog's CEL
 * defaults fill the `flows` map, so every known flow and step can be named in an expression even
 * before the user has touched it. On the embedded store the analytics facts come too when `progress`
 * (a transition records progress with them; by default, loads outside a transaction while the cache keeps
 * users, as it keeps them for the user's next transition: with the cache off, nothing would). `now` is the read's
 * time by the service's clock: CEL's `now`, and the end of every window that eventCount counts in.
 */
/** A user's cache entry, and the group's when the read names one, as checked current for a read. */
export interface CurrentEntries {
  user: CacheEntry;
  group: CacheEntry | undefined;
}

/**
 * The cached user (and group) if they still answer for this catalog at `now`; undefined when they must be loaded.
 * Kept counts over time that an event has left since, or counts kept for a catalog that asked about other events
 * or names, are loaded again. On PostgreSQL, a primary-key lookup checks both rows' versions.
 */
export async function currentEntries(
  db: Queryable,
  userId: string,
  groupId: string | undefined,
  catalog: CatalogVersion,
  now: Date,
): Promise<CurrentEntries | undefined> {
  const cache = db.cache;
  const user = cache?.userEntry(userId);
  if (!cache || !user) return undefined;
  const group = groupId === undefined ? undefined : cache.groupEntry(groupId);
  if (groupId !== undefined && !group) return undefined;
  const windows = catalog.eventWindows;
  if (windows && !windowsHold(user.windows, windows.user, now)) return undefined;
  if (windows && group && !windowsHold(group.windows, windows.group, now)) return undefined;
  const names = catalog.eventNames;
  if (user.eventsKey !== names.user.key || (group && group.eventsKey !== names.group.key)) return undefined;
  // Rows kept while no experiment ran lack the exposures.
  if (catalog.readsExposures && !user.exposures) return undefined;
  // And rows kept while no limit was in force lack the first starts.
  if (catalog.readsStarts && !user.starts) return undefined;
  if (cache.versioned) {
    const [row] = groupId
      ? await db.query<VersionRow>(USER_AND_GROUP_VERSION_SQL, [userId, groupId])
      : await db.query<VersionRow>(USER_VERSION_SQL, [userId]);
    const current =
      versionText(row?.user_version) === user.version && (!group || versionText(row?.group_version) === group.version);
    if (!current) return undefined;
  }
  return { user, group };
}

/** The snapshot of entries that `currentEntries` found current. */
export function snapshotFromCache(
  cache: SnapshotCache,
  { user, group }: CurrentEntries,
  userId: string,
  groupId: string | undefined,
  catalog: CatalogVersion,
  now: Date,
  locale: string | undefined,
): UserSnapshot {
  const groupRows = group && cache.groupRows(group);
  return buildSnapshot(userId, groupId, cache.userRows(user), groupRows, catalog, now, locale);
}

export async function loadUserSnapshot(
  db: Queryable,
  userId: string,
  groupId: string | undefined,
  catalog: CatalogVersion,
  {
    progress = !db.inTransaction && db.cache?.enabled === true,
    now = new Date(),
    locale,
    onStored,
    cacheChecked = false,
  }: {
    progress?: boolean;
    now?: Date;
    locale?: string;
    /** Called with the cache entries the loaded rows were kept as, when they were (by this call, not a linked user's). */
    onStored?: (entries: CurrentEntries) => void;
    /** The caller has just found no current cache entry (currentEntries), so the rows are loaded without looking again. */
    cacheChecked?: boolean;
  } = {},
): Promise<UserSnapshot> {
  const cache = db.cache;
  const cached = cacheChecked ? undefined : await currentEntries(db, userId, groupId, catalog, now);
  if (cache && cached) return snapshotFromCache(cache, cached, userId, groupId, catalog, now, locale);
  const windows = catalog.eventWindows;
  const names = catalog.eventNames;
  const generation = cache?.begin() ?? 0;
  // Only the embedded store keeps the facts with the user (PostgreSQL reads them under the user's lock).
  const withProgress = cache !== undefined && !cache.versioned && progress;
  const sql = snapshotStatement({
    progress: withProgress,
    guest: isGuestId(userId),
    group: groupId !== undefined,
    windows,
    names,
    exposures: catalog.readsExposures,
    // The analytics facts hold the first starts: loaded with them, they are not read twice.
    starts: catalog.readsStarts && !withProgress,
  });
  const params: unknown[] = groupId !== undefined ? [userId, groupId] : [userId];
  const [row] = await db.query<SnapshotRow>(sql, params);
  // A guest that was linked reads as the user it became.
  if (row.user_properties === null && row.linked_to)
    return loadUserSnapshot(db, row.linked_to, groupId, catalog, { progress, now, locale });
  const user: CachedUser = {
    version: versionText(row.user_version),
    exists: row.user_properties !== null,
    properties: row.user_properties ?? {},
    createdAt: isoOrNull(row.user_created_at),
    events: row.user_events ?? {},
    eventsKey: names.user.key,
    groups: row.user_groups ?? [],
    ...(windows
      ? { windows: await loadWindows(db, 'user', windows.user, userId, row.user_window_times ?? null, now) }
      : {}),
    // Times as ISO strings once, here: shorter to keep, and nothing to convert on each read.
    flows: (row.flows ?? []).map(([slug, step, started, completed, skipped, at, reshows]) => [
      slug,
      step,
      started,
      completed,
      skipped,
      isoOrNull(at),
      reshows,
    ]),
    steps: (row.steps ?? []).map(([slug, step, started, completed, skipped, data, at]) => [
      slug,
      step,
      started,
      completed,
      skipped,
      data,
      isoOrNull(at),
    ]),
    responses: (row.responses ?? []).map(([slug, step, action, data, at]) => [
      slug,
      step,
      action,
      data,
      new Date(at).toISOString(),
    ]),
    ...(withProgress ? { progress: row.progress ?? [] } : {}),
    ...(catalog.readsExposures
      ? {
          exposures: (row.exposures ?? []).map(([experiment, variant, at]): [string, string, string] => [
            experiment,
            variant,
            new Date(at).toISOString(),
          ]),
        }
      : {}),
    ...(catalog.readsStarts
      ? {
          starts: withProgress
            ? (row.progress ?? []).map((facts): [string, string] => [
                facts.flow_slug,
                new Date(facts.started_at).toISOString(),
              ])
            : (row.starts ?? []).map(([slug, at]): [string, string] => [slug, new Date(at).toISOString()]),
        }
      : {}),
  };
  const group: CachedGroup | undefined = groupId
    ? {
        version: versionText(row.group_version),
        properties: row.group_properties ?? {},
        createdAt: isoOrNull(row.group_created_at),
        events: row.group_events ?? {},
        eventsKey: names.group.key,
        ...(windows
          ? { windows: await loadWindows(db, 'group', windows.group, groupId, row.group_window_times ?? null, now) }
          : {}),
      }
    : undefined;
  // A versioned entry without a row could never be checked, so only rows are kept there. What a transaction
  // loads is not kept: it may roll back, and the cache must hold only what was committed.
  const keep = (rows: { version?: string | null }) => !cache?.versioned || rows.version !== null;
  if (keep(user) && !db.inTransaction) {
    const stored = cache?.store(
      generation,
      userId,
      user,
      groupId && group && keep(group) ? { id: groupId, rows: group } : undefined,
    );
    if (stored && (groupId === undefined || stored.group)) onStored?.(stored);
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
    if (!byStep) steps.set(slug, (byStep = new Map<string, StoredStepState>()));
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
  const group = groupId && groupRows ? groupEntity(groupId, groupRows) : emptyEntity();
  const snapshot: UserSnapshot = {
    exists: rows.exists,
    cel: { user, group, flows: catalog.celFlows as Map<string, CelFlow>, now },
    flows,
    steps,
    responses,
  };
  if (rows.progress) snapshot.progress = new Map(rows.progress.map((facts) => [facts.flow_slug, facts]));
  if (rows.exposures) snapshot.exposures = new Map(rows.exposures.map((row) => [row[0], storedExposure(row)]));
  if (rows.starts) snapshot.starts = new Map(rows.starts.map(([slug, at]) => [slug, Date.parse(at)]));
  if (catalog.celReadsFlows)
    for (const slug of new Set([...flows.keys(), ...steps.keys()])) refreshCelFlow(snapshot, catalog, slug);
  return snapshot;
}

/** The group as CEL's `group` reads it. Groups do not nest, so its own `groups` is empty; listing its members would grow without bound. */
export function groupEntity(groupId: string, rows: CachedGroup): CelEntity {
  return {
    id: groupId,
    isGuest: false,
    createdAt: rows.createdAt === null ? null : new Date(rows.createdAt),
    properties: rows.properties,
    events: rows.events,
    groups: [],
    [EVENT_WINDOWS]: rows.windows ? eventWindows(rows.windows) : NO_EVENT_WINDOWS,
  };
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
  for (const [stepId, step] of storedSteps ?? [])
    stepMap[stepId] = { status: stepStatusName(step), data: step.data ?? null };
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
