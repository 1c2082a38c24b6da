// Identity against the real service: guests, linking on login, logout, switching users, the one-round-trip identify.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { checklistYaml, PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';
import { startLoopbackProxy } from '../support/loopback-proxy.js';
import { carriesWrite, isStateRead, writesIn } from '../support/requests.js';
import { countRows, destroySdks, loadSdk } from '../support/core-sdk.js';

// These tests start a real service and wait for real retries; a busy 2-core machine needs the room.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    'setup.yaml': checklistYaml('setup'),
    'guests.yaml': checklistYaml('guest-tour', 'user.isGuest'),
    'ada.yaml': checklistYaml('ada-only', "user.id == 'ada_lovelace'"),
  });
});
afterAll(() => service?.close());
beforeEach(() => {
  localStorage.clear();
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => {
  destroySdks();
  vi.restoreAllMocks();
});

describe('init', () => {
  it('throws a message that says what to pass when the key is missing', async () => {
    const { Onboarding } = await import('../../src/core/onboarding.js');
    const sdk = new Onboarding();
    expect(() => sdk.init({ apiUrl: service.url } as never)).toThrow(/publicKey is required.*pk_/);
    expect(() => sdk.init({ publicKey: PUBLIC_KEY } as never)).toThrow(/apiUrl is required/);
  });
});

describe('guests', () => {
  it('makes a guest_<uuid>, keeps it across loads and loads the flows that target guests', async () => {
    const first = await loadSdk(service.url, PUBLIC_KEY);
    await first.ready;
    const guest = first.sdk.userId;
    expect(guest).toMatch(/^guest_[0-9a-f-]{36}$/);
    await vi.waitFor(() => expect(first.sdk.flows.map((f) => f.slug).sort()).toEqual(['guest-tour', 'setup']));
    destroySdks();
    const second = await loadSdk(service.url, PUBLIC_KEY);
    expect(second.sdk.userId).toBe(guest);
  });

  it('links a guest’s progress to the user on login', async () => {
    const { sdk, ready } = await loadSdk(service.url, PUBLIC_KEY);
    await ready;
    const guest = sdk.userId;
    await vi.waitFor(() => expect(sdk.getFlow('setup')).toBeDefined());
    await sdk.getFlow('setup')!.steps[0].complete();
    await vi.waitFor(async () =>
      expect(await countRows(service, 'SELECT count(*) AS n FROM step_states WHERE user_id = $1', [guest])).toBe(1),
    );

    await sdk.identify('linked-user', { plan: 'pro' });
    expect(sdk.userId).toBe('linked-user');
    expect(sdk.getFlow('setup')!.steps[0].state.completed).toBe(true);
    expect(sdk.getFlow('setup')!.currentStep!.id).toBe('two');
    // The service moved the guest's progress to the user and deleted the guest.
    const rows = await service.db.query<{ user_id: string; step_id: string; completed: boolean }>(
      'SELECT user_id, step_id, completed FROM step_states WHERE user_id IN ($1, $2)',
      [guest, 'linked-user'],
    );
    expect(rows).toEqual([{ user_id: 'linked-user', step_id: 'one', completed: true }]);
    expect(await countRows(service, 'SELECT count(*) AS n FROM users WHERE id = $1', [guest])).toBe(0);
    // The guest-only flow no longer applies.
    expect(sdk.getFlow('guest-tour')).toBeUndefined();
  });

  it('keeps working with a guest in memory when localStorage throws', async () => {
    const denied = () => {
      throw new DOMException('denied', 'SecurityError');
    };
    vi.spyOn(Storage.prototype, 'getItem').mockImplementation(denied);
    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(denied);
    vi.spyOn(Storage.prototype, 'removeItem').mockImplementation(denied);
    const { sdk, ready, errors } = await loadSdk(service.url, PUBLIC_KEY);
    await ready;
    expect(sdk.userId).toMatch(/^guest_/);
    await vi.waitFor(() => expect(sdk.getFlow('setup')).toBeDefined());
    await sdk.getFlow('setup')!.start();
    await sdk.identify('memory-user');
    await vi.waitFor(async () =>
      expect(
        await countRows(service, "SELECT count(*) AS n FROM flow_states WHERE user_id = 'memory-user' AND started"),
      ).toBe(1),
    );
    expect(errors).toEqual([]);
  });
});

describe('logout and switching users', () => {
  it('shows a second user none of the first user’s state after reset', async () => {
    const { sdk, ready, stores } = await loadSdk(service.url, PUBLIC_KEY);
    await ready;
    await sdk.identify('ada_lovelace', { email: 'ada_lovelace@example.com' });
    await vi.waitFor(() => expect(sdk.getFlow('ada-only')).toBeDefined());
    await sdk.getFlow('setup')!.steps[0].complete();
    await sdk.track('saw-dashboard');
    await vi.waitFor(async () =>
      expect(await countRows(service, "SELECT count(*) AS n FROM step_states WHERE user_id = 'ada_lovelace'")).toBe(1),
    );

    await sdk.reset();
    expect(sdk.userId).toMatch(/^guest_/);
    // Only the (public) flow definitions may still name ada, in their targeting. Her id holds letters no UUID
    // has, so a guest id cannot match it by chance (`ada` alone is in about one random guest id in 140).
    const kept = Object.keys(localStorage).filter((key) => key !== 'onboarding:flows');
    expect(kept.filter((key) => /ada_lovelace/.test(localStorage.getItem(key)!))).toEqual([]);
    await sdk.identify('grace');
    expect(sdk.userId).toBe('grace');
    expect(sdk.getFlow('ada-only')).toBeUndefined();
    expect(sdk.getFlow('setup')!.steps.map((s) => s.state.completed)).toEqual([false, false, false]);
    expect(JSON.stringify(stores.$flowStates.get())).not.toMatch(/ada_lovelace|ada-only/);
    // Nothing of ada's was linked to grace.
    expect(await countRows(service, "SELECT count(*) AS n FROM step_states WHERE user_id = 'grace'")).toBe(0);
  });

  it('resets first when a different real user is identified, without linking', async () => {
    const proxy = await startLoopbackProxy(service.url);
    try {
      const { sdk, ready } = await loadSdk(proxy.url, PUBLIC_KEY);
      await ready;
      await sdk.identify('first-real');
      await vi.waitFor(() => expect(sdk.getFlow('setup')).toBeDefined());
      await sdk.getFlow('setup')!.steps[0].complete();
      await sdk.identify('second-real');
      expect(sdk.getFlow('setup')!.steps[0].state.completed).toBe(false);
      const upserts = proxy.requests
        .flatMap(writesIn)
        .filter((write) => write.path === 'users')
        .map((write) => write.body);
      expect(upserts.map((u) => u.userId)).toEqual(['first-real', 'second-real']);
      expect(upserts[0].linkGuestId).toMatch(/^guest_/);
      expect(upserts[1].linkGuestId).toBeUndefined();
      await vi.waitFor(async () =>
        expect(await countRows(service, "SELECT count(*) AS n FROM step_states WHERE user_id = 'first-real'")).toBe(1),
      );
      expect(await countRows(service, "SELECT count(*) AS n FROM step_states WHERE user_id = 'second-real'")).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});

describe('identify', () => {
  it('takes one round trip when the upsert answers with flowStates', async () => {
    const proxy = await startLoopbackProxy(service.url);
    try {
      const { sdk, ready } = await loadSdk(proxy.url, PUBLIC_KEY);
      void sdk.identify('one-trip');
      await ready;
      expect(sdk.getFlow('setup')).toBeDefined();
      expect(proxy.requests.filter(isStateRead)).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('reads the state when the upsert answers an empty body', async () => {
    const proxy = await startLoopbackProxy(service.url);
    // A service that follows only the spec: 201 and no body.
    proxy.answer(carriesWrite('users'), 201, '');
    try {
      const { sdk, ready } = await loadSdk(proxy.url, PUBLIC_KEY);
      await sdk.identify('spec-only');
      await ready;
      expect(sdk.getFlow('setup')).toBeDefined();
      expect(proxy.requests.some((r) => isStateRead(r) && JSON.parse(r.body).userId === 'spec-only')).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('sends track as an event of the users upsert and group as a groups upsert', async () => {
    const { sdk, ready } = await loadSdk(service.url, PUBLIC_KEY);
    await ready;
    await sdk.identify('tracker');
    await sdk.track('exported-report', { format: 'csv' });
    await sdk.group('acme', { name: 'Acme' });
    const events = await service.db.query<{ event: string; properties: object }>(
      "SELECT event, properties FROM user_events WHERE user_id = 'tracker'",
    );
    expect(events).toEqual([{ event: 'exported-report', properties: { format: 'csv' } }]);
    expect(
      await countRows(
        service,
        "SELECT count(*) AS n FROM group_members WHERE group_id = 'acme' AND user_id = 'tracker'",
      ),
    ).toBe(1);
  });
});

describe('cache', () => {
  it('renders a returning visitor’s flows from cache at once, then revalidates', async () => {
    const first = await loadSdk(service.url, PUBLIC_KEY);
    await first.sdk.identify('returning');
    await first.sdk.getFlow('setup')!.steps[0].complete();
    await vi.waitFor(async () =>
      expect(await countRows(service, "SELECT count(*) AS n FROM step_states WHERE user_id = 'returning'")).toBe(1),
    );
    destroySdks();
    // Another device completes step two meanwhile.
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId: 'returning', flowSlug: 'setup', stepId: 'two', actionType: 'COMPLETED_STEP' },
    });

    const second = await loadSdk(service.url, PUBLIC_KEY);
    // Synchronously after init: the cached state and definitions, before any answer.
    expect(second.sdk.userId).toBe('returning');
    expect(second.sdk.getFlow('setup')!.steps.map((s) => s.state.completed)).toEqual([true, false, false]);
    await second.ready;
    expect(second.sdk.getFlow('setup')!.steps.map((s) => s.state.completed)).toEqual([true, true, false]);
    expect(second.events).toContainEqual({ name: 'step.complete', slug: 'setup', step: 'two' });
  });

  it('keeps the definitions whose version did not change, and takes a new version from the next read', async () => {
    const first = await loadSdk(service.url, PUBLIC_KEY);
    await first.ready;
    await vi.waitFor(() => expect(Object.keys(first.stores.$flowDefinitions.get())).toContain('setup'));
    const before = first.stores.$flowDefinitions.get();
    await service.writeFlow('setup.yaml', checklistYaml('setup').replace('title: One', 'title: Uno'));
    await first.sdk.refresh();
    await vi.waitFor(() => expect(first.stores.$flowDefinitions.get().setup.version).toBe(2));
    const after = first.stores.$flowDefinitions.get();
    expect(after.setup.data.steps[0].title).toBe('Uno');
    expect(after['guest-tour']).toBe(before['guest-tour']);
    await service.writeFlow('setup.yaml', checklistYaml('setup'));
  });
});
