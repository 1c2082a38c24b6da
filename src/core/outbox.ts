// The outbox: one persisted queue for every write (users, groups, track, flowStates), sent in order,
// each with an Idempotency-Key kept across retries and reloads, retried with backoff while the network fails.
import { ApiError, type ApiClient } from '../api/client.js';
import type { FlowStateWriteRequest, GroupUpsertRequest, UserUpsertRequest } from '../api/wire.js';
import { newGuestId } from './identity.js';
import { readJson, writeJson, type KeyValueStore } from './storage.js';

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
  /** The service accepted the entry; `response` is its body (null when it sent none). */
  sent(entry: OutboxEntry, response: unknown): void;
  /** The service refused the entry (a 4xx); it has been dropped, and `changed` follows. */
  refused(entry: OutboxEntry, error: unknown): void;
  /** The entry failed and is kept for a retry. */
  failed(entry: OutboxEntry, error: unknown): void;
  /** The queue changed (an entry added, sent or dropped); `settled` lists the keys that left it. */
  changed(settled: string[]): void;
}

export interface Outbox {
  add(userId: string, write: OutboxWrite): Promise<Attempt>;
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
/** Bounds: the queue never grows without limit, and the backoff never waits longer than this. */
export const MAX_ENTRIES = 500;
const MAX_BACKOFF_MS = 30_000;
/** keepalive requests share a 64 KiB budget; a larger body is sent without it. */
const KEEPALIVE_BYTES = 60_000;
const REQUEST_TIMEOUT_MS = 20_000;

/** Exponential backoff with jitter, honouring a server's Retry-After when it asks for longer. */
export function backoffMs(attempts: number, retryAfterMs = 0, random = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(attempts, 16));
  return Math.max(retryAfterMs, Math.round(ceiling * (0.5 + random() / 2)));
}

/** Network failures, 408, 429 and 5xx are worth another try; any other 4xx is a refusal. */
export const isRetryable = (error: unknown) =>
  !(error instanceof ApiError) || error.status >= 500 || error.status === 408 || error.status === 429;

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
    // Bounded: keys older than the last few hundred are long gone from every tab's queue.
    for (const key of settledKeys) if (settledKeys.size > MAX_ENTRIES) settledKeys.delete(key);
  };
  const read = (): OutboxEntry[] => {
    const stored = readJson<OutboxEntry[]>(storage, OUTBOX_KEY);
    const entries = (Array.isArray(stored) ? stored : []).filter((entry) => !settledKeys.has(entry.key));
    const present = new Set(entries.map((entry) => entry.key));
    for (const entry of mine.values()) if (!present.has(entry.key)) entries.push(entry);
    return entries.sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
  };
  const write = (entries: OutboxEntry[], notify = true, settled: string[] = []) => {
    if (entries.length) writeJson(storage, OUTBOX_KEY, entries);
    else storage.remove(OUTBOX_KEY);
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
    // A request that hangs must not hold the queue (and the cross-tab lock) for ever.
    const signal = typeof AbortSignal.timeout === 'function' ? AbortSignal.timeout(REQUEST_TIMEOUT_MS) : undefined;
    const options = { idempotencyKey: entry.key, keepalive, signal };
    if (entry.path === 'users') return client.upsertUser(entry.body, options);
    if (entry.path === 'groups') return client.upsertGroup(entry.body, options);
    return client.writeFlowState(entry.body, options);
  }

  /** One attempt at one entry; returns the error when the entry is kept for a retry. */
  async function attempt(entry: OutboxEntry): Promise<{ retry: unknown } | undefined> {
    inFlight.add(entry.key);
    try {
      const keepalive = JSON.stringify(entry.body).length < KEEPALIVE_BYTES;
      const response = await send(entry, keepalive);
      // The answer becomes the new state before the entry leaves the queue, so the change never flickers back.
      hooks.sent(entry, response ?? null);
      update(entry.key, () => null);
      answer(entry.key, { sent: true, response: response ?? null });
      return undefined;
    } catch (error) {
      if (isRetryable(error)) {
        const retryAfterMs = error instanceof ApiError ? error.retryAfterMs : undefined;
        update(entry.key, (kept) => ({ ...kept, attempts: kept.attempts + 1, retryAt: Date.now() + backoffMs(kept.attempts, retryAfterMs) }));
        if (entry.attempts === 0) hooks.failed(entry, error);
        answer(entry.key, { sent: false, error, kept: true });
        return { retry: error };
      }
      // The hook sees the queue without the refused entry, and rolls the change back itself.
      update(entry.key, () => null, false);
      hooks.refused(entry, error);
      hooks.changed([entry.key]);
      answer(entry.key, { sent: false, error, kept: false });
      return undefined;
    } finally {
      inFlight.delete(entry.key);
    }
  }

  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(flush, Math.max(0, ms));
  };

  /** Sends entries in queue order until the queue is empty or the head must wait. */
  async function drain(): Promise<void> {
    let lastError: unknown;
    for (let sent = 0; sent < MAX_ENTRIES && !stopped; sent++) {
      const head = read()[0];
      if (!head) break;
      if (!online()) break;
      // The head is on its way from a pagehide flush; its answer flushes again.
      if (inFlight.has(head.key)) return;
      const wait = head.retryAt - Date.now();
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
      const result = new Promise<Attempt>((resolve) => waiters.set(entry.key, resolve));
      const entries = [...read(), entry];
      mine.set(entry.key, entry);
      // A queue that outgrew its bound drops its oldest writes rather than the page's memory.
      write(entries.slice(-MAX_ENTRIES));
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
