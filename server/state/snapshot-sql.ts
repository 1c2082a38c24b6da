// The statements a snapshot load runs: the one read of a user's facts and progress (in a variant per kind of read),
// and the version checks of cached rows on PostgreSQL.
import type { FlowResponse } from '../../src/api/wire.js';
import { USER_FACTS_JSON_SQL } from '../analytics/progress.js';
import type { CatalogVersion } from '../flows/catalog.js';
import { isStorableText } from '../shared/json-guard.js';
import type { FactsRow } from '../storage/snapshot-cache.js';
import type { EventNameSet } from '../targeting/event-names.js';
import type { EventScope } from '../targeting/event-window-calls.js';
import { COUNTS, literal, windowTimesSql, type WindowTimesRow } from './event-window-values.js';

export interface SnapshotRow {
  user_properties: Record<string, unknown> | null;
  user_created_at: Date | string | null;
  user_events: Record<string, number> | null;
  user_groups: string[] | null;
  group_properties: Record<string, unknown> | null;
  group_created_at: Date | string | null;
  group_events: Record<string, number> | null;
  /** [flow_slug, current_step_id, started, completed, skipped, last_action_at, reshows]; times as epoch ms (see msOf) */
  flows: Array<[string, string | null, boolean, boolean, boolean, number | null, number]> | null;
  /** [flow_slug, step_id, started, completed, skipped, data, last_action_at] */
  steps: Array<[string, string, boolean, boolean, boolean, unknown, number | null]> | null;
  /** [flow_slug, step_id, action_type, data, created_at], oldest first */
  responses: Array<[string, string, FlowResponse['actionType'], string, number]> | null;
  /** The user a guest was linked into. */
  linked_to: string | null;
  /** [experiment_id, variant, exposed_at]: loaded only while an experiment runs. */
  exposures?: Array<[string, string, string]> | null;
  /** [flow_slug, started_at]: the user's first start of each flow, loaded only while a global limit is in force. */
  starts?: Array<[string, string]> | null;
  /** Loaded only when the catalog's CEL counts events over time (see event-window-values.ts). */
  user_window_times?: WindowTimesRow[] | null;
  group_window_times?: WindowTimesRow[] | null;
  /** Loaded only with the embedded store's cache. */
  progress?: FactsRow[] | null;
  /** The rows' state versions (bigint as text on PostgreSQL); null without a row. */
  user_version: string | number | null;
  group_version: string | number | null;
}

/** What the check of a cached user (and group) reads: each row's state version. */
export interface VersionRow {
  user_version: string | number | null;
  group_version?: string | number | null;
}

/**
 * A time column as epoch milliseconds (the microseconds as its fraction) in the statement's JSON: a timestamp there is
 * written as text in the session's time zone, about 3 µs each inside the embedded store, and parsed again here; a
 * number costs a third of that. Made exact in numeric, then a float8, so a whole millisecond stays whole.
 */
const msOf = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

// Everything a read needs about one user (and their group) in one statement. State answers carry a bounded
// summary of the response log, never all of it: per flow, the latest flow-level response and the latest
// response of each step. Event counts come from the counts kept beside the event log. Only a guest can have
// been linked, and only a read with a group needs the group's rows: the statement has a variant for each. When the
// catalog's CEL counts events over time, the latest times kept beside the counts of the names it asks about come too.
// Of the counts kept beside the event log, only those of the names the catalog's CEL reads are loaded (see
// countsSql), so a user's many other names cost a read nothing.
const snapshotSql = ({ progress, guest, group, windows, names, exposures, starts }: SnapshotVariant) => `
SELECT${progress ? `\n  ${USER_FACTS_JSON_SQL} AS progress,` : ''}${windows ? `\n  ${windowTimesSql('user', windows.user, '$1')},` : ''}${
  windows && group ? `\n  ${windowTimesSql('group', windows.group, '$2')},` : ''
}
  u.properties AS user_properties,
  u.created_at AS user_created_at,
  u.state_version AS user_version,
  ${group ? 'g.state_version' : 'NULL::bigint'} AS group_version,
  ${guest ? '(SELECT user_id FROM guest_links WHERE guest_id = $1)' : 'NULL'} AS linked_to,
  ${countsSql('user', names.user, '$1')} AS user_events,
  (SELECT json_agg(group_id ORDER BY group_id) FROM group_members WHERE user_id = $1) AS user_groups,${
    exposures
      ? '\n  (SELECT json_agg(json_build_array(experiment_id, variant, exposed_at)) FROM experiment_exposures WHERE user_id = $1) AS exposures,'
      : ''
  }${
    starts
      ? '\n  (SELECT json_agg(json_build_array(flow_slug, started_at)) FROM analytics_flow_users WHERE user_id = $1) AS starts,'
      : ''
  }
  ${group ? 'g.properties' : 'NULL::jsonb'} AS group_properties,
  ${group ? 'g.created_at' : 'NULL::timestamptz'} AS group_created_at,
  ${group ? countsSql('group', names.group, '$2') : 'NULL::json'} AS group_events,
  (SELECT json_agg(json_build_array(flow_slug, current_step_id, started, completed, skipped, ${msOf('last_action_at')}, reshows))
     FROM flow_states WHERE user_id = $1) AS flows,
  (SELECT json_agg(json_build_array(flow_slug, step_id, started, completed, skipped, data, ${msOf('last_action_at')}))
     FROM step_states WHERE user_id = $1) AS steps,
  (SELECT json_agg(json_build_array(flow_slug, step_id, action_type, data, ${msOf('created_at')}) ORDER BY response_id)
     FROM flow_latest_responses WHERE user_id = $1) AS responses
FROM (SELECT 1) AS one
LEFT JOIN users u ON u.id = $1${group ? '\nLEFT JOIN groups g ON g.id = $2' : ''}`;

/**
 * The `<scope>_events` column: the kept counts of the names the catalog's CEL reads, each found by the primary key
 * (id, event); every name only when some expression may read any (`size(user.events)`, say), and none when no
 * expression reads `events`. The names are written into the statement, one per catalog, as the windows are; a name
 * no event can have (a NUL) is left out, as PostgreSQL would refuse the statement.
 */
function countsSql(scope: EventScope, set: EventNameSet, id: string): string {
  const { table, key } = COUNTS[scope];
  const names = set.names?.filter(isStorableText);
  if (names?.length === 0) return 'NULL::json';
  const which = names ? ` AND event IN (${names.map(literal).join(', ')})` : '';
  return `(SELECT json_object_agg(event, count) FROM ${table} WHERE ${key} = ${id}${which})`;
}

interface SnapshotVariant {
  progress: boolean;
  guest: boolean;
  group: boolean;
  /** The catalog's events over time, when its CEL asks about any. */
  windows: CatalogVersion['eventWindows'];
  /** The names of `events` the catalog's CEL reads. */
  names: CatalogVersion['eventNames'];
  /** Whether an experiment runs, so the user's exposures are needed. */
  exposures: boolean;
  /** Whether a global limit is in force, so the user's first starts are needed. */
  starts: boolean;
}

const SNAPSHOT_SQL = new Map<string, string>();
/** The statement for a read: with the analytics facts (the embedded store, see below) or not, for a guest or not, with a group or not, with events over time or not. */
export function snapshotStatement(variant: SnapshotVariant): string {
  const { windows } = variant;
  const { names } = variant;
  const key = `${variant.progress}-${variant.guest}-${variant.group}-${variant.exposures}-${variant.starts}-${windows ? `${windows.user.key} ${windows.group.key}` : ''}-${names.user.key} ${names.group.key}`;
  let sql = SNAPSHOT_SQL.get(key);
  if (sql === undefined) {
    // A statement per set of windows: forget those of catalogs long replaced.
    if (SNAPSHOT_SQL.size >= 64) SNAPSHOT_SQL.clear();
    SNAPSHOT_SQL.set(key, (sql = snapshotSql(variant)));
  }
  return sql;
}

/** The check of cached rows on PostgreSQL: the user's state version, and the group's when the read names one. */
export const USER_VERSION_SQL = 'SELECT state_version AS user_version FROM users WHERE id = $1';
export const USER_AND_GROUP_VERSION_SQL =
  'SELECT (SELECT state_version FROM users WHERE id = $1) AS user_version, (SELECT state_version FROM groups WHERE id = $2) AS group_version';
