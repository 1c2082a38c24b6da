// Identity verification from the script's side, against a service that requires it: the hash travels with every request for its user.
import nodeConsole from 'node:console';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { userHashFor } from '../../server/http/identity.js';
import { newGuestId, randomUuid } from '../../src/core/identity.js';
import { startLoopbackProxy, type LoopbackProxy } from '../support/loopback-proxy.js';
import { isStateRead, writesIn } from '../support/requests.js';
import { checklistYaml, PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';
import { countRows, destroySdks, loadSdk } from '../support/core-sdk.js';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

const SECRET = 'a-secret-of-16+chars-for-tests';
const hash = (userId: string) => userHashFor(SECRET, userId);

let service: TestService;
let proxy: LoopbackProxy;

beforeAll(async () => {
  service = await startTestService(
    { 'setup.yaml': checklistYaml('setup') },
    { identity: { secrets: [SECRET], required: true } },
  );
});
afterAll(() => service?.close());
beforeEach(async () => {
  localStorage.clear();
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  // happy-dom logs failed requests to Node's console as a browser would; one test takes the service away on purpose.
  vi.spyOn(nodeConsole, 'error').mockImplementation(() => {});
  proxy = await startLoopbackProxy(service.url);
});
afterEach(async () => {
  destroySdks();
  vi.restoreAllMocks();
  await proxy.close();
});

/** What each request since `since` sent for `userId`: its kind and the userHash it carried. */
function sentFor(userId: string, since = 0): Array<{ kind: string; userHash?: unknown }> {
  const seen: Array<{ kind: string; userHash?: unknown }> = [];
  for (const r of proxy.requests.slice(since)) {
    if (isStateRead(r)) {
      const body = JSON.parse(r.body);
      if (body.userId === userId) seen.push({ kind: 'read', userHash: body.userHash });
    }
    for (const write of writesIn(r))
      if (write.body.userId === userId) seen.push({ kind: write.path, userHash: write.body.userHash });
  }
  return seen;
}

describe('userHash', () => {
  it('sends the hash with every request for its user: the upsert, reads, transitions, track and group', async () => {
    const { sdk, ready, errors } = await loadSdk(proxy.url, PUBLIC_KEY);
    await sdk.identify('hashed-user', { plan: 'pro' }, { userHash: hash('hashed-user') });
    await ready;
    await sdk.getFlow('setup')!.steps[0].complete();
    await sdk.track('verified');
    await sdk.group('hashed-group');
    await sdk.refresh();
    await vi.waitFor(() => expect(localStorage.getItem('onboarding:outbox')).toBeNull());
    const sent = sentFor('hashed-user');
    expect(new Set(sent.map((request) => request.kind))).toEqual(new Set(['users', 'flowStates', 'groups', 'read']));
    expect(sent.every((request) => request.userHash === hash('hashed-user'))).toBe(true);
    // Nothing in a URL.
    expect(proxy.requests.some((r) => r.path.includes(hash('hashed-user')))).toBe(false);
    expect(errors).toEqual([]);
    expect(await countRows(service, "SELECT count(*) AS n FROM flow_responses WHERE user_id = 'hashed-user'")).toBe(1);
    expect(await countRows(service, "SELECT count(*) AS n FROM group_members WHERE user_id = 'hashed-user'")).toBe(1);
  });

  it('keeps the hash with the user across a reload, so the returning visitor reads with it', async () => {
    const first = await loadSdk(proxy.url, PUBLIC_KEY, {
      userId: 'returning-hashed',
      userHash: hash('returning-hashed'),
    });
    await first.ready;
    expect(first.errors).toEqual([]);
    destroySdks();
    const since = proxy.requests.length;
    const second = await loadSdk(proxy.url, PUBLIC_KEY);
    await second.ready;
    expect(second.sdk.userId).toBe('returning-hashed');
    expect(sentFor('returning-hashed', since)).toEqual([{ kind: 'read', userHash: hash('returning-hashed') }]);
    expect(second.errors).toEqual([]);
    expect(second.sdk.getFlow('setup')).toBeDefined();
  });

  it('forgets the hash on reset, and never sends one user’s hash for another', async () => {
    const { sdk, ready, errors } = await loadSdk(proxy.url, PUBLIC_KEY);
    await ready;
    await sdk.identify('ada-hashed', undefined, { userHash: hash('ada-hashed') });
    await sdk.identify('grace-hashed', undefined, { userHash: hash('grace-hashed') });
    expect(sentFor('grace-hashed').every((request) => request.userHash === hash('grace-hashed'))).toBe(true);
    expect(errors).toEqual([]);

    await sdk.reset();
    expect(Object.keys(localStorage).filter((key) => key.includes('userHash'))).toEqual([]);
    expect(sdk.userId).toMatch(/^guest_/);
    // The same user again, without a hash: the forgotten one is not sent, so the service refuses.
    const since = proxy.requests.length;
    await sdk.identify('grace-hashed');
    expect(sentFor('grace-hashed', since)).toEqual([{ kind: 'users', userHash: undefined }]);
    expect(errors).toContainEqual({ code: 'write-refused', status: 401 });
  });

  it('sends queued writes with the hash they were made with, after the user changed', async () => {
    const { sdk, ready, errors } = await loadSdk(proxy.url, PUBLIC_KEY);
    await sdk.identify('queued-first', undefined, { userHash: hash('queued-first') });
    await ready;
    proxy.down();
    await sdk.getFlow('setup')!.steps[0].complete();
    const identified = sdk.identify('queued-second', undefined, { userHash: hash('queued-second') });
    proxy.up();
    await identified;
    await vi.waitFor(() => expect(localStorage.getItem('onboarding:outbox')).toBeNull(), {
      timeout: 20_000,
      interval: 100,
    });
    expect(
      sentFor('queued-first')
        .filter((request) => request.kind === 'flowStates')
        .map((request) => request.userHash),
    ).toContain(hash('queued-first'));
    expect(await countRows(service, "SELECT count(*) AS n FROM flow_responses WHERE user_id = 'queued-first'")).toBe(1);
    await vi.waitFor(() => expect(sdk.getFlow('setup')).toBeDefined());
    await sdk.getFlow('setup')!.steps[1].complete();
    await vi.waitFor(async () =>
      expect(await countRows(service, "SELECT count(*) AS n FROM flow_responses WHERE user_id = 'queued-second'")).toBe(
        1,
      ),
    );
    expect(errors.filter((error) => error.code !== 'write-failed')).toEqual([]);
  });

  it('refuses a userHash that is not a string and does nothing', async () => {
    const { sdk, ready, errors } = await loadSdk(proxy.url, PUBLIC_KEY);
    await ready;
    const guest = sdk.userId;
    await sdk.identify('typed-user', undefined, { userHash: 42 as never });
    expect(sdk.userId).toBe(guest);
    expect(errors).toContainEqual({ code: 'bad-user-hash', status: undefined });
    expect(sentFor('typed-user')).toEqual([]);
  });
});

describe('guest IDs', () => {
  it('come from crypto.getRandomValues where crypto.randomUUID is missing, never from Math.random', () => {
    const random = vi.spyOn(Math, 'random');
    // Put back as it was found, bound or not: the property itself, not a call.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const randomUUID = crypto.randomUUID;
    const getRandomValues = vi.spyOn(crypto, 'getRandomValues');
    try {
      Object.defineProperty(crypto, 'randomUUID', { value: undefined, configurable: true });
      const ids = new Set(Array.from({ length: 100 }, newGuestId));
      expect(ids.size).toBe(100);
      for (const id of ids)
        expect(id).toMatch(/^guest_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(getRandomValues).toHaveBeenCalledTimes(100);
    } finally {
      Object.defineProperty(crypto, 'randomUUID', { value: randomUUID, configurable: true });
    }
    expect(randomUuid()).toMatch(/^[0-9a-f-]{36}$/);
    expect(random).not.toHaveBeenCalled();
  });
});
