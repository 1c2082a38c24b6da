// Rate-limit counters in PostgreSQL, so every instance behind a load balancer counts against the same limits.
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Database } from '../storage/store.js';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** How often an instance clears counters whose window has ended. */
const SWEEP_MS = 60_000;

/**
 * A store for @fastify/rate-limit over the `rate_limits` table: one upsert per request, which starts
 * a new window when the old one has ended and otherwise counts one more. Counters are disposable
 * (the table is unlogged), so a database restart forgets them, as a restart of one instance would.
 */
export function postgresRateLimitStore(db: Database) {
  let lastSweep = 0;
  class PostgresRateLimitStore {
    private readonly prefix: string;

    // The plugin constructs the store with its options; children are made with a key prefix per route.
    constructor(_options?: unknown, prefix = '') {
      this.prefix = prefix;
    }

    incr(key: string, callback: Callback, timeWindow: number): void {
      const now = Date.now();
      const sweep = now - lastSweep > SWEEP_MS;
      if (sweep) lastSweep = now;
      db.query<{ count: number; ttl: number }>(
        `INSERT INTO rate_limits (key, window_end, count) VALUES ($1, clock_timestamp() + $2 * interval '1 millisecond', 1)
         ON CONFLICT (key) DO UPDATE SET
           count = CASE WHEN rate_limits.window_end <= clock_timestamp() THEN 1 ELSE rate_limits.count + 1 END,
           window_end = CASE WHEN rate_limits.window_end <= clock_timestamp() THEN EXCLUDED.window_end ELSE rate_limits.window_end END
         RETURNING count, greatest(0, ceil(extract(epoch FROM window_end - clock_timestamp()) * 1000))::int AS ttl`,
        [this.prefix + key, timeWindow],
      ).then(
        ([row]) => callback(null, { current: row!.count, ttl: row!.ttl }),
        (error: Error) => callback(error),
      );
      if (sweep) db.query('DELETE FROM rate_limits WHERE window_end < clock_timestamp()').catch(() => {});
    }

    child(routeOptions: unknown): PostgresRateLimitStore {
      const route = (routeOptions as { routeInfo?: { method?: string; url?: string } }).routeInfo ?? {};
      return new PostgresRateLimitStore(undefined, `${this.prefix}${route.method ?? ''}${route.url ?? ''}-`);
    }
  }
  return PostgresRateLimitStore as unknown as FastifyRateLimitStoreCtor;
}
