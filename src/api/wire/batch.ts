// POST /v1/public/batch on the wire: users, groups and flowStates writes in one request, and how each went.
import type { Problem } from './common.js';
import type { GroupUpsertRequest, UserUpsertRequest } from './users.js';
import type { FlowStateWriteRequest, FlowStatesResponse, KnownVersions } from './flow-states.js';

/** The write endpoints a batch stands for. */
export const BATCH_PATHS = ['users', 'groups', 'flowStates'] as const;

/** One write of a batch: the endpoint it stands for (`/v1/public/<path>`), its own Idempotency-Key, and that endpoint's body. */
export type BatchWrite =
  | { path: 'users'; idempotencyKey: string; body: UserUpsertRequest }
  | { path: 'groups'; idempotencyKey: string; body: GroupUpsertRequest }
  | { path: 'flowStates'; idempotencyKey: string; body: FlowStateWriteRequest };

/**
 * `POST /v1/public/batch`: the writes are applied in order, each exactly once by its own key (the same key sent
 * alone to its endpoint is the same request), then the state of the last write's user is read once.
 */
export interface BatchRequest {
  /** 1 to 100 writes. */
  writes: BatchWrite[];
  /** As the POST read's: flows whose version the client holds come without content in `flowStates`. */
  knownVersions?: KnownVersions;
}

/** How one write of a batch went: what its own endpoint would have answered. */
export interface BatchResult {
  /** 201, or the 4xx of a refused write (with `problem`); a refused write changed nothing. */
  status: number;
  /** The key was used before with the same write: it was not applied again. */
  replayed?: true;
  /** For a users write: whether a guest was linked. */
  guestLinked?: boolean;
  problem?: Problem;
}

export interface BatchResponse {
  /** One per write, in order. */
  results: BatchResult[];
  /**
   * The state of the last write's user (with that write's `groupId`), read after every write; absent when that
   * write was refused for its identity (401).
   */
  flowStates?: FlowStatesResponse;
}
