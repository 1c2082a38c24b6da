// Reads one user's state in every flow.
import type { FlowStatesResponse } from '../../src/api/wire.js';
import type { FlowCatalog } from '../flows/catalog.js';
import type { Queryable } from '../storage/store.js';
import { loadUserSnapshot } from './snapshot.js';
import { RawJson } from '../shared/raw-json.js';
import { deriveFlowStates, renderFlowStateParts, type ReadOptions } from './derive.js';

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
  return deriveFlowStates(version, snapshot, { ...options, now });
}

/** The same read, as the JSON text a route sends. */
export async function readFlowStatesJson(
  db: Queryable,
  catalog: FlowCatalog,
  userId: string,
  groupId?: string,
  options: ReadOptions = {},
): Promise<RawJson> {
  const version = catalog.current();
  const now = options.now ?? new Date();
  const snapshot = await loadUserSnapshot(db, userId, groupId, version, { now, locale: options.locale });
  return new RawJson(renderFlowStateParts(version, snapshot, { ...options, now }));
}
