// In real Chromium: the script keeps working, and keeps sending writes, through failures that are not the network's (issue 14).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FlowStatesResponse } from '../../src/api/wire.js';
import { definitionOf, stateOnly } from '../../src/core/cache.js';
import type { FlowDefinition } from '../../src/flows/flow.js';
import { startBrowserEnv, type BrowserEnv } from '../support/browser-env.js';
import { carriesWrite, isStateRead } from '../support/requests.js';
import { checklistYaml, PUBLIC_KEY } from '../support/service.js';

let env: BrowserEnv;

beforeAll(async () => {
  env = await startBrowserEnv({ 'setup.yaml': checklistYaml('setup', '', 3) }, { proxy: true });
});

afterAll(() => env?.close());

type Seed = Record<string, string>;

/**
 * A page that puts `seed` into localStorage (under the `onboarding:` prefix) before the script loads, records
 * unhandled rejections and the codes of the `error` event, then initialises the script.
 */
const html = (seed: Seed = {}, head = '', body = '') => `<!doctype html><html><head>
  <script>
    window.rejections = [];
    window.codes = [];
    addEventListener('unhandledrejection', (event) => rejections.push(String(event.reason)));
    localStorage.clear();
    for (const [key, value] of Object.entries(${JSON.stringify(seed)})) localStorage.setItem('onboarding:' + key, value);
  </script>${head}
</head><body>${body}
  <script src="/onboarding.js"></script>
  <script>
    Onboarding.on('error', (event) => codes.push(event.code));
    Onboarding.init({ publicKey: '${PUBLIC_KEY}', apiUrl: '${env.apiUrl}' });
  </script>
</body></html>`;

let pages = 0;

/** Serves a fresh page with `seed` and opens it; `errors` collects uncaught errors and unhandled rejections. */
async function open(seed: Seed = {}, head = '', body = ''): Promise<{ page: Page; errors: string[] }> {
  const path = `/hardening-${++pages}.html`;
  env.site.page(path, html(seed, head, body));
  const page = await env.browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${env.site.url}${path}`);
  return { page, errors };
}

interface PageGlobals {
  codes: string[];
  rejections: string[];
  timerCalls: number;
}
const codes = (page: Page) => page.evaluate(() => (window as unknown as PageGlobals).codes);
/** Uncaught errors, and unhandled rejections as the page itself saw them. */
const problems = async (page: Page, errors: string[]) => [
  ...errors,
  ...(await page.evaluate(() => (window as unknown as PageGlobals).rejections)),
];

/** Whether `Onboarding.ready` resolves within `ms`. */
const readyWithin = (page: Page, ms: number) =>
  page.evaluate(
    (ms) =>
      Promise.race([
        window.Onboarding.ready.then(() => 'resolved'),
        new Promise((resolve) => setTimeout(() => resolve('pending'), ms)),
      ]),
    ms,
  );

const events = (userId: string) =>
  env.service.db.query<{ event: string }>('SELECT event FROM user_events WHERE user_id = $1 ORDER BY id', [userId]);
const responses = (userId: string) =>
  env.service.db.query<{ step_id: string }>('SELECT step_id FROM flow_responses WHERE user_id = $1 ORDER BY id', [
    userId,
  ]);
const outbox = (page: Page) =>
  page.evaluate(() => JSON.parse(localStorage.getItem('onboarding:outbox') ?? '[]') as Array<{ retryAt: number }>);
const completed = (page: Page) =>
  page.evaluate(() => window.Onboarding.getFlow('setup')?.steps.map((step) => step.state.completed) ?? null);
const isRead = isStateRead;

/** The setup flow's content, as the script caches it. */
async function setupDefinition(): Promise<FlowDefinition> {
  const read = (await env.service.call('GET', '/v1/public/flowStates?userId=content-reader'))
    .body as FlowStatesResponse;
  return definitionOf(read.eligibleFlows.find((state) => state.flowSlug === 'setup')!)!;
}

/** The service's current flow-state read of `userId`, as the script caches it (without content). */
async function stateOf(userId: string): Promise<FlowStatesResponse> {
  const read = (await env.service.call('GET', `/v1/public/flowStates?userId=${userId}&content=none`))
    .body as FlowStatesResponse;
  return { ...read, eligibleFlows: read.eligibleFlows.map(stateOnly) };
}

describe('a write that fails for a reason other than the network (issue 14, item 8)', () => {
  it('drops a queued write that has no body, reports it, and sends the writes queued behind it', async () => {
    const stuck = { key: 'no-body-1', userId: 'queue-user', path: 'users', attempts: 0, retryAt: 0, at: 1 };
    const { page, errors } = await open({ outbox: JSON.stringify([stuck]) });
    await page.evaluate(() => window.Onboarding.identify('queue-user'));
    await page.evaluate(() => window.Onboarding.track('behind-no-body'));
    await expect.poll(() => events('queue-user'), { timeout: 10_000 }).toEqual([{ event: 'behind-no-body' }]);
    await expect.poll(() => outbox(page)).toEqual([]);
    expect(await codes(page)).toContain('storage-discarded');
    expect(await problems(page, errors)).toEqual([]);
    await page.close();
  });

  it('takes a 2xx answer that is not JSON as sent, reports bad-answer, reads the state, and sends the writes behind it', async () => {
    const { page, errors } = await open();
    await page.evaluate(() => window.Onboarding.identify('bad-answer-user'));
    // The service applies the write; the answer that comes back is not JSON (a broken proxy, say).
    const stepOne = carriesWrite('flowStates', '"userId":"bad-answer-user"', '"stepId":"one"');
    env.proxy!.answer(stepOne, 201, '<html>not JSON</html>', { forward: true });
    const readsBefore = env.proxy!.requests.filter(isRead).length;
    await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].complete());
    await page.evaluate(() => window.Onboarding.track('behind-bad-answer'));
    await expect.poll(() => events('bad-answer-user'), { timeout: 10_000 }).toEqual([{ event: 'behind-bad-answer' }]);
    await expect.poll(() => outbox(page)).toEqual([]);
    // Sent once: the write reached the service, so it is not sent again.
    expect(env.proxy!.requests.filter(stepOne)).toHaveLength(1);
    expect(await responses('bad-answer-user')).toEqual([{ step_id: 'one' }]);
    expect(await codes(page)).toContain('bad-answer');
    // The state comes from a read instead of the unusable answer.
    await expect.poll(() => env.proxy!.requests.filter(isRead).length).toBeGreaterThan(readsBefore);
    expect(await completed(page)).toEqual([true, false, false]);
    expect(await problems(page, errors)).toEqual([]);
    await page.close();
  });

  it('ignores a cached definition without steps, raises nothing in the page, and keeps sending writes', async () => {
    // The same version as the service's, so nothing but validation replaces the cached copy.
    const definition = { ...(await setupDefinition()), data: { title: 'No steps here' } };
    const { page, errors } = await open(
      { content: JSON.stringify([definition]) },
      '',
      '<onboarding-checklist flow="setup"></onboarding-checklist>',
    );
    expect(await readyWithin(page, 10_000)).toBe('resolved');
    await page.evaluate(() => window.Onboarding.identify('no-steps-user'));
    await page.evaluate(() => window.Onboarding.track('behind-no-steps'));
    await expect.poll(() => events('no-steps-user'), { timeout: 10_000 }).toEqual([{ event: 'behind-no-steps' }]);
    // The service's definition takes the place of the broken one, and the element renders it.
    await expect.poll(() => completed(page)).toEqual([false, false, false]);
    await expect.poll(() => page.locator('onboarding-checklist [part~="step"]').count()).toBe(3);
    await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].complete());
    // The element on the page records its first showing (STARTED_FLOW, STARTED_STEP) as well.
    const completions = () =>
      env.service.db.query(
        "SELECT step_id FROM flow_responses WHERE user_id = 'no-steps-user' AND action_type = 'COMPLETED_STEP'",
      );
    await expect.poll(completions, { timeout: 10_000 }).toEqual([{ step_id: 'one' }]);
    expect(await codes(page)).toContain('storage-discarded');
    expect(await problems(page, errors)).toEqual([]);
    await page.close();
  });
});

describe('values that are not JSON (issue 14, item 9)', () => {
  it('refuses each call given a value that is not JSON, resolves its promise, and keeps later calls working', async () => {
    const { page, errors } = await open();
    await page.evaluate(() => window.Onboarding.identify('json-user'));
    await expect.poll(() => completed(page)).toEqual([false, false, false]);
    const outcomes = await page.evaluate(async () => {
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      const sdk = window.Onboarding;
      const step = (index: number) => sdk.getFlow('setup')!.steps[index];
      const calls = [
        () => sdk.track('bigint', { n: BigInt(1) }),
        () => sdk.track('circular', circular),
        () => sdk.identify('json-user', { self: circular }),
        () => sdk.group('json-group', { n: BigInt(2) }),
        () => step(0).complete(BigInt(3)),
        () => step(0).complete(circular),
        () => step(0).skip(() => 1),
        () => sdk.track('fine', { ok: true }),
        () => step(1).complete({ ok: true }),
      ];
      const settled: string[] = [];
      for (const call of calls) {
        try {
          await call();
          settled.push('resolved');
        } catch {
          settled.push('rejected');
        }
      }
      return settled;
    });
    expect(outcomes).toEqual(Array(9).fill('resolved'));
    expect((await codes(page)).filter((code) => code === 'bad-value')).toHaveLength(7);
    await expect.poll(() => events('json-user'), { timeout: 10_000 }).toEqual([{ event: 'fine' }]);
    await expect.poll(() => responses('json-user'), { timeout: 10_000 }).toEqual([{ step_id: 'two' }]);
    expect(await env.service.db.query("SELECT id FROM groups WHERE id = 'json-group'")).toEqual([]);
    // The refused step actions changed nothing, here or there.
    expect(await completed(page)).toEqual([false, true, false]);
    expect(await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].state.skipped)).toBe(false);
    expect(await problems(page, errors)).toEqual([]);
    await page.close();
  });
});

describe('reads that never answer (issue 14, item 10)', () => {
  it(
    'times the first read out, resolves ready, and reads again on refresh once the service answers',
    { timeout: 45_000 },
    async () => {
      const held = env.proxy!.hold(isRead);
      const { page, errors } = await open();
      await held.arrived;
      expect(await readyWithin(page, 15_000)).toBe('resolved');
      expect(await codes(page)).toContain('load-failed');
      // The service answers again, and knows of progress made on another device.
      const guest = await page.evaluate(() => window.Onboarding.userId);
      const made = await env.service.call('POST', '/v1/public/flowStates', {
        body: { userId: guest, flowSlug: 'setup', stepId: 'one', actionType: 'COMPLETED_STEP' },
      });
      expect(made.status).toBe(201);
      const refreshed = await page.evaluate(() =>
        Promise.race([
          window.Onboarding.refresh().then(() => 'resolved'),
          new Promise((resolve) => setTimeout(() => resolve('pending'), 5000)),
        ]),
      );
      expect(refreshed).toBe('resolved');
      expect(await completed(page)).toEqual([true, false, false]);
      expect(await problems(page, errors)).toEqual([]);
      await page.close();
    },
  );
});

describe('a huge Retry-After (issue 14, item 12)', () => {
  // Counts every timer the page sets, from before the script loads.
  const countTimers = `<script>
    window.timerCalls = 0;
    const setTimeoutOfPage = window.setTimeout;
    window.setTimeout = function (...args) { window.timerCalls++; return setTimeoutOfPage.apply(this, args); };
  </script>`;

  it('waits at most ten minutes without spinning the page, and sends the write once the browser is back online', async () => {
    const { page, errors } = await open({}, countTimers);
    await page.evaluate(() => window.Onboarding.identify('retry-after-user'));
    await expect.poll(() => completed(page)).toEqual([false, false, false]);
    env.proxy!.answer(carriesWrite('flowStates'), 503, '{"status":503}', {
      headers: { 'Retry-After': '4000000' },
      times: 1,
    });
    await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].complete());
    await expect.poll(() => codes(page)).toContain('write-failed');
    await page.waitForTimeout(200);
    const timers = () => page.evaluate(() => (window as unknown as PageGlobals).timerCalls);
    const before = await timers();
    await page.waitForTimeout(1000);
    expect((await timers()) - before).toBeLessThan(10);
    const [entry] = await outbox(page);
    const wait = entry.retryAt - Date.now();
    expect(wait).toBeGreaterThan(9 * 60_000);
    expect(wait).toBeLessThanOrEqual(10 * 60_000);
    // Coming back online sends what waits at once.
    await env.browser.context.setOffline(true);
    await env.browser.context.setOffline(false);
    await expect.poll(() => responses('retry-after-user'), { timeout: 10_000 }).toEqual([{ step_id: 'one' }]);
    expect(await problems(page, errors)).toEqual([]);
    await page.close();
  });
});

describe('corrupted storage and wrong-shaped answers (issue 14, item 13)', () => {
  const kept = {
    key: 'kept-entry-1',
    userId: 'storage-outbox-user',
    path: 'users',
    body: { userId: 'storage-outbox-user', events: [{ event: 'kept' }] },
    attempts: 0,
    retryAt: 0,
    at: 1,
  };
  const cases: Array<[string, string, Seed]> = [
    [
      'a null queued write beside a good one',
      'storage-outbox-user',
      { userId: 'storage-outbox-user', outbox: JSON.stringify([null, kept]) },
    ],
    [
      'a malformed cached state',
      'storage-state-user',
      {
        userId: 'storage-state-user',
        state: JSON.stringify({
          userId: 'storage-state-user',
          states: { eligibleFlows: [null, { flowSlug: 'setup' }], ineligibleFlows: [] },
        }),
      },
    ],
    ['null in the cached flows', 'storage-flows-user', { userId: 'storage-flows-user', content: '[null]' }],
    [
      'cached properties that are not an object',
      'storage-properties-user',
      { userId: 'storage-properties-user', properties: '[1,2]' },
    ],
    ['an empty group ID', 'storage-group-user', { userId: 'storage-group-user', groupId: '' }],
  ];

  for (const [name, userId, seed] of cases) {
    it(`discards ${name}, reports it, and keeps working`, async () => {
      const { page, errors } = await open(seed);
      expect(await readyWithin(page, 10_000)).toBe('resolved');
      expect(await codes(page)).toContain('storage-discarded');
      expect(await page.evaluate(() => window.Onboarding.userId)).toBe(userId);
      const outcomes = await page.evaluate(async (id) => {
        const settled: string[] = [];
        for (const call of [
          () => window.Onboarding.identify(id, { plan: 'pro' }),
          () => window.Onboarding.track('after'),
        ]) {
          await call().then(
            () => settled.push('resolved'),
            () => settled.push('rejected'),
          );
        }
        return settled;
      }, userId);
      expect(outcomes).toEqual(['resolved', 'resolved']);
      await expect.poll(() => completed(page), { timeout: 10_000 }).toEqual([false, false, false]);
      await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].complete());
      const expected = seed.outbox ? [{ event: 'kept' }, { event: 'after' }] : [{ event: 'after' }];
      await expect.poll(() => events(userId), { timeout: 10_000 }).toEqual(expected);
      await expect.poll(() => responses(userId), { timeout: 10_000 }).toEqual([{ step_id: 'one' }]);
      expect(await problems(page, errors)).toEqual([]);
      await page.close();
    });
  }

  it('keeps the cached state when the service answers well-formed JSON of the wrong shape, reports bad-answer, and keeps working', async () => {
    const userId = 'shape-user';
    await env.service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'setup', stepId: 'one', actionType: 'COMPLETED_STEP' },
    });
    const seed = {
      userId,
      state: JSON.stringify({ userId, states: await stateOf(userId) }),
      content: JSON.stringify([await setupDefinition()]),
    };
    const wrongStates = { eligibleFlows: [{ flowSlug: 'setup', data: {} }], ineligibleFlows: [] };
    env.proxy!.answer(isRead, 200, JSON.stringify(wrongStates), { times: 1 });
    const { page, errors } = await open(seed);
    expect(await readyWithin(page, 10_000)).toBe('resolved');
    expect(await codes(page)).toContain('bad-answer');
    // The cached state and definition stay.
    expect(await completed(page)).toEqual([true, false, false]);

    env.proxy!.answer(
      carriesWrite('users'),
      201,
      JSON.stringify({ userId, guestLinked: false, flowStates: wrongStates }),
      { times: 1, forward: true },
    );
    const outcomes = await page.evaluate(async (id) => {
      const settled: string[] = [];
      const calls = [
        () => window.Onboarding.identify(id, { plan: 'pro' }),
        () => window.Onboarding.track('after-shape'),
        () => window.Onboarding.getFlow('setup')!.steps[1].complete(),
      ];
      for (const call of calls)
        await call().then(
          () => settled.push('resolved'),
          () => settled.push('rejected'),
        );
      return settled;
    }, userId);
    expect(outcomes).toEqual(['resolved', 'resolved', 'resolved']);
    await expect.poll(() => events(userId), { timeout: 10_000 }).toEqual([{ event: 'after-shape' }]);
    await expect.poll(() => responses(userId), { timeout: 10_000 }).toEqual([{ step_id: 'one' }, { step_id: 'two' }]);
    await expect.poll(() => completed(page)).toEqual([true, true, false]);
    expect(await problems(page, errors)).toEqual([]);
    await page.close();
  });
});

describe('garbage from the service (issue 9, item 3)', () => {
  const huge = 20 * 1024 * 1024;
  const garbage: Array<[string, string, Record<string, string>]> = [
    ['a body that is not JSON', 'Internal error, please retry', { 'Content-Type': 'text/plain' }],
    [
      'a 200 with an HTML page',
      '<!doctype html><html><body><h1>Welcome to our CDN</h1></body></html>',
      { 'Content-Type': 'text/html' },
    ],
    ['a 20 MB body', `{"eligibleFlows":[],"ineligibleFlows":["${'x'.repeat(huge)}"]}`, {}],
    ['a 20 MB body announced by its Content-Length', 'y'.repeat(huge), { 'Content-Length': String(huge) }],
  ];

  for (const [name, body, headers] of garbage) {
    it(`keeps the cached state through ${name} to a read, reports bad-answer, and keeps working`, async () => {
      const userId = `garbage-read-${garbage.findIndex(([n]) => n === name)}`;
      await env.service.call('POST', '/v1/public/flowStates', {
        body: { userId, flowSlug: 'setup', stepId: 'one', actionType: 'COMPLETED_STEP' },
      });
      const seed = {
        userId,
        state: JSON.stringify({ userId, states: await stateOf(userId) }),
        content: JSON.stringify([await setupDefinition()]),
      };
      env.proxy!.answer(isRead, 200, body, { headers, times: 1 });
      const { page, errors } = await open(seed);
      expect(await readyWithin(page, 10_000)).toBe('resolved');
      expect(await codes(page)).toContain('bad-answer');
      expect(await completed(page)).toEqual([true, false, false]);
      // Still working: a click is sent and taken.
      await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[1].complete());
      await expect.poll(() => responses(userId), { timeout: 10_000 }).toEqual([{ step_id: 'one' }, { step_id: 'two' }]);
      expect(await completed(page)).toEqual([true, true, false]);
      expect(await problems(page, errors)).toEqual([]);
      await page.close();
    });
  }

  for (const [name, body, headers] of garbage.slice(1, 3)) {
    it(`takes ${name} to a write as sent, reports bad-answer, and reads the state`, async () => {
      const userId = `garbage-write-${garbage.findIndex(([n]) => n === name)}`;
      const { page, errors } = await open();
      await page.evaluate((id) => window.Onboarding.identify(id), userId);
      await expect.poll(() => completed(page)).toEqual([false, false, false]);
      env.proxy!.answer(carriesWrite('flowStates', `"userId":"${userId}"`), 201, body, {
        headers,
        times: 1,
        forward: true,
      });
      await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].complete());
      await expect.poll(() => codes(page), { timeout: 10_000 }).toContain('bad-answer');
      await expect.poll(() => outbox(page)).toEqual([]);
      expect(await responses(userId)).toEqual([{ step_id: 'one' }]);
      await expect.poll(() => completed(page)).toEqual([true, false, false]);
      expect(await problems(page, errors)).toEqual([]);
      await page.close();
    });
  }
});
