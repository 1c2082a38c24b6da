// Loads the events over time a catalog's CEL asks about (eventCount, lastEventAt) for one user or group, and says how long they hold.
import type { CachedWindows } from '../storage/snapshot-cache.js';
import { countKey, type EventScope, type EventWindowSet } from '../targeting/event-windows.js';
import type { EventWindows } from '../targeting/cel.js';

const LOG: Record<EventScope, { table: string; key: string }> = {
  user: { table: 'user_events', key: 'user_id' },
  group: { table: 'group_events', key: 'group_id' },
};

/**
 * Two columns of the snapshot statement, `<scope>_window_counts` and `<scope>_window_last`, for the parameters at
 * `first` onwards: the entity's ID ($id), the end of the window (now, as the service's clock has it), the counted
 * events and their windows in milliseconds, and the events whose last time is asked. Each count is a range scan of
 * the (id, event, created_at) index over the window alone, and each last time one step down it; a read never counts
 * a whole history. With each count comes the oldest counted event, which is when the count will change by itself.
 */
export function windowColumnsSql(scope: EventScope, id: string, first: number): string {
  const { table, key } = LOG[scope];
  const [now, events, windows, last] = [first, first + 1, first + 2, first + 3].map((n) => `$${n}`);
  return `(SELECT json_agg(json_build_array(w.event, w.ms, c.n, c.oldest))
     FROM unnest(${events}::text[], ${windows}::float8[]) AS w(event, ms)
     CROSS JOIN LATERAL (SELECT count(*) AS n, min(e.created_at) AS oldest FROM ${table} e
       WHERE e.${key} = ${id} AND e.event = w.event AND e.created_at > ${now}::timestamptz - w.ms * interval '1 millisecond') AS c) AS ${scope}_window_counts,
  (SELECT json_agg(json_build_array(l.event, (SELECT max(e.created_at) FROM ${table} e WHERE e.${key} = ${id} AND e.event = l.event)))
     FROM unnest(${last}::text[]) AS l(event)) AS ${scope}_window_last`;
}

/** The parameters windowColumnsSql reads, in its order. */
export function windowParams(set: EventWindowSet, now: Date): unknown[] {
  return [now.toISOString(), set.counts.map(([event]) => event), set.counts.map(([, ms]) => ms), set.last];
}

/** [event, window ms, count, oldest counted (JSON time or null)] */
export type WindowCountRow = [string, number, number | string, string | null];
/** [event, last time (JSON time or null)] */
export type WindowLastRow = [string, string | null];

/** The loaded columns as a cache keeps them. */
export function windowsFromRows(set: EventWindowSet, counts: WindowCountRow[] | null, last: WindowLastRow[] | null): CachedWindows {
  let expiresAt: number | null = null;
  const countEntries: Array<[string, number]> = [];
  for (const [event, ms, n, oldest] of counts ?? []) {
    countEntries.push([countKey(event, Number(ms)), Number(n)]);
    // The oldest counted event leaves this window at its time plus the window; the count holds until then.
    if (oldest !== null) {
      const leaves = new Date(oldest).getTime() + Number(ms);
      if (expiresAt === null || leaves < expiresAt) expiresAt = leaves;
    }
  }
  const lastEntries = (last ?? []).filter((row): row is [string, string] => row[1] !== null).map(([event, at]) => [event, new Date(at).toISOString()] as [string, string]);
  return { key: set.key, counts: countEntries, last: lastEntries, expiresAt };
}

/**
 * Whether kept values still answer for `set` at `now`. A new event drops the entity's entry (and moves its state
 * version on PostgreSQL), so the only other change is an event leaving a window; at that time, the values expire.
 */
export function windowsHold(windows: CachedWindows | undefined, set: EventWindowSet, now: Date): boolean {
  return windows !== undefined && windows.key === set.key && (windows.expiresAt === null || now.getTime() < windows.expiresAt);
}

export function eventWindows(windows: CachedWindows): EventWindows {
  return { counts: new Map(windows.counts), last: new Map(windows.last.map(([event, at]) => [event, new Date(at)])) };
}
