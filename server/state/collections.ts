// Collections in a state answer: which flow of each collection the user sees now, from stored state, its times and the clock.
import type { ComputedCollectionFlow } from '../../src/api/wire.js';
import type { CatalogFlow, CatalogVersion } from '../flows/catalog.js';
import type { Collection } from '../flows/collections.js';
import type { UserSnapshot } from './snapshot.js';
import { comesBack } from './reshow.js';

export interface CollectionsView {
  /** The answer's `collections.computedOrder`. */
  computedOrder: ComputedCollectionFlow[];
  /** The same as UTF-8 JSON, in parts: each collection's rows are made once per catalog version and visible flow. */
  computedOrderParts: Buffer[];
  /** Slugs of eligible, unfinished flows a collection holds back: their `$state.visible` is false. */
  held: ReadonlySet<string>;
}

/** Why a collection holds a flow back (for the explanation): another of its flows is ahead, or its cool-off runs `until` (epoch milliseconds). */
export interface HoldCause {
  collection: Collection;
  ahead?: string;
  until?: number;
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
const NONE: CollectionsView = { computedOrder: [], computedOrderParts: [OPEN, CLOSE], held: new Set() };

function entryOf(collection: Collection, flowId: string, visible: boolean): ComputedCollectionFlow {
  return {
    collectionId: collection.id,
    flowId,
    visible,
    allowedComponents: collection.allowedComponents,
    collectionType: collection.type,
  };
}

/** Each collection's flows in a catalog version, and its rows as bytes by the index of the flow shown (-1: none). */
const KNOWN = new WeakMap<
  Collection,
  { bySlug: CatalogVersion['bySlug']; flows: CatalogFlow[]; rows: Map<number, Buffer> }
>();

function knownOf(collection: Collection, bySlug: CatalogVersion['bySlug']) {
  let known = KNOWN.get(collection);
  if (known?.bySlug !== bySlug) {
    // A flow whose file has been removed since the collections were read is left out.
    known = {
      bySlug,
      flows: collection.flows.map((slug) => bySlug.get(slug)).filter((flow) => flow !== undefined),
      rows: new Map(),
    };
    KNOWN.set(collection, known);
  }
  return known;
}

/** The collection's rows as JSON bytes (without brackets) when the flow at `shown` is the one visible. */
function rowsJson(collection: Collection, known: ReturnType<typeof knownOf>, shown: number): Buffer {
  let bytes = known.rows.get(shown);
  if (!bytes) {
    bytes = Buffer.from(
      known.flows.map((flow, index) => JSON.stringify(entryOf(collection, flow.flow.slug, index === shown))).join(','),
    );
    known.rows.set(shown, bytes);
  }
  return bytes;
}

/**
 * Each collection shows one flow at a time: the first in order that is eligible and not finished (completed or
 * skipped). After the user completes or dismisses one of its flows, the next waits until the cool-off has passed
 * since the latest such stored time. A flow in several collections is held back when any of them holds it back.
 * `causes`, when given, gets why each held flow is held (the explanation asks; a read does not).
 */
export function computeCollections(
  version: Pick<CatalogVersion, 'collections' | 'bySlug'>,
  snapshot: UserSnapshot,
  now: Date,
  isEligible: (flow: CatalogFlow) => boolean,
  causes?: Map<string, HoldCause[]>,
): CollectionsView {
  const collections = version.collections;
  if (collections.length === 0) return NONE;
  const at = now.getTime();
  // Per collection, the index of the flow shown (-1: none). A read makes no other object per collection or flow: it
  // runs on every read that finds no answer kept, for every flow of every collection.
  const shownAt: number[] = [];
  const parts: Buffer[] = [OPEN];
  let held: Set<string> | undefined;
  for (const collection of collections) {
    const known = knownOf(collection, version.bySlug);
    const flows = known.flows;
    const coolingOff = coolOffEnd(collection, flows, snapshot) > at;
    let current = -1;
    for (let index = 0; index < flows.length; index++) {
      const flow = flows[index];
      if (!isEligible(flow) || isFinished(flow, snapshot, now)) continue;
      if (current === -1) current = index;
      if (index === current && !coolingOff) continue;
      (held ??= new Set()).add(flow.flow.slug);
      causes?.set(flow.flow.slug, [
        ...(causes.get(flow.flow.slug) ?? []),
        index !== current
          ? { collection, ahead: flows[current].flow.slug }
          : { collection, until: coolOffEnd(collection, flows, snapshot) },
      ]);
    }
    const shown = coolingOff ? -1 : current;
    shownAt.push(shown);
    if (flows.length === 0) continue;
    if (parts.length > 1) parts.push(COMMA);
    parts.push(rowsJson(collection, known, shown));
  }
  parts.push(CLOSE);
  return {
    // As objects only for a caller that asks (the answer as parts is joined from the bytes).
    get computedOrder() {
      return collections.flatMap((collection, c) =>
        knownOf(collection, version.bySlug).flows.map((flow, index) =>
          entryOf(collection, flow.flow.slug, index === shownAt[c]),
        ),
      );
    },
    computedOrderParts: parts,
    held: held ?? NONE.held,
  };
}

/**
 * When (epoch milliseconds) the collection's cool-off ends: the cool-off after the latest stored completion or
 * dismissal of one of its flows; -Infinity without a cool-off or such a time.
 */
export function coolOffEnd(collection: Collection, flows: readonly CatalogFlow[], snapshot: UserSnapshot): number {
  if (collection.coolOffMs <= 0) return Number.NEGATIVE_INFINITY;
  let lastFinished = Number.NEGATIVE_INFINITY;
  for (const flow of flows) {
    const stored = snapshot.flows.get(flow.flow.slug);
    if (stored?.lastActionAt && (stored.completed || stored.skipped))
      lastFinished = Math.max(lastFinished, Date.parse(stored.lastActionAt));
  }
  return lastFinished + collection.coolOffMs;
}

/** A collection's flows in this catalog version (a flow whose file is gone left out). */
export const collectionFlows = (collection: Collection, bySlug: CatalogVersion['bySlug']): readonly CatalogFlow[] =>
  knownOf(collection, bySlug).flows;

/** Completed or skipped, as the flow's `$state` says (a completion by its criteria included; a flow that came back is open). */
function isFinished(flow: CatalogFlow, snapshot: UserSnapshot, now: Date): boolean {
  const stored = snapshot.flows.get(flow.flow.slug);
  const skipped = Boolean(stored?.skipped) && !comesBack(flow, stored, now);
  return Boolean(stored?.completed) || skipped || (flow.completion?.(snapshot.cel) ?? false);
}
