// Global frequency limits in a state answer: which of the user's not-yet-started flows a rule of limits.yaml holds back now, and until when.
import type { CatalogLimit, CatalogVersion } from '../flows/catalog.js';
import type { LimitsView } from './limits-view.js';
import type { UserSnapshot } from './snapshot.js';

const NONE: LimitsView = { holds: undefined, until: [] };

/**
 * A flow is shown at its first start. A rule holds back each flow of its set the user has not started (and that does
 * not ignore limits) while, among the user's flows of the set, `max` were first started within the last `per`, or
 * one was first started less than `minGap` ago. Flows already started go on. Worked out once per read.
 */
export function computeLimits(
  version: Pick<CatalogVersion, 'limits' | 'limitsOfFlow'>,
  snapshot: UserSnapshot,
  now: Date,
): LimitsView {
  const { limits } = version;
  if (limits.length === 0) return NONE;
  const memo = (snapshot.memo ??= {});
  if (memo.limits) return memo.limits;
  const at = now.getTime();
  const starts = snapshot.starts;
  let holding = false;
  const until = limits.map((limit) => {
    const end = heldUntil(limit, starts, at);
    if (end > at) holding = true;
    return end;
  });
  const { limitsOfFlow } = version;
  const view: LimitsView = {
    holds: holding
      ? (slug) => {
          const indexes = limitsOfFlow.get(slug);
          if (indexes === undefined || starts?.has(slug)) return false;
          for (const index of indexes) if (until[index] > at) return true;
          return false;
        }
      : undefined,
    until,
  };
  memo.limits = view;
  return view;
}

/** When the rule stops holding (epoch milliseconds): the later of its count's and its gap's ends; -Infinity when neither holds at `at`. */
export function heldUntil(limit: CatalogLimit, starts: ReadonlyMap<string, number> | undefined, at: number): number {
  if (!starts?.size) return Number.NEGATIVE_INFINITY;
  const times: number[] = [];
  for (const [slug, time] of starts) if (limit.members.has(slug)) times.push(time);
  if (times.length === 0) return Number.NEGATIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  if (limit.minGapMs !== undefined) {
    const gapEnd = Math.max(...times) + limit.minGapMs;
    if (gapEnd > at) end = gapEnd;
  }
  if (limit.max !== undefined && limit.perMs !== undefined) {
    // The first starts inside the window (the last `per` up to now; one dated ahead of the clock counts too), oldest first.
    const inside = times.filter((time) => at - time < limit.perMs!).sort((a, b) => a - b);
    // With k inside and k >= max, the rule allows again when k - max + 1 of them have left the window.
    if (inside.length >= limit.max) end = Math.max(end, inside[inside.length - limit.max] + limit.perMs);
  }
  return end;
}
