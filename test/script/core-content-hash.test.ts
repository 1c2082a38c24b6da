// Content named by its hash against the real service: what the script sends as knownVersions, and content cached by an
// earlier script (with no hash), which keeps being drawn and is not read again.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { bannerFlowYaml, PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';
import { startLoopbackProxy } from '../support/loopback-proxy.js';
import { isStateRead } from '../support/requests.js';
import { destroySdks, loadSdk } from '../support/core-sdk.js';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

let service: TestService;
let proxy: Awaited<ReturnType<typeof startLoopbackProxy>>;

beforeAll(async () => {
  service = await startTestService({ 'welcome.yaml': bannerFlowYaml('welcome', 'Cached title') });
  proxy = await startLoopbackProxy(service.url);
});
afterAll(async () => {
  await proxy?.close();
  await service?.close();
});
beforeEach(() => {
  localStorage.clear();
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => {
  destroySdks();
  vi.restoreAllMocks();
});

const titleOf = (stores: { $flows: { get(): Record<string, { steps: Array<{ title?: unknown }> }> } }) =>
  stores.$flows.get().welcome?.steps[0]?.title;
const readBodies = (since: number) =>
  proxy.requests
    .slice(since)
    .filter(isStateRead)
    .map((request) => JSON.parse(request.body) as { knownVersions?: Record<string, unknown> });

describe('flow content named by its hash', () => {
  it('sends the hash of the content it holds, and takes no content back for it', async () => {
    const { stores, ready } = await loadSdk(proxy.url, PUBLIC_KEY);
    await ready;
    await vi.waitFor(() => expect(titleOf(stores as never)).toBe('Cached title'));
    const hash = service.catalog.get('welcome')!.contentHash;
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    destroySdks();

    const since = proxy.requests.length;
    const second = await loadSdk(proxy.url, PUBLIC_KEY);
    await second.ready;
    await vi.waitFor(() => expect(readBodies(since).length).toBeGreaterThan(0));
    expect(readBodies(since)[0].knownVersions).toEqual({ welcome: hash });
    expect(titleOf(second.stores as never)).toBe('Cached title');
  });

  it('keeps drawing content an earlier script cached by version number, and reads it no second time', async () => {
    const version = service.catalog.get('welcome')!.flow.version;
    // What a script from before hashes left in the cache: the definition with its version and no hash.
    localStorage.setItem(
      'onboarding:content',
      JSON.stringify([
        {
          slug: 'welcome',
          name: 'Welcome',
          type: 'BANNER',
          version,
          data: { steps: [{ id: 'hello', title: 'Cached title', subtitle: 'Start here' }] },
        },
      ]),
    );
    const since = proxy.requests.length;
    const { stores, ready } = await loadSdk(proxy.url, PUBLIC_KEY);
    await ready;
    await vi.waitFor(() => expect(readBodies(since).length).toBeGreaterThan(0));
    // It names the content by its number, and the service, which takes numbers from such clients, leaves it out.
    expect(readBodies(since)[0].knownVersions).toEqual({ welcome: version });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(titleOf(stores as never)).toBe('Cached title');
    expect(readBodies(since)).toHaveLength(1);
  });
});
