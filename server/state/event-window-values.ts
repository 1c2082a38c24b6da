// Loads the events over time a catalog's CEL asks about (eventCount, lastEventAt) for one user or group, and says how long they hold.
import type { CachedWindows } from '../storage/snapshot-cache.js';
import type { Queryable } from '../storage/store.js';
import { isStorableText } from '../shared/json-guard.js';
import {
  countKey,
  MAX_EVENT_WINDOW_MS,
  type EventScope,
  type EventWindowSet,
} from '../targeting/event-window-calls.js';
import type { EventWindows } from '../targeting/cel.js';

const LOG: Record<EventScope, { table: string; key: string }> = {
  user: { table: 'user_events', key: 'user_id' },
  group: { table: 'group_events', key: 'group_id' },
};

/** An event name as an SQL string literal (standard strings: only the quote is special). */
export const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** The counts kept beside each scope's event log (and, from migration 19, their latest times). */
export const COUNTS: Record<EventScope, { table: string; key: string }> = {
  user: { table: 'user_event_counts', key: 'user_id' },
  group: { table: 'group_event_counts', key: 'group_id' },
};

/**
 * The `<scope>_window_times` column of the snapshot statement, for the entity's ID (`id`, a parameter): of each name
 * the set counts or asks the last time of, its count and the latest times kept beside it (migration 19), found by the
 * count table's primary key. A read works its windows out of them (windowsFromTimes), so it touches no event log
 * unless a window reaches back past a busy name's kept times. The names are written into the statement, one per
 * catalog; one no event can have (a NUL) is left out, as PostgreSQL would refuse the statement.
 */
export function windowTimesSql(scope: EventScope, set: EventWindowSet, id: string): string {
  const { table, key } = COUNTS[scope];
  const names = [...new Set([...set.counts.map(([event]) => event), ...set.last])].filter(isStorableText);
  const column = `${scope}_window_times`;
  if (!names.length) return `NULL::json AS ${column}`;
  return `(SELECT json_agg(json_build_array(event, count, times)) FROM ${table} WHERE ${key} = ${id} AND event IN (${names.map(literal).join(', ')})) AS ${column}`;
}

/** [event, count of all its events, the latest kept times (epoch ms, oldest first)] */
export type WindowTimesRow = [string, number | string, number[]];

/**
 * What the kept times answer of `set` at `now`, as the rows windowColumnsSql would load (times as epoch ms), and the
 * part of the set they cannot answer: a window that starts before a name's oldest kept time, when older events were
 * not kept. A name with no row has no events.
 */
export function windowsFromTimes(
  set: EventWindowSet,
  rows: WindowTimesRow[] | null,
  now: Date,
): { counts: WindowCountRow[]; last: WindowLastRow[]; missing: EventWindowSet | undefined } {
  const at = now.getTime();
  const byName = new Map<string, { all: boolean; times: number[] }>();
  for (const [event, count, times] of rows ?? []) byName.set(event, { all: times.length >= Number(count), times });
  const firstAfter = (times: number[]) => times.find((t) => t > at) ?? null;
  const counts: WindowCountRow[] = [];
  const last: WindowLastRow[] = [];
  const missing: EventWindowSet = { counts: [], last: [], key: set.key };
  for (const [event, ms] of set.counts) {
    const kept = byName.get(event) ?? { all: true, times: [] };
    const start = at - Math.min(ms, MAX_EVENT_WINDOW_MS);
    // Every event after the oldest kept time is kept: the times answer a window that starts at or after it.
    if (!kept.all && !(kept.times[0] <= start)) {
      missing.counts.push([event, ms]);
      continue;
    }
    const inside = kept.times.filter((t) => t > start && t <= at);
    counts.push([event, ms, inside.length, inside[0] ?? null, firstAfter(kept.times)]);
  }
  for (const event of set.last) {
    const kept = byName.get(event) ?? { all: true, times: [] };
    if (!kept.all && !(kept.times[0] <= at)) {
      missing.last.push(event);
      continue;
    }
    const before = kept.times.filter((t) => t <= at);
    last.push([event, before.length ? before[before.length - 1] : null, firstAfter(kept.times)]);
  }
  return { counts, last, missing: missing.counts.length || missing.last.length ? missing : undefined };
}

/**
 * Two columns, `<scope>_window_counts` and `<scope>_window_last`, for the entity's ID (`id`, a parameter) and the end
 * of the windows (`now`, a parameter: the read's time, by the service's clock), ranged over the event log: what a read
 * loads for the part of its set the kept times cannot answer (windowsFromTimes). A
 * window is (now - window, now], the window cut to MAX_EVENT_WINDOW_MS: timestamps end in 4713 BC, so a longer one
 * that got past the check (the check is newer than some files) would make the statement fail, and every read with
 * it. Each count is a range scan of the (id, event, created_at) index from the window's start, and each last time
 * one step down it (and one up, past now, for a name no window counts); a read never counts a whole history. With each value comes when it will change by itself: the oldest counted event, which leaves the window, and the first event
 * after now (written by a read that raced this one, or ahead of a clock set back), which enters it.
 * The set's events and windows are written into the statement, which is one per catalog: with them as array
 * parameters, the planner could not tell one read's plan from another's and planned the statement again for
 * every read, which cost more than running it.
 */
export function windowColumnsSql(scope: EventScope, set: EventWindowSet, id: string, now: string): string {
  const { table, key } = LOG[scope];
  const at = `${now}::timestamptz`;
  // A name no event can have (a NUL, an unpaired surrogate: the service refuses them in requests) counts none, and
  // PostgreSQL would refuse the statement: it is left out, and reads as a count of 0 or no time.
  const counts = set.counts
    .filter(([event]) => isStorableText(event))
    .map(
      ([
        event,
        ms,
      ]) => `(SELECT json_build_array(${literal(event)}::text, ${ms}::float8, count(*) FILTER (WHERE e.created_at <= ${at}),
       min(e.created_at) FILTER (WHERE e.created_at <= ${at}), min(e.created_at) FILTER (WHERE e.created_at > ${at}))
       FROM ${table} e WHERE e.${key} = ${id} AND e.event = ${literal(event)} AND e.created_at > ${at} - ${Math.min(ms, MAX_EVENT_WINDOW_MS)}::float8 * interval '1 millisecond')`,
    );
  // A count's range runs on past now, so the first event after now of a counted name comes with its count: the last
  // time of such a name takes one range, not two (each is an index descent, about 20 µs a read on the embedded store).
  const counted = new Set(set.counts.map(([event]) => event));
  const last = set.last.filter(isStorableText).map(
    (event) => `json_build_array(${literal(event)}::text,
       (SELECT max(e.created_at) FROM ${table} e WHERE e.${key} = ${id} AND e.event = ${literal(event)} AND e.created_at <= ${at}),
       ${counted.has(event) ? 'NULL::timestamptz' : `(SELECT min(e.created_at) FROM ${table} e WHERE e.${key} = ${id} AND e.event = ${literal(event)} AND e.created_at > ${at})`})`,
  );
  const list = (items: string[]) => (items.length ? `json_build_array(${items.join(',\n  ')})` : 'NULL::json');
  return `${list(counts)} AS ${scope}_window_counts,\n  ${list(last)} AS ${scope}_window_last`;
}

/** [event, window ms, count, oldest counted, first after now (JSON times or epoch ms, or null)] */
export type WindowCountRow = [string, number, number | string, string | number | null, string | number | null];
/** [event, last time up to now, first after now (JSON times or epoch ms, or null; null also for a counted name, whose counts carry it)] */
export type WindowLastRow = [string, string | number | null, string | number | null];

/** A loaded time as epoch milliseconds: kept times are numbers already; the log's come as JSON text. */
const epochMs = (time: string | number): number => (typeof time === 'number' ? time : Date.parse(time));

/** The loaded columns, measured at `now`, as a cache keeps them. */
export function windowsFromRows(
  set: EventWindowSet,
  counts: WindowCountRow[] | null,
  last: WindowLastRow[] | null,
  now: Date,
): CachedWindows {
  let expiresAt: number | null = null;
  const changesAt = (ms: number) => {
    if (expiresAt === null || ms < expiresAt) expiresAt = ms;
  };
  const countEntries: Array<[string, number]> = [];
  for (const [event, ms, n, oldest, next] of counts ?? []) {
    countEntries.push([countKey(event, Number(ms)), Number(n)]);
    // The oldest counted event leaves this window at its time plus the window; the count holds until then.
    if (oldest !== null) changesAt(epochMs(oldest) + Number(ms));
    if (next !== null) changesAt(epochMs(next));
  }
  const lastEntries: Array<[string, string]> = [];
  for (const [event, at, next] of last ?? []) {
    if (at !== null) lastEntries.push([event, new Date(at).toISOString()]);
    if (next !== null) changesAt(epochMs(next));
  }
  return { key: set.key, counts: countEntries, last: lastEntries, loadedAt: now.getTime(), expiresAt };
}

/**
 * One entity's windows at `now`: worked out of its kept times (the snapshot statement's `<scope>_window_times`), and
 * what they cannot answer ranged over the log in one more statement, which a read needs only when a window reaches
 * back past the latest KEPT_EVENT_TIMES events of a name.
 */
export async function loadWindows(
  db: Queryable,
  scope: EventScope,
  set: EventWindowSet,
  id: string,
  rows: WindowTimesRow[] | null,
  now: Date,
): Promise<CachedWindows> {
  const kept = windowsFromTimes(set, rows, now);
  if (!kept.missing) return windowsFromRows(set, kept.counts, kept.last, now);
  const [row] = await db.query<Record<string, unknown>>(`SELECT ${windowColumnsSql(scope, kept.missing, '$1', '$2')}`, [
    id,
    now.toISOString(),
  ]);
  const counts = (row?.[`${scope}_window_counts`] as WindowCountRow[] | null) ?? [];
  const last = (row?.[`${scope}_window_last`] as WindowLastRow[] | null) ?? [];
  return windowsFromRows(set, [...kept.counts, ...counts], [...kept.last, ...last], now);
}

/**
 * Whether kept values still answer for `set` at `now`. A new event drops the entity's entry (and moves its state
 * version on PostgreSQL), so the only other change is the read's time moving: an event leaving a window or one
 * stamped later than the load entering it, when the values expire, or a clock set back before the load.
 */
export function windowsHold(windows: Readonly<CachedWindows> | undefined, set: EventWindowSet, now: Date): boolean {
  const at = now.getTime();
  return (
    windows !== undefined &&
    windows.key === set.key &&
    at >= windows.loadedAt &&
    (windows.expiresAt === null || at < windows.expiresAt)
  );
}

/** The lookups CEL reads, made once per loaded value: a cache entry's windows are shared by its uses and never change. */
const LOOKUPS = new WeakMap<Readonly<CachedWindows>, EventWindows>();

export function eventWindows(windows: Readonly<CachedWindows>): EventWindows {
  let lookups = LOOKUPS.get(windows);
  if (!lookups) {
    lookups = {
      counts: new Map(windows.counts),
      last: new Map(windows.last.map(([event, at]) => [event, new Date(at)])),
    };
    LOOKUPS.set(windows, lookups);
  }
  return lookups;
}
