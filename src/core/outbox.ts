// The outbox: one persisted queue for every write (users, groups, track, flowStates), sent in order,
// each with an Idempotency-Key kept across retries and reloads, retried with backoff while the network fails.
import { ApiError, isRetryable, MAX_WAIT_MS, type ApiClient } from '../api/client.js';
import { isQueuedWrite } from '../api/guards.js';
import type { FlowStateWriteRequest, GroupUpsertRequest, UserUpsertRequest } from '../api/wire.js';
import { newGuestId } from './identity.js';
import { reportError } from './report.js';
import { discarded, type KeyValueStore } from './storage.js';

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

/** How the first attempt at sending an entry went. */
export type Attempt = { sent: true; response: unknown } | { sent: false; error?: unknown; kept: boolean };

export interface OutboxHooks {
  /**
   * The service accepted the entry; `response` is its body (null when it sent none). With `badAnswer`, a 2xx
   * came back whose body is not usable (not JSON, or not of the expected shape): the write was applied all the same.
   */
  sent(entry: OutboxEntry, response: unknown, badAnswer?: ApiError): void;
  /**
   * The entry left the queue unsent and is never retried: the service refused it (an ApiError, a 4xx), or it could
   * not be sent at all (any other error, such as a body that cannot be serialised). `changed` follows.
   */
  dropped(entry: OutboxEntry, error: unknown): void;
  /** The entry failed and is kept for a retry. */
  failed(entry: OutboxEntry, error: unknown): void;
  /** The queue changed (an entry added, sent or dropped); `settled` lists the keys that left it. */
  changed(settled: string[]): void;
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
  /** Sends what is due, one entry at a time, in one tab at a time. */
  flush(): void;
  /** The page is going away: sends everything left at once, with keepalive. Entries stay until confirmed. */
  flushOnExit(): void;
  stop(): void;
}

const OUTBOX_KEY = 'outbox';
const LOCK_NAME = 'onboarding:outbox';
/**
 * The queue's budget: at most 1 MiB of JSON text. localStorage holds about 5 million characters per origin, shared
 * with the host site, so the queue takes at most a fifth of it. Within the budget every write is kept, however many;
 * a new write that would go over it is refused at once (`outbox-full`), and nothing already queued is dropped.
 */
export const OUTBOX_BUDGET = 1 << 20;
/** Entries sent in one pass while holding the cross-tab lock; a longer queue goes on in the next pass. */
const MAX_PER_PASS = 1000;
/** Settled keys remembered against stale copies of the queue written back by other tabs (a moment old at most). */
const MAX_SETTLED_KEYS = 1000;
const MAX_BACKOFF_MS = 30_000;
/** keepalive requests share a 64 KiB budget; a larger body is sent without it. */
const KEEPALIVE_BYTES = 60_000;

const isKept = (attempt: Attempt): attempt is { sent: false; error?: unknown; kept: true } => !attempt.sent && attempt.kept;

/** The error reported as `write-dropped`: it names the path of the write that left the queue unsent. */
export const dropError = (entry: { path: string }, error: unknown) =>
  new Error(`A ${entry.path} write was dropped: ${error instanceof Error ? error.message : String(error)}`);

/** Exponential backoff with jitter, honouring a server's Retry-After when it asks for longer, up to MAX_WAIT_MS. */
export function backoffMs(attempts: number, retryAfterMs = 0, random = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(attempts, 16));
  return Math.min(MAX_WAIT_MS, Math.max(retryAfterMs, Math.round(ceiling * (0.5 + random() / 2))));
}

export function createOutbox(storage: KeyValueStore, client: ApiClient, hooks: OutboxHooks): Outbox {
  const inFlight = new Set<string>();
  const waiters = new Map<string, (attempt: Attempt) => void>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  // localStorage reaches other tabs' processes asynchronously, so a tab may read a queue that is a moment
  // old. Keys known to be settled are never sent again, and a tab keeps its own writes in memory until
  // they are settled, so a stale overwrite by another tab cannot lose them.
  const settledKeys = new Set<string>();
  const mine = new Map<string, OutboxEntry>();
  const settle = (keys: string[]) => {
    for (const key of keys) {
      mine.delete(key);
      settledKeys.add(key);
    }
    // Bounded: older keys are long gone from every tab's queue.
    for (const key of settledKeys) {
      if (settledKeys.size <= MAX_SETTLED_KEYS) break;
      settledKeys.delete(key);
    }
  };
  // The stored queue, checked entry by entry: parsed again only when its text changed, so a bad entry is reported once.
  let storedText: string | null = null;
  let stored: OutboxEntry[] = [];
  const read = (): OutboxEntry[] => {
    const text = storage.get(OUTBOX_KEY);
    if (text !== storedText) {
      storedText = text;
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : [];
      } catch {
        // Not JSON: nothing in it can be sent.
      }
      const list: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
      stored = list.filter(isQueuedWrite) as OutboxEntry[];
      if (stored.length < list.length) {
        discarded(`${list.length - stored.length} queued writes`);
      }
    }
    const entries = stored.filter((entry) => !settledKeys.has(entry.key));
    const present = new Set(entries.map((entry) => entry.key));
    for (const entry of mine.values()) if (!present.has(entry.key)) entries.push(entry);
    return entries.sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
  };
  const write = (entries: OutboxEntry[], notify = true, settled: string[] = [], text = JSON.stringify(entries)) => {
    if (entries.length) storage.set(OUTBOX_KEY, text);
    else storage.remove(OUTBOX_KEY);
    // What was just stored needs no parsing and checking when it is read back.
    storedText = entries.length ? text : null;
    stored = entries;
    if (notify) hooks.changed(settled);
  };
  const update = (key: string, change: (entry: OutboxEntry) => OutboxEntry | null, notify = true) => {
    let removed = false;
    const entries = read().flatMap((entry) => {
      if (entry.key !== key) return [entry];
      const changed = change(entry);
      if (!changed) removed = true;
      else if (mine.has(key)) mine.set(key, changed);
      return changed ? [changed] : [];
    });
    if (removed) settle([key]);
    write(entries, notify, removed ? [key] : []);
  };

  const answer = (key: string, attempt: Attempt) => {
    const resolve = waiters.get(key);
    waiters.delete(key);
    resolve?.(attempt);
  };
  /** Callers waiting on entries that cannot be tried now learn that their write is kept. */
  const settleWaiting = (error?: unknown) => {
    const present = new Set(read().map((entry) => entry.key));
    for (const key of [...waiters.keys()]) {
      // An entry another tab already sent is gone from the queue.
      answer(key, present.has(key) ? { sent: false, error, kept: true } : { sent: true, response: null });
    }
  };

  const online = () => typeof navigator === 'undefined' || navigator.onLine !== false;

  function send(entry: OutboxEntry, keepalive: boolean): Promise<unknown> {
    // The client times every request out, so one that hangs cannot hold the queue (and the cross-tab lock) for ever.
    const options = { idempotencyKey: entry.key, keepalive };
    if (entry.path === 'users') return client.upsertUser(entry.body, options);
    if (entry.path === 'groups') return client.upsertGroup(entry.body, options);
    return client.writeFlowState(entry.body, options);
  }

  /**
   * One attempt at one entry; returns the error when the entry is kept for a retry. Only a failure the client
   * classified as retryable (isRetryable) keeps an entry; whatever else happens, the entry leaves the queue, so
   * one entry can never hold up the writes behind it.
   */
  async function attempt(entry: OutboxEntry): Promise<{ retry: unknown } | undefined> {
    inFlight.add(entry.key);
    let result: Attempt = { sent: false, kept: false };
    try {
      let response: unknown = null;
      let failure: unknown;
      try {
        response = (await send(entry, JSON.stringify(entry.body).length < KEEPALIVE_BYTES)) ?? null;
      } catch (error) {
        failure = error ?? new Error('no error given');
      }
      if (isRetryable(failure)) {
        const retryAfterMs = (failure as ApiError).retryAfterMs;
        update(entry.key, (kept) => ({ ...kept, attempts: kept.attempts + 1, retryAt: Date.now() + backoffMs(kept.attempts, retryAfterMs) }));
        if (entry.attempts === 0) hooks.failed(entry, failure);
        result = { sent: false, error: failure, kept: true };
      } else if (failure === undefined || (failure instanceof ApiError && failure.kind === 'bad-answer')) {
        // A 2xx reached the service, usable or not. The answer becomes the new state before the entry leaves the
        // queue, so the change never flickers back.
        result = { sent: true, response };
        hooks.sent(entry, response, failure as ApiError | undefined);
        update(entry.key, () => null);
      } else {
        // The hook sees the queue without the dropped entry, and rolls the change back itself.
        result = { sent: false, error: failure, kept: false };
        update(entry.key, () => null, false);
        hooks.dropped(entry, failure);
        hooks.changed([entry.key]);
      }
    } catch (error) {
      // Handling the entry threw (a hook, say): it leaves the queue all the same, and the queue moves on.
      result = { sent: false, error, kept: false };
      reportError('write-dropped', dropError(entry, error));
      settle([entry.key]);
      try {
        write(read(), true, [entry.key]);
      } catch {
        // The key is settled, so the entry is never read again; the next write stores the queue without it.
      }
    } finally {
      // The guard: an entry that is not kept for a retry is settled, whatever happened above, and never sent again.
      if (!isKept(result)) settle([entry.key]);
      inFlight.delete(entry.key);
      answer(entry.key, result);
    }
    return isKept(result) ? { retry: result.error } : undefined;
  }

  const schedule = (ms: number) => {
    clearTimeout(timer);
    // Within [0, MAX_WAIT_MS] whatever `ms` is (NaN included), so no delay can overflow the timer.
    if (!stopped) timer = setTimeout(flush, Math.max(0, Math.min(MAX_WAIT_MS, ms)) || 0);
  };

  /** Sends entries in queue order until the queue is empty or the head must wait. */
  async function drain(): Promise<void> {
    let lastError: unknown;
    for (let sent = 0; !stopped; sent++) {
      const head = read()[0];
      if (!head || !online()) break;
      if (sent === MAX_PER_PASS) {
        schedule(0);
        break;
      }
      // The head is on its way from a pagehide flush; its answer flushes again.
      if (inFlight.has(head.key)) return;
      let wait = head.retryAt - Date.now();
      if (wait > MAX_WAIT_MS) {
        // No entry waits longer than that, not even one an older version of the script stored.
        wait = MAX_WAIT_MS;
        update(head.key, (entry) => ({ ...entry, retryAt: Date.now() + wait }), false);
      }
      if (wait > 0) {
        schedule(wait);
        break;
      }
      const outcome = await attempt(head);
      if (outcome) {
        lastError = outcome.retry;
        schedule((read()[0]?.retryAt ?? 0) - Date.now());
        break;
      }
    }
    settleWaiting(lastError);
  }

  function flush(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
    const pass = () => drain().catch(() => undefined);
    running = (locks ? locks.request(LOCK_NAME, pass).then(() => undefined, pass) : pass()).finally(() => {
      running = undefined;
      if (again) {
        again = false;
        flush();
      }
    });
  }

  const onOnline = () => {
    // Back online: whatever waits for a backoff is due now.
    write(read().map((entry) => ({ ...entry, retryAt: 0 })));
    flush();
  };
  globalThis.addEventListener?.('online', onOnline);

  return {
    add(userId, item) {
      const entry = { ...item, key: newGuestId().slice(6), userId, attempts: 0, retryAt: 0, at: Date.now() } as OutboxEntry;
      const entries = [...read(), entry];
      let text: string;
      try {
        text = JSON.stringify(entries);
      } catch (error) {
        // The callers refuse such values first (`bad-value`); this guard keeps one from ever entering the queue.
        return void reportError('write-dropped', dropError(entry, error));
      }
      if (text.length > OUTBOX_BUDGET) {
        return void reportError('outbox-full', new Error(`Outbox full (${entries.length - 1} writes, ${OUTBOX_BUDGET} characters): a ${item.path} write was refused, not applied.`));
      }
      const result = new Promise<Attempt>((resolve) => waiters.set(entry.key, resolve));
      mine.set(entry.key, entry);
      write(entries, true, [], text);
      flush();
      return result;
    },
    entries: read,
    settled: settle,
    flush,
    flushOnExit() {
      if (!online()) return;
      for (const entry of read()) {
        if (!inFlight.has(entry.key)) void attempt(entry).then(() => flush());
      }
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      globalThis.removeEventListener?.('online', onOnline);
      settleWaiting();
    },
  };
}
