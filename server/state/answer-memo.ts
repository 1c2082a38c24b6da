// How long a rendered state answer holds with nothing stored changing, and what it was rendered for: so a cached user's repeated read renders nothing.
import type { CatalogVersion } from '../flows/catalog.js';
import type { CacheEntry } from '../storage/snapshot-cache.js';
import type { CurrentEntries, UserSnapshot } from './snapshot.js';
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
 * that read it (`snapshot` is made to evaluate them only then), so a user read with another group whose outcomes
 * agree gets the same answer; when those outcomes cannot stand for the group, the group's own entry is the key.
 */
export function answerSlot(
  version: CatalogVersion,
  groupId: string | undefined,
  entries: CurrentEntries,
  snapshot: () => UserSnapshot,
  options: ReadOptions,
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
  if (groupId === undefined) return { key: JSON.stringify([null, ...modes]), group: undefined };
  const conditions = version.groupConditions;
  if (conditions === null) return { key: JSON.stringify([`id ${groupId}`, ...modes]), group: entries.group };
  const { cel } = snapshot();
  let outcomes = 'outcomes ';
  for (const condition of conditions) outcomes += condition(cel) ? '1' : '0';
  return { key: JSON.stringify([outcomes, ...modes]), group: undefined };
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
