// Rate-limit counting: in memory up to each instance's share of a limit, in PostgreSQL past it, so ordinary visitors cost no write.
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Database } from '../storage/store.js';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** How often an instance counts the live instances. Under pg's 10 s idle timeout, so even an idle instance keeps a connection the others see. */
const COUNT_INSTANCES_MS = 5_000;
/** How often an instance that writes counters clears those whose window has ended. */
const SWEEP_MS = 60_000;

/** One key's window on this instance. */
interface Window {
  /** When it ends, in ms since the epoch; once the key is counted in PostgreSQL, when PostgreSQL's window ends. */
  end: number;
  /** Requests this instance counted in it. */
  count: number;
  /** Of `count`, how many went to PostgreSQL's count; once any has, every further request goes there too. */
  sent: number;
  /** PostgreSQL (or, alone, this instance) found the key over its limit: refused here until `end`, without asking again. */
  over: boolean;
}

export interface RateLimitCountsOptions {
  /** The database, when several instances may share it (PostgreSQL); absent, this process counts alone, in memory. */
  db?: Database;
  /** Count every request in PostgreSQL: exact across instances, at a write per request. @default false */
  exact?: boolean;
  /** Keys counted in memory at once; past it the oldest windows are forgotten. @default 100000 */
  keys?: number;
}

/**
 * Counts requests per key over fixed windows that start at a key's first request. With N live instances on one
 * PostgreSQL, an instance admits a key's first floor(max / 2N) requests of a window from memory. Past that share it
 * adds what it counted to the key's row in `rate_limits` and counts each further request there, as every instance
 * does past its share, and PostgreSQL's count decides; once that is over the limit, the key is refused here until
 * the window ends. A visitor therefore gets at most max + 2(N - 1) * floor(max / 2N) requests in a window of the
 * shared count (under 2 * max; exactly max with one instance): each other instance may have admitted up to its share,
 * unseen, in each of the two windows of its own that overlap it. docs/deployment.md and docs/protocol.md state this bound.
 */
export class RateLimitCounts {
  readonly #windows = new Map<string, Window>();
  readonly #db: Database | undefined;
  readonly #exact: boolean;
  readonly #keys: number;
  /** Live instances, as last counted; undefined while unknown, when every request is counted in PostgreSQL. */
  #instances: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #lastSweep = 0;

  constructor(options: RateLimitCountsOptions = {}) {
    this.#db = options.db;
    this.#exact = options.exact ?? false;
    this.#keys = options.keys ?? 100_000;
  }

  /** Live instances as last counted (1 when this process counts alone; undefined when unknown or not needed). */
  get instances(): number | undefined {
    return this.#db ? this.#instances : 1;
  }

  /** Counts the live instances now and then every few seconds, when shares depend on them. */
  async start(): Promise<void> {
    if (!this.#db || this.#exact) return;
    await this.countInstances();
    this.#timer = setInterval(() => void this.countInstances(), COUNT_INSTANCES_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Counts the live instances again; a failure keeps the last count. */
  async countInstances(): Promise<void> {
    try {
      this.#instances = await this.#db?.liveInstances?.();
    } catch {
      // PostgreSQL unreachable: the shares stay as they were.
    }
  }

  /** Requests of a key this instance admits per window without asking PostgreSQL. */
  share(max: number): number {
    if (!this.#db) return max;
    if (this.#exact || this.#instances === undefined) return 0;
    return Math.floor(max / (2 * this.#instances));
  }

  /** Counts one request of `key` and answers its window's count so far (over `max`: refused) and the ms left in it. */
  incr(key: string, timeWindow: number, max: number, callback: Callback): void {
    const now = Date.now();
    let window = this.#windows.get(key);
    if (!window || window.end <= now) window = this.#open(key, now + timeWindow, now);
    window.count++;
    if (window.over) return callback(null, { current: Math.max(window.count, max + 1), ttl: window.end - now });
    if (!this.#db || (window.sent === 0 && window.count <= this.share(max))) {
      // Counting alone, or within this instance's share.
      if (window.count > max) window.over = true;
      return callback(null, { current: window.count, ttl: window.end - now });
    }
    this.#send(key, window, timeWindow, max, callback, now);
  }

  /** Adds what this instance counted and has not sent to the key's row; PostgreSQL's count decides. */
  #send(key: string, window: Window, timeWindow: number, max: number, callback: Callback, now: number): void {
    const db = this.#db!;
    const added = window.count - window.sent;
    // PostgreSQL's window ends by then at the latest (the answer says when): no new window here while the first answer is on its way.
    if (window.sent === 0) window.end = now + timeWindow;
    window.sent = window.count;
    const sweep = now - this.#lastSweep > SWEEP_MS;
    if (sweep) this.#lastSweep = now;
    db.query<{ count: number; ttl: number }>(
      `INSERT INTO rate_limits (key, window_end, count) VALUES ($1, clock_timestamp() + $2 * interval '1 millisecond', $3)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN rate_limits.window_end <= clock_timestamp() THEN EXCLUDED.count ELSE rate_limits.count + EXCLUDED.count END,
         window_end = CASE WHEN rate_limits.window_end <= clock_timestamp() THEN EXCLUDED.window_end ELSE rate_limits.window_end END
       RETURNING count, greatest(0, ceil(extract(epoch FROM window_end - clock_timestamp()) * 1000))::int AS ttl`,
      [key, window.end - now, added],
    ).then(
      ([row]) => {
        // The window is PostgreSQL's from now on: it may have begun on another instance.
        window.end = Date.now() + row.ttl;
        if (row.count > max) window.over = true;
        callback(null, { current: row.count, ttl: row.ttl });
      },
      () => {
        // PostgreSQL unreachable: send these again with the next request, and decide alone against the whole limit meanwhile.
        window.sent -= added;
        if (window.count > max) window.over = true;
        callback(null, { current: window.count, ttl: Math.max(0, window.end - Date.now()) });
      },
    );
    if (sweep) db.query('DELETE FROM rate_limits WHERE window_end < clock_timestamp()').catch(() => {});
  }

  /** A new window for `key`, placed last; windows that have ended are dropped from the front, and the oldest past the cap. */
  #open(key: string, end: number, now: number): Window {
    this.#windows.delete(key);
    for (const [oldKey, old] of this.#windows) {
      if (old.end > now && this.#windows.size < this.#keys) break;
      this.#windows.delete(oldKey);
    }
    const window: Window = { end, count: 0, sent: 0, over: false };
    this.#windows.set(key, window);
    return window;
  }
}

/** A store for @fastify/rate-limit over `counts`; the plugin makes a child, with a key prefix, per limit of its own. */
export function rateLimitStore(counts: RateLimitCounts): FastifyRateLimitStoreCtor {
  class RateLimitStore {
    private readonly prefix: string;

    // The plugin constructs the store with its options; children are made with a key prefix per route.
    constructor(_options?: unknown, prefix = '') {
      this.prefix = prefix;
    }

    incr(key: string, callback: Callback, timeWindow: number, max: number): void {
      counts.incr(this.prefix + key, timeWindow, max, callback);
    }

    child(routeOptions: unknown): RateLimitStore {
      const route = (routeOptions as { routeInfo?: { method?: string; url?: string } }).routeInfo ?? {};
      return new RateLimitStore(undefined, `${this.prefix}${route.method ?? ''}${route.url ?? ''}-`);
    }
  }
  return RateLimitStore;
}
