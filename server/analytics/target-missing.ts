// Missing targets: the script's `onboarding:target-missing` tracking events, counted per flow step as the users whose target was missing.
import { TARGET_MISSING_EVENT, type FlowType, type TrackingEvent } from '../../src/api/wire.js';
import type { FlowCatalog } from '../flows/catalog.js';
import type { Queryable } from '../storage/store.js';

/** The flow types whose steps point at an element; reports for other types are not counted. */
const TARGETED_TYPES: ReadonlySet<FlowType> = new Set(['HINT', 'TOOLTIP', 'TOUR']);

/** A step of a served flow whose target a user reported missing, with the flow version being served. */
export interface MissingTarget {
  slug: string;
  version: number;
  stepId: string;
}

/**
 * The steps that `events` report a missing target for, once each: `onboarding:target-missing` events whose
 * `flowSlug` and `stepId` name a step of a TOUR, HINT or TOOLTIP flow of the catalog. Others are left to be
 * stored as ordinary events.
 */
export function missingTargets(catalog: FlowCatalog, events: readonly TrackingEvent[] | undefined): MissingTarget[] {
  const found = new Map<string, MissingTarget>();
  for (const event of events ?? []) {
    if (event.event !== TARGET_MISSING_EVENT) continue;
    const { flowSlug, stepId } = event.properties ?? {};
    if (typeof flowSlug !== 'string' || typeof stepId !== 'string') continue;
    const flow = catalog.get(flowSlug);
    if (!flow || !TARGETED_TYPES.has(flow.flow.type) || !flow.definition.data.steps.some((step) => step.id === stepId))
      continue;
    found.set(JSON.stringify([flowSlug, stepId]), { slug: flowSlug, version: flow.flow.version, stepId });
  }
  return [...found.values()];
}

/** The rollup's change as one data-modifying statement: `rows` yields flow_slug, day, flow_version, step_id and a signed users count. */
const addToRollup = (rows: string) => `
  INSERT INTO analytics_target_missing (flow_slug, day, flow_version, step_id, users)
  SELECT * FROM (${rows}) AS r ORDER BY 1, 2, 3, 4
  ON CONFLICT (flow_slug, day, flow_version, step_id) DO UPDATE SET users = analytics_target_missing.users + EXCLUDED.users`;

/**
 * Records each user once per step, at their first report (the fact), and adds the new facts to the count of that
 * UTC day and flow version (the rollup), in one statement. A step already reported by the user changes nothing.
 * Runs in the write's transaction, after the user's row is locked.
 */
export async function countMissingTargets(
  tx: Queryable,
  userId: string,
  targets: readonly MissingTarget[],
  at: Date,
): Promise<void> {
  if (targets.length === 0) return;
  await tx.query(
    `WITH facts AS (
       INSERT INTO analytics_target_missing_users (user_id, flow_slug, step_id, flow_version, missing_at)
       SELECT $1, t.flow_slug, t.step_id, t.flow_version, $5 FROM unnest($2::text[], $3::text[], $4::int[]) AS t(flow_slug, step_id, flow_version)
       ORDER BY 2, 3
       ON CONFLICT (user_id, flow_slug, step_id) DO NOTHING
       RETURNING flow_slug, step_id, flow_version, missing_at
     ) ${addToRollup(`SELECT flow_slug, (missing_at AT TIME ZONE 'UTC')::date, flow_version, step_id, count(*)::int FROM facts GROUP BY 1, 2, 3, 4`)}`,
    [userId, targets.map((t) => t.slug), targets.map((t) => t.stepId), targets.map((t) => t.version), at.toISOString()],
  );
}

/**
 * Before a guest's facts move to the user it is linked into: a step both reported is counted once, the user's
 * report kept, so the guest's goes and leaves the counts.
 */
export async function mergeMissingTargets(tx: Queryable, userId: string, guestId: string): Promise<void> {
  await tx.query(
    `WITH dropped AS (
       DELETE FROM analytics_target_missing_users g USING analytics_target_missing_users u
       WHERE g.user_id = $2 AND u.user_id = $1 AND u.flow_slug = g.flow_slug AND u.step_id = g.step_id
       RETURNING g.flow_slug, g.step_id, g.flow_version, g.missing_at
     ) ${addToRollup(`SELECT flow_slug, (missing_at AT TIME ZONE 'UTC')::date, flow_version, step_id, -count(*)::int FROM dropped GROUP BY 1, 2, 3, 4`)}`,
    [userId, guestId],
  );
}

/** Takes a user out of the counts, before the user is deleted (the facts go with the user's row). */
export async function forgetMissingTargets(tx: Queryable, userId: string): Promise<void> {
  await tx.query(
    addToRollup(
      `SELECT flow_slug, (missing_at AT TIME ZONE 'UTC')::date, flow_version, step_id, -count(*)::int
       FROM analytics_target_missing_users WHERE user_id = $1 GROUP BY 1, 2, 3, 4`,
    ),
    [userId],
  );
}

/** The rollup as the facts say it should be (what the write path keeps up to date), for checks. */
export const TARGET_MISSING_FROM_FACTS_SQL = `
  SELECT flow_slug, (missing_at AT TIME ZONE 'UTC')::date AS day, flow_version, step_id, count(*)::int AS users
  FROM analytics_target_missing_users GROUP BY 1, 2, 3, 4`;
