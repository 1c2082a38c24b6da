// How long a rendered state answer holds with nothing stored changing, and what it was rendered for: so a cached user's repeated read renders nothing.
import type { CatalogVersion } from '../flows/catalog.js';
import type { CacheEntry, SnapshotCache } from '../storage/snapshot-cache.js';
import { emptyEntity, type CelContext, type CelEntity, type CelFlow, type Predicate } from '../targeting/cel.js';
import { groupEntity, type CurrentEntries, type UserSnapshot } from './snapshot.js';
import { collectionFlows, coolOffEnd } from './collections.js';
import { holds, type ReadOptions } from './derive.js';
import { computeLimits } from './limits.js';
import { comesBackAt } from './reshow.js';

/** Where a read's answer is kept with the user's entry: its key, and the group entry it must have been rendered from. */
export interface AnswerSlot {
  key: string;
  group: CacheEntry | undefined;
}

/**
 * What besides the user's rows and the catalog version an answer depends on: the group, the modes, the locale, and
 * which flows' content the client already holds (as one bit per flow: a client's versions map is long, and two
 * that hold the same flows get the same answer). The group counts only through the outcomes of the expressions
 * that read it, so a user read with another group whose outcomes agree gets the same answer; when those outcomes
 * cannot stand for the group, the group's own entry is the key. When the expressions read nothing but the group,
 * their outcomes are worked out from the group's entry alone, once per entry and catalog version, and a read without
 * a group is a read of the empty group: it shares the answer of a group with the same outcomes. Otherwise they are
 * evaluated on the user's `snapshot` (made only then), and a read without a group has a key of its own.
 */
export function answerSlot(
  version: CatalogVersion,
  groupId: string | undefined,
  entries: CurrentEntries,
  snapshot: () => UserSnapshot,
  options: ReadOptions,
  cache: SnapshotCache,
): AnswerSlot {
  let known = '';
  if (options.content !== 'none' && options.knownVersions) {
    for (const flow of version.flows) {
      const value = options.knownVersions[flow.flow.slug];
      // A centre whose blocks are shown on conditions has a hash per set of blocks: the value itself tells answers apart.
      known += flow.blocks.length ? `[${String(value ?? '')}]` : holds(flow, value) ? '1' : '0';
    }
  }
  const modes = [options.content ?? 'all', options.targetedOut ?? 'omit', options.locale ?? '', known];
  const conditions = version.groupConditions;
  if (conditions?.groupOnly && (groupId === undefined || entries.group))
    return {
      key: JSON.stringify([groupOutcomes(version, conditions.predicates, cache, groupId, entries.group), ...modes]),
      group: undefined,
    };
  if (groupId === undefined) return { key: JSON.stringify([null, ...modes]), group: undefined };
  if (conditions === null) return { key: JSON.stringify([`id ${groupId}`, ...modes]), group: entries.group };
  return { key: JSON.stringify([outcomesIn(conditions.predicates, snapshot().cel), ...modes]), group: undefined };
}

const outcomesIn = (predicates: Predicate[], context: CelContext) => {
  let outcomes = 'outcomes ';
  for (const predicate of predicates) outcomes += predicate(context) ? '1' : '0';
  return outcomes;
};

/** The outcomes of a catalog's group-only expressions, by the group's cache entry (a load makes a new one). */
const GROUP_OUTCOMES = new WeakMap<CacheEntry, { version: CatalogVersion; outcomes: string }>();
/** Theirs for the empty group, a read without one, by catalog version. */
const NO_GROUP_OUTCOMES = new WeakMap<CatalogVersion, string>();
/** What stands for the clock in a context of the group alone: none of its expressions names `now`. */
const NO_TIME = new Date(0);

/** A context of the group alone, made only when outcomes are worked out (not on a read that finds them kept). */
const groupContext = (version: CatalogVersion, group: CelEntity): CelContext => ({
  user: emptyEntity(),
  group,
  flows: version.celFlows as Map<string, CelFlow>,
  now: NO_TIME,
});

function groupOutcomes(
  version: CatalogVersion,
  predicates: Predicate[],
  cache: SnapshotCache,
  groupId: string | undefined,
  entry: CacheEntry | undefined,
): string {
  if (groupId === undefined || !entry) {
    let outcomes = NO_GROUP_OUTCOMES.get(version);
    if (outcomes === undefined)
      NO_GROUP_OUTCOMES.set(version, (outcomes = outcomesIn(predicates, groupContext(version, emptyEntity()))));
    return outcomes;
  }
  const kept = GROUP_OUTCOMES.get(entry);
  if (kept?.version === version) return kept.outcomes;
  const outcomes = outcomesIn(predicates, groupContext(version, groupEntity(groupId, cache.groupRows(entry))));
  GROUP_OUTCOMES.set(entry, { version, outcomes });
  return outcomes;
}

/**
 * When (epoch milliseconds) an answer derived from `snapshot` at `now` can first change by the clock alone: a
 * collection's cool-off ends, a global limit or a schedule lets a flow through or stops it, a dismissed flow comes back, or a rule that compares `now` with a time crosses it.
 * Events leaving eventCount's windows are not here: they expire the cached rows themselves (windowsHold).
 * Infinity when nothing does. Undefined when it cannot be told, and the answer is not kept: a rule reads `now` in
 * another way, or the user has no row (an unknown user's createdAt is the read's time).
 */
export function answerHoldsUntil(version: CatalogVersion, snapshot: UserSnapshot, now: Date): number | undefined {
  if (!snapshot.exists || version.nowInstants === null) return undefined;
  const at = now.getTime();
  let until = Number.POSITIVE_INFINITY;
  // An instant at the read's time itself counts: `now <= t` still holds at t, and not a millisecond later.
  const changesAt = (time: number) => {
    if (time >= at && time < until) until = time;
  };
  for (const collection of version.collections)
    changesAt(coolOffEnd(collection, collectionFlows(collection, version.bySlug), snapshot));
  // A global limit lets its flows through again; a schedule opens or closes.
  for (const end of computeLimits(version, snapshot, now).until) changesAt(end);
  for (const moment of version.scheduleMoments) changesAt(moment);
  for (const [slug, stored] of snapshot.flows) {
    const flow = version.bySlug.get(slug);
    const back = flow && comesBackAt(flow, stored);
    if (back !== undefined) changesAt(back);
  }
  for (const instant of version.nowInstants) {
    // One that fails, or is no time, marks no change: the ordering it comes from fails whatever the clock says
    // (see targeting/now-bounds.ts).
    let value: unknown;
    try {
      value = instant(snapshot.cel);
    } catch {
      continue;
    }
    if (value instanceof Date && !Number.isNaN(value.getTime())) changesAt(value.getTime());
  }
  return until;
}
