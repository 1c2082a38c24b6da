// What a store offers the rest of the service: queries, transactions, and the hooks a write calls. Imports nothing of the service.
import type { MaintenanceReport } from './maintenance.js';
import type { SnapshotCache } from './snapshot-cache.js';

/** Where events go (the webhook outbox), when the service has endpoints for them. */
export interface EventSink {
  /** The endpoints that take events of this type; none means the event is not stored. */
  endpointsFor(type: string): readonly string[];
  /** Events were queued in this transaction: delivery can begin once it commits. */
  queued(): void;
}

export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** The webhook outbox's routing, inside the service's transactions (absent: no endpoints, so no events are stored). */
  readonly events?: EventSink;
  /** The read cache: exact on the embedded store; on PostgreSQL (outside transactions) its entries are checked before use. */
  readonly cache?: SnapshotCache;
  /** True when transactions run one at a time (PGlite), so no row lock is needed to order them. */
  readonly exclusive?: boolean;
  /** True inside one of the embedded store's transactions, whose loads the cache never keeps (the transaction may roll back). */
  readonly inTransaction?: boolean;
  /**
   * A write changed this user's rows: the cache forgets them now and again when the transaction ends. On
   * PostgreSQL the user's state version also moves on before the transaction commits, unless `versionMoved`
   * said a statement of this transaction did it already.
   */
  touchUser?(userId: string): void;
  /** A write changed this group's rows. */
  touchGroup?(groupId: string): void;
  /** A statement of this transaction set the row's `state_version` to a new `nextval('state_versions')` (PostgreSQL). */
  versionMoved?(kind: 'user' | 'group', id: string): void;
}

export interface Database extends Queryable {
  /** Runs `work` in one transaction; it commits when `work` resolves and rolls back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Closes the store once: a second call waits for the first. */
  close(): Promise<void>;
  /** `memory`, `pglite` (a data directory) or `postgres`. */
  readonly kind: 'memory' | 'pglite' | 'postgres';
  /**
   * How long a new request would wait for the database, in ms (an estimate): for a pooled connection, or for its
   * turn on PGlite. `requestsAhead` counts the pieces of work that requests admitted just before it will queue
   * (their bodies are still being read); each goes before the new one.
   */
  expectedWaitMs(requestsAhead?: number): number;
  /**
   * The embedded store: how long the piece of work that has waited longest for its turn, and still waits, has waited
   * so far, in ms (0 when nothing waits). PostgreSQL's pool is sized for its server and sheds by the estimate alone.
   */
  oldestWaitMs?(): number;
  /**
   * The embedded store: analyses and vacuums now the tables that are due, as it does by itself every few seconds
   * (PostgreSQL's server has autovacuum for this).
   */
  maintain?(): Promise<MaintenanceReport>;
  /** The embedded store in a data directory: the files synced to disk so far (0 with `fsync` off, or in memory). */
  fsyncs?(): number;
  /** Pieces of work given to the database so far (statements and transactions): a request's share tells how many it needs. */
  readonly jobs: number;
  /**
   * PostgreSQL: how many service instances have a connection to this database, this one included, read from
   * `pg_stat_activity` (each instance names its connections; nothing is written). Undefined when this instance cannot
   * see its own name there, as behind a pooler that shares server connections between clients.
   */
  liveInstances?(): Promise<number | undefined>;
}

/**
 * Several writes as one statement: each a data-modifying WITH query (each runs once, whether the main query
 * reads it or not), on tables of their own, so they cost one round trip.
 */
export const asOneStatement = (writes: readonly string[]): string =>
  `WITH ${writes.map((sql, i) => `w${i} AS (${sql})`).join(', ')} SELECT 1`;
