// Collections on the wire: collections.yaml beside the flow files (see docs/flows.md), and GET /v1/collections.
import type { FlowStatus, FlowType } from './common.js';

export const COLLECTION_TYPES = ['DEFAULT', 'CUSTOM'] as const;
/** DEFAULT: drawn where the SDK draws its default collection; CUSTOM: where the page places it. */
export type CollectionType = (typeof COLLECTION_TYPES)[number];

/** collections.yaml: the collections, each showing its flows one at a time. */
export interface CollectionsFile {
  collections: CollectionDefinition[];
}

export interface CollectionDefinition {
  /** Unique among the collections. */
  id: string;
  type: CollectionType;
  /** Slugs of its flows, first shown first. A flow may be in one collection of each type. */
  flows: string[];
  /** How long the next flow waits after the user completes or dismisses one: `30s`, `15m`, `48h`, `2d`, `1w`, or 0. @default 0 */
  coolOff?: string | 0;
  /** Passed through to `computedOrder` for the SDK (such as [Banner, Card]). @default [] */
  allowedComponents?: string[];
}

/** One flow of a collection, in `GET /v1/collections`. */
export interface CollectionFlow {
  slug: string;
  /** The flow's name, type and status; null when its file was removed while collections.yaml still names it. */
  name: string | null;
  type: FlowType | null;
  status: FlowStatus | null;
}

/** One collection of collections.yaml, as the service holds it. */
export interface CollectionReport {
  id: string;
  type: CollectionType;
  /** As written (`48h`), or `0` for none. */
  coolOff: string;
  coolOffSeconds: number;
  allowedComponents: string[];
  /** Priority order: first shown first. */
  flows: CollectionFlow[];
}

/** `GET /v1/collections` (private key): the collections in force, in the order of collections.yaml. */
export interface CollectionsResponse {
  collections: CollectionReport[];
}
