// The cost of the view against the real service: one store of the queue per task, unchanged flows keep their objects, large answers in slices.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { checklistYaml, PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';
import { destroySdks, loadSdk } from '../support/core-sdk.js';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

let service: TestService;

beforeAll(async () => {
  const flows: Record<string, string> = {};
  for (let i = 0; i < 5; i++) flows[`list-${i}.yaml`] = checklistYaml(`list-${i}`);
  service = await startTestService(flows);
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

describe('the view', () => {
  it('stores the queue once, and computes the view once, for the writes made in one task', async () => {
    const { sdk, ready, stores } = await loadSdk(service.url, PUBLIC_KEY);
    await ready;
    const setItem = vi.spyOn(localStorage, 'setItem');
    let views = 0;
    const stop = stores.$flowStates.listen(() => views++);
    for (let i = 0; i < 5; i++) void sdk.getFlow(`list-${i}`)!.steps[0].complete();
    await Promise.resolve();
    expect(setItem.mock.calls.filter(([key]) => key === 'onboarding:outbox')).toHaveLength(1);
    expect(views).toBe(1);
    expect(sdk.flows.map((flow) => flow.steps[0].state.completed)).toEqual([true, true, true, true, true]);
    stop();
  });

  it('keeps the objects of the flows an answer did not change, and of their Flow objects', async () => {
    const { sdk, ready, stores } = await loadSdk(service.url, PUBLIC_KEY);
    await ready;
    const states = stores.$flowStates.get();
    const flows = stores.$flows.get();
    // Progress on another device in one flow.
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId: sdk.userId, flowSlug: 'list-2', stepId: 'one', actionType: 'COMPLETED_STEP' },
    });
    await sdk.refresh();
    const after = stores.$flowStates.get();
    expect(after['list-2']).not.toBe(states['list-2']);
    expect(after['list-2'].data.steps[0].$state.completed).toBe(true);
    for (const slug of ['list-0', 'list-1', 'list-3', 'list-4']) {
      expect(after[slug]).toBe(states[slug]);
      expect(stores.$flows.get()[slug]).toBe(flows[slug]);
    }
  });
});

describe('an answer of several hundred flows', () => {
  let large: TestService;

  beforeAll(async () => {
    const flows: Record<string, string> = {};
    for (let i = 0; i < 450; i++) flows[`many-${i}.yaml`] = checklistYaml(`many-${i}`);
    large = await startTestService(flows);
  });
  afterAll(() => large?.close());

  it('becomes the view 200 flows per task, and whole in the end', async () => {
    const { sdk, ready, stores } = await loadSdk(large.url, PUBLIC_KEY);
    const views: number[] = [];
    const stop = stores.$flowStates.listen((states) => views.push(Object.keys(states).length));
    await ready;
    stop();
    // Applied at once, the view would change once, with all 450.
    expect(views).toEqual([200, 400, 450]);
    expect(sdk.flows).toHaveLength(450);
  });
});
