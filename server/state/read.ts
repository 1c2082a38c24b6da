// Reads one user's state in every flow.
import type { FlowStatesResponse } from '../../src/api/wire.js';
import type { CatalogVersion, FlowCatalog } from '../flows/catalog.js';
import type { CacheEntry } from '../storage/snapshot-cache.js';
import type { Queryable } from '../storage/store.js';
import {
  currentEntries,
  loadUserSnapshot,
  snapshotFromCache,
  type CurrentEntries,
  type UserSnapshot,
} from './snapshot.js';
import { ownedParts, RawJson } from '../shared/raw-json.js';
import { deriveFlowStates, eligibility, renderFlowStateParts, type AnswerTally, type ReadOptions } from './derive.js';
import { computeExperiments, recordExposures } from './experiments.js';
import { answerHoldsUntil, answerSlot } from './answer-memo.js';

export async function readFlowStates(
  db: Queryable,
  catalog: FlowCatalog,
  userId: string,
  groupId?: string,
  options: ReadOptions = {},
): Promise<FlowStatesResponse> {
  const version = catalog.current();
  const now = options.now ?? new Date();
  const snapshot = await loadUserSnapshot(db, userId, groupId, version, { now, locale: options.locale });
  await recordNewExposures(db, version, snapshot, now);
  return deriveFlowStates(version, snapshot, { ...options, now });
}

/**
 * The first answer that finds the user in a running experiment's audience records the exposure (experiments.ts),
 * before it is rendered, so the answer (and any kept with the cached rows) lists it. `cached`: the cached rows' list.
 */
export async function recordNewExposures(
  db: Queryable,
  version: CatalogVersion,
  snapshot: UserSnapshot,
  now: Date,
  cached?: CacheEntry,
): Promise<void> {
  if (!version.readsExposures) return;
  const { unrecorded } = computeExperiments(version, snapshot, eligibility(snapshot));
  if (unrecorded.length) await recordExposures(db, snapshot, unrecorded, now, cached?.exposures);
}

/**
 * The same read, as the JSON text a route sends. For a cached user, the answer is kept with the cached rows until
 * the clock alone could change it (answer-memo.ts), so a repeated read of the same user and modes renders nothing.
 */
export async function readFlowStatesJson(
  db: Queryable,
  catalog: FlowCatalog,
  userId: string,
  groupId?: string,
  options: ReadOptions = {},
): Promise<RawJson> {
  const version = catalog.current();
  const now = options.now ?? new Date();
  const cache = db.cache;
  // What a transaction reads is not kept: it may roll back.
  if (!cache || db.inTransaction) {
    const snapshot = await loadUserSnapshot(db, userId, groupId, version, { now, locale: options.locale });
    await recordNewExposures(db, version, snapshot, now);
    return new RawJson(renderFlowStateParts(version, snapshot, { ...options, now }));
  }
  let entries = await currentEntries(db, userId, groupId, version, now);
  let snapshot: UserSnapshot | undefined;
  const cachedSnapshot = (current: CurrentEntries) => () =>
    (snapshot ??= snapshotFromCache(cache, current, userId, groupId, version, now, options.locale));
  let slot = entries && answerSlot(version, groupId, entries, cachedSnapshot(entries), options, cache);
  const kept = entries && slot && cache.answer(entries.user, slot.group, version, slot.key, now.getTime());
  if (kept) return kept;
  if (!entries) {
    const loaded = await loadUserSnapshot(db, userId, groupId, version, {
      now,
      locale: options.locale,
      // The rows just loaded, as the cache keeps them: the answer is kept with them from the first read on.
      onStored: (stored) => (entries = stored),
      cacheChecked: true,
    });
    snapshot = loaded;
    if (entries) slot = answerSlot(version, groupId, entries, () => loaded, options, cache);
  }
  const rendered = snapshot ?? cachedSnapshot(entries!)();
  await recordNewExposures(db, version, rendered, now, entries?.user);
  const tally: AnswerTally = { bytes: 0, made: [] };
  const json = new RawJson(renderFlowStateParts(version, rendered, { ...options, now }, tally));
  const until = entries && answerHoldsUntil(version, rendered, now);
  if (entries && slot && until !== undefined) {
    // The parts list itself, beside the bytes made for this read.
    const bytes = tally.bytes + 8 * json.parts.length + slot.key.length + 200;
    const kept = ownedParts(json, tally.made);
    cache.keepAnswer(entries.user, slot.group, version, slot.key, { from: now.getTime(), until, bytes }, kept);
  }
  return json;
}
