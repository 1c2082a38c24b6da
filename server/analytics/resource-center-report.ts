// A resource centre's report: its opens, the clicks on its items and the searches that found nothing, from its tracked events.
import { RESOURCE_CENTER_EVENT, type NoResultSearch, type ResourceCenterClicks } from '../../src/api/wire.js';
import type { Queryable } from '../storage/store.js';
import type { AnalyticsWindow } from './window.js';

/** The longest query kept, in characters, once normalised; a longer one is cut (what users type past it tells little). */
export const MAX_SEARCH_QUERY = 100;
/** Most queries that found nothing a report lists, most users first. */
export const MAX_NO_RESULT_SEARCHES = 100;

/**
 * A query as reports group it, in SQL (`column` holds the text): trimmed, lower case, runs of white space as one
 * space, cut at MAX_SEARCH_QUERY characters, so "  Export CSV" and "export  csv" are one gap in the content.
 */
const normalisedQuery = (column: string) =>
  `left(regexp_replace(lower(btrim(${column})), '\\s+', ' ', 'g'), ${MAX_SEARCH_QUERY})`;

/** The centre's events in the window: `$1` the slug, `$2` and `$3` the window's ends (the partial index's range). */
const IN_WINDOW = `event = '${RESOURCE_CENTER_EVENT}' AND properties->>'flow' = $1 AND created_at >= $2 AND created_at < $3`;

/**
 * The clicks per block and item and the searches that found nothing, among the centre's events in the window (by the
 * time each was tracked). Events are counted as the page tracked them; one whose `block` is not a string is not counted.
 */
export async function resourceCenterReport(
  db: Queryable,
  slug: string,
  window: AnalyticsWindow,
): Promise<{ clicks: ResourceCenterClicks[]; noResultSearches: NoResultSearch[] }> {
  const params = [slug, window.from.toISOString(), window.to.toISOString()];
  const clicks = await db.query<{ block: string; item: string | null; clicks: number; users: number }>(
    `SELECT block, item, count(*)::int AS clicks, count(DISTINCT user_id)::int AS users FROM (
       SELECT user_id, properties->>'block' AS block, properties->>'item' AS item FROM user_events
       WHERE ${IN_WINDOW} AND properties->>'action' = 'click' AND jsonb_typeof(properties->'block') = 'string'
     ) AS c
     GROUP BY block, item ORDER BY clicks DESC, block COLLATE "C", item COLLATE "C" NULLS FIRST`,
    params,
  );
  const searches = await db.query<{ query: string; users: number }>(
    `SELECT query, count(DISTINCT user_id)::int AS users FROM (
       SELECT user_id, ${normalisedQuery(`properties->>'query'`)} AS query FROM user_events
       WHERE ${IN_WINDOW} AND properties->>'action' = 'search'
         AND jsonb_typeof(properties->'query') = 'string' AND properties->'results' = '0'::jsonb
     ) AS s WHERE query <> ''
     GROUP BY query ORDER BY users DESC, query COLLATE "C" LIMIT ${MAX_NO_RESULT_SEARCHES}`,
    params,
  );
  return { clicks, noResultSearches: searches };
}
