// Delivers the webhook outbox: claims due rows (FOR UPDATE SKIP LOCKED, with a lease), POSTs each one signed, and retries with backoff.
import { createHmac } from 'node:crypto';
import type { Logger } from '../flows/catalog.js';
import type { Database, EventSink, Queryable } from '../storage/store.js';
import type { WebhookEndpoint } from './config.js';

export interface DeliverySettings {
  /** The wait before the first retry; each later retry waits twice as long. @default 10000 (10 s) */
  retryBaseMs: number;
  /** The longest wait between two attempts. @default 21600000 (6 h) */
  retryMaxMs: number;
  /** Attempts in all before an event is given up (kept a week with `failed_at`, then swept). @default 15 (about a day) */
  maxAttempts: number;
  /** How long one delivery may take before it counts as failed. @default 10000 */
  timeoutMs: number;
  /** How often each instance looks for due rows (its own new events are sent at once). @default 2000 */
  pollMs: number;
  /** How long a claimed row is left to its instance; past it, another instance may deliver it. @default 60000 */
  leaseMs: number;
  /** Rows claimed, and sent in parallel, at a time. @default 20 */
  batch: number;
}

export const DEFAULT_DELIVERY: DeliverySettings = {
  retryBaseMs: 10_000,
  retryMaxMs: 6 * 3600_000,
  maxAttempts: 15,
  timeoutMs: 10_000,
  pollMs: 2_000,
  leaseMs: 60_000,
  batch: 20,
};

/** Rows that ran out of attempts, and rows of endpoints no longer configured, are swept after this long. */
const KEEP_FAILED_DAYS = 7;
const SWEEP_EVERY_MS = 3_600_000;
/** The header that carries the signature. */
export const SIGNATURE_HEADER = 'Onboarding-Signature';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: what a receiver checks (docs/analytics.md). */
export function signature(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

/** The wait after failed attempt `attempt` (1-based): base × 2^(attempt−1), at most the cap, less up to a tenth at random. */
export function retryDelayMs(
  attempt: number,
  settings: Pick<DeliverySettings, 'retryBaseMs' | 'retryMaxMs'>,
  random = Math.random,
): number {
  const delay = Math.min(settings.retryBaseMs * 2 ** Math.min(attempt - 1, 40), settings.retryMaxMs);
  return Math.round(delay * (1 - random() * 0.1));
}

interface ClaimedRow {
  id: string;
  event_id: string;
  endpoint: string;
  event_type: string;
  payload: string;
  attempts: number;
}

export class WebhookDelivery {
  private endpoints = new Map<string, WebhookEndpoint>();
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private lastSweep = 0;
  private readonly inFlight = new Set<AbortController>();

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly settings: DeliverySettings = DEFAULT_DELIVERY,
  ) {}

  /** Routing for emitEvents: the endpoints that take each event type. */
  readonly routing = {
    endpointsFor: (type: string): string[] =>
      [...this.endpoints.values()].filter((e) => !e.events || e.events.includes(type as never)).map((e) => e.url),
  };

  get configured(): WebhookEndpoint[] {
    return [...this.endpoints.values()];
  }

  /** Replaces the endpoints (at start, and when webhooks.yaml changes) and starts delivering when there are some. */
  setEndpoints(endpoints: WebhookEndpoint[]): void {
    this.endpoints = new Map(endpoints.map((endpoint) => [endpoint.url, endpoint]));
    this.poke();
  }

  /** Looks for due rows now: after a transaction that queued events commits, and at start. */
  poke(): void {
    if (this.stopped || this.endpoints.size === 0) return;
    void this.drain();
  }

  /** Stops polling, aborts deliveries in flight (their rows are due again at once, for the next start) and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const controller of this.inFlight) controller.abort();
    await this.draining;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.stopped || this.endpoints.size === 0) return;
    this.timer = setTimeout(() => void this.drain(), this.settings.pollMs);
    this.timer.unref();
  }

  /** Claims and delivers due rows until none is left; one drain at a time per instance. */
  private drain(): Promise<void> {
    if (this.draining) {
      this.again = true;
      return this.draining;
    }
    this.draining = (async () => {
      try {
        await this.sweep();
        do {
          this.again = false;
          const rows = await this.claim();
          if (rows.length > 0) {
            await Promise.all(rows.map((row) => this.deliver(row)));
            this.again = true;
          }
        } while (this.again && !this.stopped);
      } catch (error) {
        if (!this.stopped)
          this.log.warn(`webhook delivery stopped for now: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        this.draining = undefined;
        this.schedule();
      }
    })();
    return this.draining;
  }

  /**
   * Takes due rows of the configured endpoints and leases them: their next attempt moves past the lease, so
   * no other instance takes them while this one delivers (SKIP LOCKED passes over rows another instance is
   * claiming at this moment). A row whose instance died is due again when its lease ends: at least once.
   */
  private claim(): Promise<ClaimedRow[]> {
    return this.db.query<ClaimedRow>(
      `UPDATE webhook_outbox SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
       WHERE id IN (
         SELECT id FROM webhook_outbox
         WHERE failed_at IS NULL AND next_attempt_at <= now() AND endpoint = ANY($1::text[])
         ORDER BY next_attempt_at, id LIMIT $2
         FOR UPDATE SKIP LOCKED)
       RETURNING id::text AS id, event_id, endpoint, event_type, payload, attempts`,
      [[...this.endpoints.keys()], this.settings.batch, this.settings.leaseMs],
    );
  }

  private async deliver(row: ClaimedRow): Promise<void> {
    const endpoint = this.endpoints.get(row.endpoint);
    if (!endpoint) return;
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${this.settings.timeoutMs} ms`)),
      this.settings.timeoutMs,
    );
    this.inFlight.add(controller);
    let failure: string | undefined;
    try {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        redirect: 'manual',
        signal: controller.signal,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'open-onboarding-webhooks/1',
          'Onboarding-Event-Id': row.event_id,
          'Onboarding-Event': row.event_type,
          'Onboarding-Attempt': String(row.attempts),
          [SIGNATURE_HEADER]: signature(endpoint.secret, Math.floor(Date.now() / 1000), row.payload),
        },
        body: row.payload,
      });
      await response.body?.cancel().catch(() => {});
      if (response.status < 200 || response.status > 299) failure = `HTTP ${response.status}`;
    } catch (error) {
      const cause: unknown = controller.signal.reason ?? (error as { cause?: unknown }).cause ?? error;
      failure = cause instanceof Error ? cause.message : String(cause);
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
    await this.settle(row, failure, endpoint);
  }

  private async settle(row: ClaimedRow, failure: string | undefined, endpoint: WebhookEndpoint): Promise<void> {
    const db = this.db;
    if (failure === undefined) {
      await db.query('DELETE FROM webhook_outbox WHERE id = $1', [row.id]);
      return;
    }
    const error = failure.slice(0, 500);
    if (this.stopped) {
      // Cut short by the shutdown: not the endpoint's fault, so the attempt is given back.
      await db.query('UPDATE webhook_outbox SET attempts = attempts - 1, next_attempt_at = now() WHERE id = $1', [
        row.id,
      ]);
    } else if (row.attempts >= this.settings.maxAttempts) {
      await db.query('UPDATE webhook_outbox SET failed_at = now(), last_error = $2 WHERE id = $1', [row.id, error]);
      this.log.warn(
        `webhook ${row.event_type} ${row.event_id} to ${endpoint.url} given up after ${row.attempts} attempts: ${error}`,
      );
    } else {
      const wait = retryDelayMs(row.attempts, this.settings);
      await db.query(
        'UPDATE webhook_outbox SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000), last_error = $3 WHERE id = $1',
        [row.id, wait, error],
      );
    }
  }

  /** Once an hour: rows given up a week ago, and rows of endpoints no longer configured for a week, go. */
  private async sweep(): Promise<void> {
    if (Date.now() - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = Date.now();
    await this.db.query(
      `DELETE FROM webhook_outbox WHERE (failed_at IS NOT NULL AND failed_at < now() - make_interval(days => $1))
          OR (created_at < now() - make_interval(days => $1) AND NOT (endpoint = ANY($2::text[])))`,
      [KEEP_FAILED_DAYS, [...this.endpoints.keys()]],
    );
  }
}

/**
 * The database as the service's routes see it: every transaction carries the outbox's routing, so the
 * state layer's emitEvents can queue events in it, and delivery is poked once a transaction that queued
 * some commits.
 */
export function withEventSink(db: Database, delivery: WebhookDelivery): Database {
  const wrapped = Object.create(db) as Database;
  Object.defineProperty(wrapped, 'transaction', {
    writable: true,
    value: async <T>(work: (tx: Queryable) => Promise<T>): Promise<T> => {
      let queued = false;
      const events: EventSink = { endpointsFor: delivery.routing.endpointsFor, queued: () => (queued = true) };
      const result = await db.transaction((tx) => work(Object.create(tx, { events: { value: events } }) as Queryable));
      if (queued) delivery.poke();
      return result;
    },
  });
  return wrapped;
}
