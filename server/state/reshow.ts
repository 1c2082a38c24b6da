// Flows that come back (reshow): whether a dismissed flow shows again now, from its stored row and the clock.
import type { CatalogFlow } from '../flows/catalog.js';
import type { StoredFlowState } from './snapshot.js';

/**
 * A flow with `reshow` comes back when the user dismissed it (and never completed it), `after` has passed since
 * the dismissal (the row's last action: a dismissed flow takes no other action), and it came back fewer than
 * `times` times before.
 */
export function comesBack(flow: CatalogFlow, stored: StoredFlowState | undefined, now: Date): boolean {
  const at = comesBackAt(flow, stored);
  return at !== undefined && at <= now.getTime();
}

/** When (epoch milliseconds) the dismissed flow comes back; undefined when it never does, as stored. */
export function comesBackAt(flow: CatalogFlow, stored: StoredFlowState | undefined): number | undefined {
  const reshow = flow.definition.reshow;
  if (!reshow || !stored?.skipped || stored.completed || stored.lastActionAt === null) return undefined;
  return stored.reshows < reshow.times ? Date.parse(stored.lastActionAt) + reshow.afterMs : undefined;
}
