// The outbox against a fake client: only network and retryable failures keep an entry; anything else lets the queue move on.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, type ApiClient } from '../../src/api/client.js';
import type { UserUpsertRequest } from '../../src/api/wire.js';
import { createOutbox } from '../../src/core/outbox.js';
import { OUTBOX_BUDGET, type Outbox, type OutboxEntry, type OutboxHooks } from '../../src/core/outbox-api.js';
import { onError } from '../../src/core/errors.js';
import { createSafeStorage } from '../../src/core/storage.js';

const sent: string[] = [];
const reported: Array<{ code: string; message: string }> = [];
let outbox: Outbox | undefined;
let stopListening: () => void = () => {};

/** A client that sends batches of users upserts, failing a whole batch that holds an event named in `failures` with the error given there. */
function fakeClient(failures: Record<string, () => unknown> = {}): ApiClient {
  return {
    sendBatch: async (writes) => {
      const events = writes.map((write) => (write.body as UserUpsertRequest).events?.[0]?.event ?? '');
      const fail = events.map((event) => failures[event]).find(Boolean);
      if (fail) throw fail();
      sent.push(...events);
      return { results: writes.map(() => ({ status: 201 })) };
    },
    readFlowStates: async () => ({ eligibleFlows: [], ineligibleFlows: [] }),
  };
}

const hooks = (over: Partial<OutboxHooks> = {}): OutboxHooks => ({
  sent() {},
  dropped() {},
  failed() {},
  changed() {},
  ...over,
});
const track = (event: string) => ({ path: 'users' as const, body: { userId: 'u', events: [{ event }] } });

beforeEach(() => {
  localStorage.clear();
  sent.length = 0;
  reported.length = 0;
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  stopListening = onError((error, code) =>
    reported.push({ code, message: error instanceof Error ? error.message : String(error) }),
  );
});
afterEach(() => {
  outbox?.stop();
  stopListening();
  vi.restoreAllMocks();
});

describe('outbox failures', () => {
  it('drops an entry whose handling throws, reports write-dropped with its path, and sends the entries behind it', async () => {
    let calls = 0;
    outbox = createOutbox(
      createSafeStorage(),
      fakeClient(),
      hooks({
        sent() {
          if (calls++ === 0) throw new TypeError("Cannot read properties of undefined (reading 'map')");
        },
      }),
    );
    const first = outbox.add('u', track('first'));
    const second = outbox.add('u', track('second'));
    expect(await first).toMatchObject({ sent: false, kept: false });
    expect(await second).toMatchObject({ sent: true });
    expect(sent).toEqual(['first', 'second']);
    expect(outbox.entries()).toEqual([]);
    expect(reported).toContainEqual({
      code: 'write-dropped',
      message: expect.stringMatching(/^A users write was dropped: Cannot read/),
    });
  });

  it('drops an entry the client fails with an error it did not classify, and never sends it again', async () => {
    const dropped: unknown[] = [];
    outbox = createOutbox(
      createSafeStorage(),
      fakeClient({ broken: () => new TypeError('not the network') }),
      hooks({ dropped: (_entry, error) => dropped.push(error) }),
    );
    const broken = outbox.add('u', track('broken'));
    const after = outbox.add('u', track('after'));
    expect(await broken).toMatchObject({ sent: false, kept: false });
    expect(await after).toMatchObject({ sent: true });
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toBeInstanceOf(TypeError);
    expect(sent).toEqual(['after']);
    outbox.flush();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sent).toEqual(['after']);
  });

  it('keeps an entry that failed on the network, and holds the entries behind it in order', async () => {
    outbox = createOutbox(
      createSafeStorage(),
      fakeClient({ offline: () => new ApiError(0, {}, undefined, 'network') }),
      hooks(),
    );
    const offline = outbox.add('u', track('offline'));
    const after = outbox.add('u', track('after'));
    expect(await offline).toMatchObject({ sent: false, kept: true });
    expect(await after).toMatchObject({ sent: false, kept: true });
    expect(outbox.entries().map((entry) => entry.body)).toEqual([track('offline').body, track('after').body]);
    expect(outbox.entries()[0]).toMatchObject({ attempts: 1 });
    expect(sent).toEqual([]);
  });

  it('treats a 2xx answer it cannot use as sent, and hands the hook the bad answer', async () => {
    const answers: unknown[] = [];
    const bad = new ApiError(201, { detail: 'not JSON' }, undefined, 'bad-answer');
    outbox = createOutbox(
      createSafeStorage(),
      fakeClient({ garbled: () => bad }),
      hooks({ sent: (_entry, _response, badAnswer) => answers.push(badAnswer) }),
    );
    expect(await outbox.add('u', track('garbled'))).toEqual({ sent: true, response: { known: {}, last: true } });
    expect(answers).toEqual([bad]);
    expect(outbox.entries()).toEqual([]);
  });

  it('discards unreadable stored entries one by one, keeps the good ones, and reports them once', () => {
    const good: OutboxEntry = { ...track('kept'), key: 'k1', userId: 'u', attempts: 0, retryAt: 0, at: 1 };
    const bad = [
      null,
      7,
      { ...good, key: 'k2', body: undefined },
      { ...good, key: 'k3', path: 'elsewhere' },
      { ...good, key: 'k4', at: 'soon' },
    ];
    localStorage.setItem('onboarding:outbox', JSON.stringify([bad[0], good, ...bad.slice(1)]));
    outbox = createOutbox(createSafeStorage(), fakeClient(), hooks());
    expect(outbox.entries()).toEqual([good]);
    expect(outbox.entries()).toEqual([good]);
    expect(reported.filter((r) => r.code === 'storage-discarded')).toEqual([
      { code: 'storage-discarded', message: 'Unreadable, discarded from localStorage: 5 queued writes.' },
    ]);
  });

  it('reads a queue that is not JSON, or not a list, as one unreadable entry', () => {
    for (const text of ['{broken', '{"key":"k"}']) {
      localStorage.setItem('onboarding:outbox', text);
      outbox = createOutbox(createSafeStorage(), fakeClient(), hooks());
      expect(outbox.entries()).toEqual([]);
      outbox.stop();
    }
    expect(reported.filter((r) => r.code === 'storage-discarded')).toHaveLength(2);
  });

  it('refuses a write that would take the queue over its byte budget, and keeps every write already queued', async () => {
    outbox = createOutbox(
      createSafeStorage(),
      fakeClient({ big: () => new ApiError(0, {}, undefined, 'network') }),
      hooks(),
    );
    const blob = 'x'.repeat(OUTBOX_BUDGET / 4);
    const big = (i: number) => ({
      path: 'users' as const,
      body: { userId: 'u', events: [{ event: 'big', properties: { i, blob } }] },
    });
    const added = [0, 1, 2].map((i) => outbox!.add('u', big(i)));
    expect(added.every((attempt) => attempt instanceof Promise)).toBe(true);
    expect(outbox.add('u', big(3))).toBeUndefined();
    expect(reported.map((r) => r.code)).toEqual(['outbox-full']);
    expect(reported[0].message).toBe(
      'Outbox full (3 writes, 1048576 characters): a users write was refused, not applied.',
    );
    expect(outbox.entries().map((entry) => (entry.body as UserUpsertRequest).events![0].properties!.i)).toEqual([
      0, 1, 2,
    ]);
    // The queue is stored once for the writes of one task, a microtask later.
    await Promise.resolve();
    expect(localStorage.getItem('onboarding:outbox')!.length).toBeLessThanOrEqual(OUTBOX_BUDGET);
    // A small write still fits.
    expect(outbox.add('u', track('small'))).toBeInstanceOf(Promise);
  });

  it('waits at most ten minutes for an entry, even one stored with a later retry time', async () => {
    const entry: OutboxEntry = {
      ...track('later'),
      key: 'k1',
      userId: 'u',
      attempts: 3,
      retryAt: Date.now() + 4_000_000_000,
      at: 1,
    };
    localStorage.setItem('onboarding:outbox', JSON.stringify([entry]));
    const delays: number[] = [];
    const setTimeoutOfPage = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation((handler: () => void, ms?: number) => {
      delays.push(ms ?? 0);
      return setTimeoutOfPage(handler, 0x7fffffff);
    });
    outbox = createOutbox(createSafeStorage(), fakeClient(), hooks());
    outbox.flush();
    await new Promise((resolve) => setTimeoutOfPage(resolve, 20));
    expect(Math.max(...delays)).toBe(10 * 60_000);
    expect(outbox.entries()[0].retryAt - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    expect(sent).toEqual([]);
  });
});
