// Which flows a page placed elements for, so auto-mount never adds a second element for the same flow.
import { atom } from 'nanostores';

/** Slug → number of connected elements the page placed (auto-mounted ones are not counted). */
export const $placedFlows = atom<Record<string, number>>({});

/** Elements created by auto-mount. */
export const autoMounted = new WeakSet<Element>();

export function notePlaced(slug: string, delta: 1 | -1): void {
  if (!slug) return;
  const counts = { ...$placedFlows.get() };
  const count = (counts[slug] ?? 0) + delta;
  if (count > 0) counts[slug] = count;
  else delete counts[slug];
  $placedFlows.set(counts);
}
