// The outbox: one persisted queue for every write (users, groups, track, flowStates), sent in order and in batches,
// each with an Idempotency-Key kept across retries and reloads, retried with backoff while the network fails.
import { ApiError, isRetryable, MAX_WAIT_MS, type ApiClient } from '../api/client.js';
import { isQueuedWrite } from '../api/guards.js';
import type { BatchWrite } from '../api/wire.js';
import { backoffMs } from './backoff.js';
import { newGuestId } from './identity.js';
import { reportError } from './errors.js';
import { discarded, type KeyValueStore } from './storage.js';
import {
  dropError,
  OUTBOX_BUDGET,
  type Attempt,
  type Outbox,
  type OutboxEntry,
  type OutboxHooks,
  type Sent,
} from './outbox-api.js';

const OUTBOX_KEY = 'outbox';
const LOCK_NAME = 'onboarding:outbox';
/** Entries sent in one pass while holding the cross-tab lock; a longer queue goes on in the next pass. */
const MAX_PER_PASS = 1000;
/** The most writes in one batch (the service takes 100). */
const MAX_BATCH = 100;
/** Settled keys remembered against stale copies of the queue written back by other tabs (a moment old at most). */
const MAX_SETTLED_KEYS = 1000;
/** keepalive requests share a 64 KiB budget, and the service takes 100 KB: a batch holds at most this much JSON (one larger write goes alone, without keepalive). */
const BATCH_BYTES = 60_000;

const isKept = (attempt: Attempt): attempt is { sent: false; error?: unknown; kept: true } =>
  !attempt.sent && attempt.kept;

/** The outbox over `storage`, sending through `client` and telling the core through `hooks` (see outbox-api.ts). */
export function createOutbox(storage: KeyValueStore, client: ApiClient, hooks: OutboxHooks): Outbox {
  const inFlight = new Set<string>();
  const waiters = new Map<string, (attempt: Attempt) => void>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  /** A microtask will store the queue with the entries added in this task. */
  let storing = false;

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

  /** After a batch the service refused whole (a 413, say), this many entries are sent alone, so one cannot hold up the others. */
  let alone = 0;

  /** The entries that go in one batch from the head of `entries`: in order, at most MAX_BATCH and BATCH_BYTES of JSON. */
  function take(entries: OutboxEntry[], now: number): { batch: OutboxEntry[]; bytes: number } {
    const batch: OutboxEntry[] = [];
    let bytes = 0;
    for (const entry of entries) {
      if (entry.retryAt > now || inFlight.has(entry.key) || batch.length === (alone > 0 ? 1 : MAX_BATCH)) break;
      const size = JSON.stringify(entry.body).length;
      if (batch.length && bytes + size > BATCH_BYTES) break;
      batch.push(entry);
      bytes += size;
    }
    return { batch, bytes };
  }

  /**
   * One attempt at one batch; returns the error when its entries are kept for a retry. Only a failure the client
   * classified as retryable (isRetryable) keeps entries; whatever else happens, each entry leaves the queue, so
   * one entry can never hold up the writes behind it.
   */
  async function attempt(batch: OutboxEntry[], keepalive: boolean): Promise<{ retry: unknown } | undefined> {
    const results = new Map<string, Attempt>();
    for (const entry of batch) inFlight.add(entry.key);
    let retry: unknown;
    const keep = (entry: OutboxEntry, error: unknown, retryAfterMs?: number) => {
      update(entry.key, (kept) => ({
        ...kept,
        attempts: kept.attempts + 1,
        retryAt: Date.now() + backoffMs(kept.attempts, retryAfterMs),
      }));
      if (entry.attempts === 0) hooks.failed(entry, error);
      results.set(entry.key, { sent: false, error, kept: true });
      retry = error;
    };
    const drop = (entry: OutboxEntry, error: unknown) => {
      // The hook sees the queue without the dropped entry, and rolls the change back itself.
      results.set(entry.key, { sent: false, error, kept: false });
      update(entry.key, () => null, false);
      hooks.dropped(entry, error);
      hooks.changed([entry.key]);
    };
    /** Handling the entry threw (a hook, say): it leaves the queue all the same, and the queue moves on. */
    const handlingFailed = (entry: OutboxEntry, error: unknown) => {
      results.set(entry.key, { sent: false, error, kept: false });
      reportError('write-dropped', dropError(entry, error));
      settle([entry.key]);
      try {
        write(read(), true, [entry.key]);
      } catch {
        // The key is settled, so the entry is never read again; the next write stores the queue without it.
      }
    };
    try {
      const known = batch.some((entry) => entry.path === 'users') ? (hooks.knownVersions?.() ?? {}) : null;
      const writes = batch.map(({ path, key, body }) => ({ path, idempotencyKey: key, body }) as BatchWrite);
      let answer: Awaited<ReturnType<ApiClient['sendBatch']>> | undefined;
      let failure: unknown;
      try {
        answer = await client.sendBatch(writes, known ?? undefined, { keepalive });
      } catch (error) {
        failure = error ?? new Error('no error given');
      }
      if (isRetryable(failure)) {
        for (const entry of batch) keep(entry, failure, (failure as ApiError).retryAfterMs);
      } else if (failure !== undefined && !(failure instanceof ApiError && failure.kind === 'bad-answer')) {
        // The service refused the batch as a whole: send each of its writes alone, so only a bad one is refused.
        if (batch.length > 1) alone = batch.length;
        else drop(batch[0], failure);
      } else {
        const badAnswer =
          failure ??
          (answer!.results.length === batch.length
            ? undefined
            : new ApiError(
                200,
                { detail: `The service answered ${answer!.results.length} results for ${batch.length} writes.` },
                undefined,
                'bad-answer',
              ));
        const gone: string[] = [];
        batch.forEach((entry, index) => {
          try {
            const result = badAnswer ? undefined : answer!.results[index];
            const status = result?.status ?? 200;
            if (status >= 200 && status < 300) {
              const last = index === batch.length - 1;
              const response: Sent = {
                ...(result ? { result } : {}),
                ...(last && answer?.flowStates ? { flowStates: answer.flowStates } : {}),
                known,
                last,
              };
              // A 2xx reached the service, usable or not. The answer becomes the new state before the entry leaves
              // the queue, so the change never flickers back.
              results.set(entry.key, { sent: true, response });
              hooks.sent(entry, response, badAnswer);
              // One `changed` for the batch, below: the state is computed again once, not once per write.
              update(entry.key, () => null, false);
              gone.push(entry.key);
            } else {
              const error = new ApiError(status, result?.problem ?? { status });
              if (isRetryable(error)) keep(entry, error);
              else drop(entry, error);
            }
          } catch (error) {
            handlingFailed(entry, error);
          }
        });
        if (gone.length) hooks.changed(gone);
      }
    } catch (error) {
      for (const entry of batch) if (!results.has(entry.key)) handlingFailed(entry, error);
    } finally {
      for (const entry of batch) {
        const result = results.get(entry.key);
        inFlight.delete(entry.key);
        // Refused whole, with more than one entry: they stay, to be sent alone.
        if (!result) continue;
        // The guard: an entry that is not kept for a retry is settled, whatever happened above, and never sent again.
        if (!isKept(result)) settle([entry.key]);
        answer(entry.key, result);
      }
    }
    return retry === undefined ? undefined : { retry };
  }

  const schedule = (ms: number) => {
    clearTimeout(timer);
    // Within [0, MAX_WAIT_MS] whatever `ms` is (NaN included), so no delay can overflow the timer.
    if (!stopped) timer = setTimeout(flush, Math.max(0, Math.min(MAX_WAIT_MS, ms)) || 0);
  };

  /** Sends entries in queue order, in batches, until the queue is empty or the head must wait. */
  async function drain(): Promise<void> {
    let lastError: unknown;
    for (let sent = 0; !stopped;) {
      const entries = read();
      const head = entries[0];
      if (!head || !online()) break;
      if (sent >= MAX_PER_PASS) {
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
      const { batch, bytes } = take(entries, Date.now());
      if (alone > 0) alone--;
      sent += batch.length;
      const outcome = await attempt(batch, bytes < BATCH_BYTES);
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
      const entry = { ...item, key: newGuestId().slice(6), userId, attempts: 0, retryAt: 0, at: Date.now() };
      const entries = [...read(), entry];
      let text: string;
      try {
        // Checked now, so a write that cannot be stored, or does not fit, is refused at once.
        text = JSON.stringify(entries);
      } catch (error) {
        // The callers refuse such values first (`bad-value`); this guard keeps one from ever entering the queue.
        return void reportError('write-dropped', dropError(entry, error));
      }
      if (text.length > OUTBOX_BUDGET) {
        return void reportError(
          'outbox-full',
          new Error(
            `Outbox full (${entries.length - 1} writes, ${OUTBOX_BUDGET} characters): a ${item.path} write was refused, not applied.`,
          ),
        );
      }
      const result = new Promise<Attempt>((resolve) => waiters.set(entry.key, resolve));
      // In the queue at once (read() joins this tab's own entries); stored, and announced through `changed`, once for
      // all the writes of this task, in a microtask: one localStorage write and one new view, not one per write.
      mine.set(entry.key, entry);
      if (!storing) {
        storing = true;
        queueMicrotask(() => {
          storing = false;
          write(read(), true);
        });
      }
      // A moment later, not now: the writes made in the same moment (a page's elements each recording their first
      // showing, say) go together in one batch.
      schedule(0);
      return result;
    },
    entries: read,
    settled: settle,
    flush,
    flushOnExit() {
      if (!online()) return;
      // Everything at once, due or not, in batches the keepalive budget takes.
      let entries = read()
        .filter((entry) => !inFlight.has(entry.key))
        .map((entry) => ({ ...entry, retryAt: 0 }));
      while (entries.length) {
        const { batch, bytes } = take(entries, 0);
        if (!batch.length) break;
        entries = entries.slice(batch.length);
        void attempt(batch, bytes < BATCH_BYTES).then(() => flush());
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
