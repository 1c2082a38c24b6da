// The service's limits: what one request, one visitor, one user and the database may take, with their defaults.

export interface Limits {
  /** Largest accepted request body, in bytes; over it, 413. @default 102400 (100 KB) */
  bodyBytes: number;
  /** Most tracking events in one upsert; over it, 400. @default 100 */
  eventsPerRequest: number;
  /** Most keys in one `properties` object (user, group or event); over it, 400. @default 200 */
  propertiesPerObject: number;
  /** Requests a public key may make per minute from one visitor address; over it, 429 with Retry-After. @default 1200 */
  requestsPerMinute: number;
  /** Requests a private key may make per minute. @default 12000 */
  privateRequestsPerMinute: number;
  /** Writes per minute for one user ID, from any address, with a public key. @default 300 */
  userWritesPerMinute: number;
  /**
   * Longest wait (ms) for the database (a pooled connection, or the embedded store's turn): a request is answered 503 at
   * once when the work ahead of it would take longer, or (embedded store) when what has waited longest has waited half of it. @default 100
   */
  maxWaitMs: number;
  /** Mean event loop delay (ms) past which requests are answered 503; 0 turns the check off. @default 200 */
  eventLoopDelayMs: number;
  /** Users whose rows are kept in memory for reads (checked against their version on PostgreSQL); 0 turns the cache off. @default 10000 */
  cacheUsers: number;
  /**
   * Memory (MiB, estimated) for the state answers kept with cached users, past which the least recently read users'
   * answers go; 0 keeps none. @default 64
   */
  cacheAnswersMb: number;
  /** Connections to a PostgreSQL server (per instance). @default 10 */
  poolSize: number;
  /** Largest `data` of one transition, in bytes of JSON; over it, 400. @default 8192 (8 KB) */
  dataBytes: number;
  /** Most property keys stored for one user or one group; a request that would pass it gets 409. @default 1000 */
  storedProperties: number;
  /** Largest stored properties object of one user or one group, in bytes of JSON; past it, 409. @default 262144 (256 KB) */
  storedPropertyBytes: number;
  /** Most distinct event names stored for one user or one group; a request that would pass it gets 409. @default 1000 */
  storedEventNames: number;
}

export const DEFAULT_LIMITS: Limits = {
  bodyBytes: 102_400,
  eventsPerRequest: 100,
  propertiesPerObject: 200,
  requestsPerMinute: 1200,
  privateRequestsPerMinute: 12_000,
  userWritesPerMinute: 300,
  maxWaitMs: 100,
  eventLoopDelayMs: 200,
  cacheUsers: 10_000,
  cacheAnswersMb: 64,
  poolSize: 10,
  dataBytes: 8192,
  storedProperties: 1000,
  storedPropertyBytes: 262_144,
  storedEventNames: 1000,
};
