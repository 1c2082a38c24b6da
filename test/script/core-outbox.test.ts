// The outbox and optimistic transitions against the real service: outages, retries, refusals, stale answers, reloads.
import nodeConsole from 'node:console';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { checklistYaml, PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';
import { startLoopbackProxy, type LoopbackProxy } from '../support/loopback-proxy.js';
import { carriesWrite, isStateRead, writesIn } from '../support/requests.js';
import { blockedYaml, countRows, destroySdks, loadSdk } from '../support/core-sdk.js';

// These tests start a real service and wait for real retries; a busy 2-core machine needs the room.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

let service: TestService;
let proxy: LoopbackProxy;

const isTransition = carriesWrite('flowStates');
const outboxLength = () => JSON.parse(localStorage.getItem('onboarding:outbox') ?? '[]').length as number;
const completed = (sdk: { getFlow(slug: string): { steps: Array<{ state: { completed: boolean } }> } | undefined }) =>
  sdk.getFlow('setup')!.steps.map((s) => s.state.completed);

beforeAll(async () => {
  service = await startTestService({ 'setup.yaml': checklistYaml('setup'), 'gated.yaml': blockedYaml });
});
afterAll(() => service?.close());
beforeEach(async () => {
  localStorage.clear();
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  // happy-dom logs failed requests to Node's console as a browser would; these tests fail requests on purpose.
  vi.spyOn(nodeConsole, 'error').mockImplementation(() => {});
  proxy = await startLoopbackProxy(service.url);
});
afterEach(async () => {
  destroySdks();
  vi.restoreAllMocks();
  await proxy.close();
});

describe('outbox', () => {
  it('stores every transition and event exactly once when the service goes away mid-session and comes back', async () => {
    const { sdk, ready, errors } = await loadSdk(proxy.url, PUBLIC_KEY);
    await sdk.identify('outage-user');
    await ready;

    proxy.down();
    const flow = () => sdk.getFlow('setup')!;
    await flow().steps[0].complete({ answer: 1 });
    await sdk.track('clicked-export');
    await flow().steps[1].skip();
    await sdk.track('clicked-share', { via: 'email' });
    // The page sees every change at once, while the service is away.
    expect(flow().steps.map((s) => [s.state.completed, s.state.skipped])).toEqual([
      [true, false],
      [false, true],
      [false, false],
    ]);
    expect(outboxLength()).toBe(4);
    expect(errors.map((e) => e.code)).toContain('write-failed');

    // Back up, but the first answer is lost after the service applied the write: the retry must not apply it twice.
    proxy.loseAnswer(isTransition);
    proxy.up();
    await vi.waitFor(() => expect(outboxLength()).toBe(0), { timeout: 20_000, interval: 100 });

    expect(await countRows(service, "SELECT count(*) AS n FROM flow_responses WHERE user_id = 'outage-user'")).toBe(2);
    expect(await countRows(service, "SELECT count(*) AS n FROM user_events WHERE user_id = 'outage-user'")).toBe(2);
    const [step] = await service.db.query<{ data: unknown }>(
      "SELECT data FROM step_states WHERE user_id = 'outage-user' AND step_id = 'one'",
    );
    expect(step.data).toEqual({ answer: 1 });

    // Each write kept its Idempotency-Key across attempts, and reached the service in the order it was made.
    const writes = proxy.requests.flatMap(writesIn).map((write) => ({ ...write, text: JSON.stringify(write.body) }));
    const keyOf = new Map<string, Set<string>>();
    for (const write of writes) keyOf.set(write.text, (keyOf.get(write.text) ?? new Set()).add(write.key!));
    expect([...keyOf.values()].every((keys) => keys.size === 1)).toBe(true);
    expect(new Set(writes.map((w) => w.key)).size).toBe(keyOf.size);
    const order = [...new Set(writes.map((w) => w.text))].map((body) => JSON.parse(body));
    expect(order.slice(-4).map((b) => b.stepId ?? b.events[0].event)).toEqual([
      'one',
      'clicked-export',
      'two',
      'clicked-share',
    ]);
    expect(completed(sdk)).toEqual([true, false, false]);
  });

  it('retries a 503 and a 429 after the Retry-After the service asked for', async () => {
    const { sdk, ready } = await loadSdk(proxy.url, PUBLIC_KEY);
    await sdk.identify('busy-user');
    await ready;
    proxy.answer(isTransition, 429, '{"status":429}', { headers: { 'Retry-After': '1' }, times: 1 });
    proxy.answer(isTransition, 503, '{"status":503}', { times: 1 });
    await sdk.getFlow('setup')!.steps[0].complete();
    await vi.waitFor(() => expect(outboxLength()).toBe(0), { timeout: 15_000, interval: 50 });
    const attempts = proxy.requests.filter(isTransition);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.flatMap(writesIn).map((write) => write.key)).size).toBe(1);
    // The 429 asked for a second; the 503 after it is retried with a backoff of its own.
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(1000);
    expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(250);
    expect(await countRows(service, "SELECT count(*) AS n FROM flow_responses WHERE user_id = 'busy-user'")).toBe(1);
  });

  it('reads again after a read the service shed, at the Retry-After it asked for, and draws the answer', async () => {
    proxy.answer(isStateRead, 503, '{"status":503,"title":"Service Unavailable"}', {
      headers: { 'Retry-After': '1' },
      times: 1,
    });
    const { sdk, ready, errors } = await loadSdk(proxy.url, PUBLIC_KEY);
    await ready;
    expect(errors.map((error) => error.status)).toContain(503);
    expect(sdk.getFlow('setup')).toBeUndefined();
    await vi.waitFor(() => expect(sdk.getFlow('setup')).toBeDefined(), { timeout: 10_000, interval: 50 });
    const reads = proxy.requests.filter(isStateRead);
    expect(reads).toHaveLength(2);
    expect(reads[1].at - reads[0].at).toBeGreaterThanOrEqual(1000);
  });

  it('does not try again, once destroyed, a read that was on its way and then failed', async () => {
    const held = proxy.hold(isStateRead);
    const { sdk } = await loadSdk(proxy.url, PUBLIC_KEY);
    await held.arrived;
    sdk.destroy();
    // The read fails after the page let the script go; its retry would come within half a second.
    proxy.down();
    proxy.up();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(proxy.requests.filter(isStateRead)).toHaveLength(1);
  });

  it('rolls back a write the service refuses and reports it through error', async () => {
    const { sdk, ready, errors, events } = await loadSdk(proxy.url, PUBLIC_KEY);
    await sdk.identify('refused-user');
    await ready;
    const locked = () => sdk.getFlow('gated')!.steps[1];
    expect(locked().state.blocked).toBe(true);
    await locked().complete();
    // Optimistic first…
    expect(locked().state.completed).toBe(true);
    // …then the 409 undoes it.
    await vi.waitFor(() => expect(locked().state.completed).toBe(false));
    expect(errors).toContainEqual({ code: 'write-refused', status: 409 });
    expect(outboxLength()).toBe(0);
    // The optimistic change raised its events; the rollback raises none of its own, only `error`.
    expect(events.filter((e) => e.slug === 'gated').map((e) => e.name)).toEqual([
      'flow.start',
      'step.start',
      'step.complete',
    ]);
    expect(sdk.getFlow('gated')!.isStarted).toBe(false);
    expect(await countRows(service, "SELECT count(*) AS n FROM step_states WHERE user_id = 'refused-user'")).toBe(0);
  });

  it('sends what a previous visit could not, on the next visit', async () => {
    const first = await loadSdk(proxy.url, PUBLIC_KEY);
    await first.sdk.identify('reloading-user');
    await first.ready;
    proxy.down();
    await first.sdk.getFlow('setup')!.steps[0].complete();
    await first.sdk.track('before-reload');
    destroySdks();
    expect(outboxLength()).toBe(2);

    proxy.up();
    const second = await loadSdk(proxy.url, PUBLIC_KEY);
    // The pending change shows at once on the next visit.
    expect(completed(second.sdk)).toEqual([true, false, false]);
    await vi.waitFor(() => expect(outboxLength()).toBe(0), { timeout: 10_000 });
    expect(await countRows(service, "SELECT count(*) AS n FROM flow_responses WHERE user_id = 'reloading-user'")).toBe(
      1,
    );
    expect(await countRows(service, "SELECT count(*) AS n FROM user_events WHERE user_id = 'reloading-user'")).toBe(1);
  });
});

describe('stale answers', () => {
  it('does not let the answer to an older click overwrite a newer click', async () => {
    const { sdk, ready, events } = await loadSdk(proxy.url, PUBLIC_KEY);
    await sdk.identify('stale-write-user');
    await ready;
    const first = proxy.hold(isTransition);
    const second = proxy.hold(isTransition);
    await sdk.getFlow('setup')!.steps[0].complete();
    await first.arrived;
    await sdk.getFlow('setup')!.steps[1].complete();
    expect(completed(sdk)).toEqual([true, true, false]);

    // The service's answer to the first click knows nothing of the second one.
    first.release();
    await second.arrived;
    expect(completed(sdk)).toEqual([true, true, false]);
    expect(sdk.getFlow('setup')!.currentStep!.id).toBe('three');
    second.release();
    await vi.waitFor(() => expect(outboxLength()).toBe(0));
    expect(completed(sdk)).toEqual([true, true, false]);
    // Each step completed once: no flicker back and forth.
    expect(events.filter((e) => e.slug === 'setup').map((e) => `${e.name}:${e.step ?? ''}`)).toEqual([
      'flow.start:',
      'step.start:one',
      'step.complete:one',
      'step.start:two',
      'step.complete:two',
    ]);
  });

  it('drops a read that was overtaken by a write’s answer', async () => {
    const { sdk, ready } = await loadSdk(proxy.url, PUBLIC_KEY);
    await sdk.identify('stale-read-user');
    await ready;
    const read = proxy.hold(isStateRead);
    const refreshing = sdk.refresh();
    await read.arrived;
    await sdk.getFlow('setup')!.steps[0].complete();
    await vi.waitFor(() => expect(outboxLength()).toBe(0));
    read.release();
    await refreshing;
    expect(completed(sdk)).toEqual([true, false, false]);
  });
});
