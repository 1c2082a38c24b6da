// Collections in a state answer: which flow of each collection the user sees now, from stored state, its times and the clock.
import type { ComputedCollectionFlow } from '../../src/api/wire.js';
import type { CatalogFlow, CatalogVersion } from '../flows/catalog.js';
import type { Collection } from '../flows/collections.js';
import type { UserSnapshot } from './context.js';
import { comesBack } from './reshow.js';

export interface CollectionsView {
  /** The answer's `collections.computedOrder`. */
  computedOrder: ComputedCollectionFlow[];
  /** The same as JSON, joined from each entry's text, made once per collection version, flow and visibility. */
  computedOrderJson: string;
  /** Slugs of eligible, unfinished flows a collection holds back: their `$state.visible` is false. */
  held: Set<string>;
}

const NONE: CollectionsView = { computedOrder: [], computedOrderJson: '[]', held: new Set() };

/** Each collection's entries as JSON, by flow slug: [hidden, visible]. A catalog reload makes new collections. */
const ENTRY_JSON = new WeakMap<Collection, Map<string, [string, string]>>();

function entryJson(collection: Collection, entry: ComputedCollectionFlow): string {
  let byFlow = ENTRY_JSON.get(collection);
  if (!byFlow) ENTRY_JSON.set(collection, (byFlow = new Map()));
  let texts = byFlow.get(entry.flowId);
  if (!texts) byFlow.set(entry.flowId, (texts = [JSON.stringify({ ...entry, visible: false }), JSON.stringify({ ...entry, visible: true })]));
  return texts[entry.visible ? 1 : 0];
}

/**
 * Each collection shows one flow at a time: the first in order that is eligible and not finished (completed or
 * skipped). After the user completes or dismisses one of its flows, the next waits until the cool-off has passed
 * since the latest such stored time. A flow in several collections is held back when any of them holds it back.
 */
export function computeCollections(
  version: Pick<CatalogVersion, 'collections' | 'bySlug'>,
  snapshot: UserSnapshot,
  now: Date,
  isEligible: (flow: CatalogFlow) => boolean,
): CollectionsView {
  if (version.collections.length === 0) return NONE;
  const computedOrder: ComputedCollectionFlow[] = [];
  const texts: string[] = [];
  const held = new Set<string>();
  for (const collection of version.collections) {
    // A flow whose file has been removed since the collections were read is left out.
    const flows = collection.flows.map((slug) => version.bySlug.get(slug)).filter((flow) => flow !== undefined);
    let lastFinished = Number.NEGATIVE_INFINITY;
    for (const flow of flows) {
      const stored = snapshot.flows.get(flow.flow.slug);
      if (stored?.lastActionAt && (stored.completed || stored.skipped)) lastFinished = Math.max(lastFinished, Date.parse(stored.lastActionAt));
    }
    const coolingOff = collection.coolOffMs > 0 && lastFinished + collection.coolOffMs > now.getTime();
    let current: CatalogFlow | undefined;
    for (const flow of flows) {
      const open = isEligible(flow) && !isFinished(flow, snapshot, now);
      if (!open) continue;
      if (current === undefined) current = flow;
      if (flow !== current || coolingOff) held.add(flow.flow.slug);
    }
    for (const flow of flows) {
      const entry: ComputedCollectionFlow = {
        collectionId: collection.id,
        flowId: flow.flow.slug,
        visible: flow === current && !coolingOff,
        allowedComponents: collection.allowedComponents,
        collectionType: collection.type,
      };
      computedOrder.push(entry);
      texts.push(entryJson(collection, entry));
    }
  }
  return { computedOrder, computedOrderJson: `[${texts.join(',')}]`, held };
}

/** Completed or skipped, as the flow's `$state` says (a completion by its criteria included; a flow that came back is open). */
function isFinished(flow: CatalogFlow, snapshot: UserSnapshot, now: Date): boolean {
  const stored = snapshot.flows.get(flow.flow.slug);
  const skipped = Boolean(stored?.skipped) && !comesBack(flow, stored, now);
  return Boolean(stored?.completed) || skipped || (flow.completion?.(snapshot.cel) ?? false);
}
