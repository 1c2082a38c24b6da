// The outbox's interface: the writes it takes, its budget, how an attempt went, the hooks it calls, and what it offers.
import type { ApiError } from '../api/client.js';
import type {
  BatchResult,
  FlowStateWriteRequest,
  GroupUpsertRequest,
  KnownVersions,
  UserUpsertRequest,
} from '../api/wire.js';

export type OutboxWrite =
  | { path: 'users'; body: UserUpsertRequest }
  | { path: 'groups'; body: GroupUpsertRequest }
  | { path: 'flowStates'; body: FlowStateWriteRequest };

export type OutboxEntry = OutboxWrite & {
  /** The Idempotency-Key: made once, sent with every attempt. */
  key: string;
  /** Whose write this is; writes stay in order per user. */
  userId: string;
  attempts: number;
  /** Epoch milliseconds before which the entry is not retried. */
  retryAt: number;
  /** Epoch milliseconds the write was made; the queue's order. */
  at: number;
};

/** What the service answered for one write it took. */
export interface Sent {
  /** The write's own result in the batch; absent with a bad answer. */
  result?: BatchResult;
  /** For the batch's last write: the state read after every write of the batch (see BatchResponse). */
  flowStates?: unknown;
  /** The versions the batch sent as knownVersions (its state carries the content of the others); null: no content. */
  known: KnownVersions | null;
  /** The last write of its batch: the state, when there is one, came with it. */
  last: boolean;
}

/** How the first attempt at sending an entry went. */
export type Attempt = { sent: true; response: Sent | null } | { sent: false; error?: unknown; kept: boolean };

export interface OutboxHooks {
  /**
   * The service took the entry. With `badAnswer`, a 2xx came back whose body is not usable (not JSON, or not of
   * the expected shape): the write reached the service all the same.
   */
  sent(entry: OutboxEntry, response: Sent, badAnswer?: ApiError): void;
  /**
   * The entry left the queue unsent and is never retried: the service refused it (an ApiError, a 4xx), or it could
   * not be sent at all (any other error, such as a body that cannot be serialised). `changed` follows.
   */
  dropped(entry: OutboxEntry, error: unknown): void;
  /** The entry failed and is kept for a retry. */
  failed(entry: OutboxEntry, error: unknown): void;
  /** The queue changed (an entry added, sent or dropped); `settled` lists the keys that left it. */
  changed(settled: string[]): void;
  /** The flow versions whose content the script holds: a batch with a users write sends them, so its answer brings new content. */
  knownVersions?(): KnownVersions;
}

export interface Outbox {
  /**
   * Queues a write and resolves with how its first attempt went. Returns undefined, having queued nothing, when
   * the write would take the queue over its budget (`outbox-full`) or cannot be serialised (`write-dropped`).
   */
  add(userId: string, write: OutboxWrite): Promise<Attempt> | undefined;
  entries(): OutboxEntry[];
  /** Another tab sent or dropped these entries (its localStorage writes may reach this tab later). */
  settled(keys: string[]): void;
  /** Sends what is due, in batches, in one tab at a time. */
  flush(): void;
  /** The page is going away: sends everything left at once, with keepalive. Entries stay until confirmed. */
  flushOnExit(): void;
  stop(): void;
}

/**
 * The queue's budget: at most 1 MiB of JSON text. localStorage holds about 5 million characters per origin, shared
 * with the host site, so the queue takes at most a fifth of it. Within the budget every write is kept, however many;
 * a new write that would go over it is refused at once (`outbox-full`), and nothing already queued is dropped.
 */
export const OUTBOX_BUDGET = 1 << 20;
/** The error reported as `write-dropped`: it names the path of the write that left the queue unsent. */
export const dropError = (entry: { path: string }, error: unknown) =>
  new Error(`A ${entry.path} write was dropped: ${error instanceof Error ? error.message : String(error)}`);
