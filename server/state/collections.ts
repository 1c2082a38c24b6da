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

function entryOf(collection: Collection, flowId: string, visible: boolean): ComputedCollectionFlow {
  return { collectionId: collection.id, flowId, visible, allowedComponents: collection.allowedComponents, collectionType: collection.type };
}

function entryJson(collection: Collection, flowId: string, visible: boolean): string {
  let byFlow = ENTRY_JSON.get(collection);
  if (!byFlow) ENTRY_JSON.set(collection, (byFlow = new Map()));
  let texts = byFlow.get(flowId);
  if (!texts) byFlow.set(flowId, (texts = [JSON.stringify(entryOf(collection, flowId, false)), JSON.stringify(entryOf(collection, flowId, true))]));
  return texts[visible ? 1 : 0]!;
}

/** Each collection's flows in a catalog version, found once per version. */
const FLOWS = new WeakMap<Collection, { bySlug: CatalogVersion['bySlug']; flows: CatalogFlow[] }>();

function flowsOf(collection: Collection, bySlug: CatalogVersion['bySlug']): CatalogFlow[] {
  let known = FLOWS.get(collection);
  if (known?.bySlug !== bySlug) {
    // A flow whose file has been removed since the collections were read is left out.
    known = { bySlug, flows: collection.flows.map((slug) => bySlug.get(slug)).filter((flow) => flow !== undefined) };
    FLOWS.set(collection, known);
  }
  return known.flows;
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
  const rows: Array<[Collection, string, boolean]> = [];
  const texts: string[] = [];
  const held = new Set<string>();
  for (const collection of version.collections) {
    const flows = flowsOf(collection, version.bySlug);
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
      const visible = flow === current && !coolingOff;
      rows.push([collection, flow.flow.slug, visible]);
      texts.push(entryJson(collection, flow.flow.slug, visible));
    }
  }
  return {
    // As objects only for a caller that asks (the answer as parts is joined from the texts).
    get computedOrder() {
      return rows.map(([collection, flowId, visible]) => entryOf(collection, flowId, visible));
    },
    computedOrderJson: `[${texts.join(',')}]`,
    held,
  };
}

/** Completed or skipped, as the flow's `$state` says (a completion by its criteria included; a flow that came back is open). */
function isFinished(flow: CatalogFlow, snapshot: UserSnapshot, now: Date): boolean {
  const stored = snapshot.flows.get(flow.flow.slug);
  const skipped = Boolean(stored?.skipped) && !comesBack(flow, stored, now);
  return Boolean(stored?.completed) || skipped || (flow.completion?.(snapshot.cel) ?? false);
}
