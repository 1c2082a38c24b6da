// init({ forward }) in real Chromium: flow, step and experiment events reach stub PostHog and Segment globals on the page,
// and nothing without it; the ESM build's assignVariant agrees with the service's assignments.
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ExperimentExposedEvent } from '../../src/core/events.js';
import type { FlowStatesResponse } from '../../src/api/wire.js';
import { newUserId, openPage, startEnv, type Env, type FlowFile } from '../support/browser-pages.js';
import { PRIVATE_KEY } from '../support/service.js';

/** A banner of one step shown to the users whose ID starts with `prefix`: each experiment's audience is its own. */
const banner = (slug: string, prefix: string): FlowFile => ({
  slug,
  type: 'BANNER',
  data: { steps: [{ id: 'hi', title: slug }] },
  targetingLogic: `user.id.startsWith('${prefix}')`,
});

/** fwd-welcome: a control and two copies; fwd-split: three equal weights, so each range ends at a floor (3333, 6666). */
const EXPERIMENTS = `experiments:
  - id: fwd-welcome
    status: running
    goal: { event: dashboard.created, within: 7d }
    variants:
      - { id: control, weight: 50 }
      - { id: short, flow: fwd-exp-short, weight: 25 }
      - { id: long, flow: fwd-exp-long, weight: 25 }
  - id: fwd-split
    status: running
    goal: { event: report.exported, within: 2d }
    variants:
      - { id: control, weight: 1 }
      - { id: a, flow: fwd-split-a, weight: 1 }
      - { id: b, flow: fwd-split-b, weight: 1 }
`;
const SPLIT_VARIANTS = [
  { id: 'control', weight: 1 },
  { id: 'a', weight: 1 },
  { id: 'b', weight: 1 },
];

let env: Env;

beforeAll(async () => {
  env = await startEnv(
    [
      {
        slug: 'fwd-list',
        type: 'CHECKLIST',
        data: {
          steps: [
            { id: 'one', title: 'One' },
            { id: 'two', title: 'Two' },
            { id: 'three', title: 'Three' },
          ],
        },
      },
      {
        slug: 'fwd-survey',
        type: 'SURVEY',
        data: {
          steps: [
            { id: 'score', title: 'How likely?' },
            { id: 'why', title: 'Why?' },
          ],
        },
      },
      banner('fwd-exp-short', 'fwd-exp-'),
      banner('fwd-exp-long', 'fwd-exp-'),
      banner('fwd-split-a', 'fwd-split-'),
      banner('fwd-split-b', 'fwd-split-'),
    ],
    // Thousands of reads from one address in a minute (the assignments compared): more than a visitor's limit.
    { service: { limits: { requestsPerMinute: 100_000 } } },
  );
  await env.service.writeFlow('experiments.yaml', EXPERIMENTS);
});
afterAll(() => env?.close());

/** Stubs that record what each library was given, as the real snippets' globals would receive it. */
const STUBS = `<script>
  window.sent = [];
  window.posthog = { capture: (name, properties) => sent.push(['posthog', name, properties]) };
  window.analytics = { track: (name, properties) => sent.push(['segment', name, properties]) };
</script>`;

type Sent = Array<[string, string, Record<string, unknown>]>;

async function run(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const sdk = (window as unknown as { Onboarding: typeof import('../../src/index.js').onboarding }).Onboarding;
    await sdk.ready;
    const list = sdk.getFlow('fwd-list')!;
    await list.steps[0].complete();
    await sdk.getFlow('fwd-list')!.steps[1].skip();
    await sdk.getFlow('fwd-list')!.steps[2].complete();
    await sdk.getFlow('fwd-survey')!.steps[0].complete({ value: 9 });
  });
}

const sent = (page: Page) => page.evaluate(() => (window as unknown as { sent: Sent }).sent);

describe('forwarding events', () => {
  it("sends flow and step events to PostHog and Segment under the service's event names, without answers", async () => {
    const { page, errors } = await openPage(env, '/forward-both.html', '', {
      userId: newUserId('fwd'),
      head: STUBS,
      init: { autoMount: false, forward: ['posthog', 'segment'] },
    });
    await run(page);
    await expect.poll(() => sent(page).then((s) => s.length)).toBe(16);
    const posthog = (await sent(page))
      .filter(([to]) => to === 'posthog')
      .map(([, name, properties]) => [name, properties]);
    expect(posthog).toEqual([
      ['flow.started', { flowSlug: 'fwd-list', flowVersion: 1 }],
      ['step.completed', { flowSlug: 'fwd-list', flowVersion: 1, stepId: 'one' }],
      ['step.skipped', { flowSlug: 'fwd-list', flowVersion: 1, stepId: 'two' }],
      ['step.completed', { flowSlug: 'fwd-list', flowVersion: 1, stepId: 'three' }],
      ['flow.completed', { flowSlug: 'fwd-list', flowVersion: 1 }],
      ['flow.started', { flowSlug: 'fwd-survey', flowVersion: 1 }],
      ['step.completed', { flowSlug: 'fwd-survey', flowVersion: 1, stepId: 'score' }],
      ['survey.answered', { flowSlug: 'fwd-survey', flowVersion: 1, stepId: 'score' }],
    ]);
    const segment = (await sent(page))
      .filter(([to]) => to === 'segment')
      .map(([, name, properties]) => [name, properties]);
    expect(segment).toEqual(posthog);
    // The answer itself never leaves for a third party.
    expect(JSON.stringify(await sent(page))).not.toContain('value');
    // The service's answers confirm the writes later; nothing is sent twice.
    await page.waitForTimeout(300);
    expect(await sent(page)).toHaveLength(16);
    // Forwarding's chunk came after the index of the hashes few pages need, each with its SHA-384 as integrity.
    const loaded = await page.evaluate(() =>
      [...document.scripts]
        .filter((script) => /onboarding-(hashes|forward)\.js$/.test(script.src))
        .map((script) => [script.src.split('/').pop(), script.integrity.slice(0, 7)]),
    );
    expect(loaded).toEqual([
      ['onboarding-hashes.js', 'sha384-'],
      ['onboarding-forward.js', 'sha384-'],
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('sends to the one library asked for', async () => {
    const { page } = await openPage(env, '/forward-posthog.html', '', {
      userId: newUserId('fwd'),
      head: STUBS,
      init: { autoMount: false, forward: 'posthog' },
    });
    await run(page);
    await expect.poll(() => sent(page).then((s) => s.length)).toBeGreaterThanOrEqual(8);
    expect(new Set((await sent(page)).map(([to]) => to))).toEqual(new Set(['posthog']));
    await page.close();
  });

  it('sends nothing to any third party unless the page asks', async () => {
    const { page } = await openPage(env, '/forward-none.html', '', {
      userId: newUserId('fwd'),
      head: STUBS,
      init: { autoMount: false },
    });
    await run(page);
    // The state settles (the service answered every write) and still nothing was sent.
    await expect
      .poll(() =>
        page.evaluate(
          () =>
            (window as unknown as { Onboarding: { getFlow(s: string): { isCompleted: boolean } } }).Onboarding.getFlow(
              'fwd-list',
            )?.isCompleted,
        ),
      )
      .toBe(true);
    await page.waitForTimeout(300);
    expect(await sent(page)).toEqual([]);
    await page.close();
  });

  it('skips a library that is not on the page and keeps the page working', async () => {
    const { page, errors } = await openPage(env, '/forward-missing.html', '', {
      userId: newUserId('fwd'),
      init: { autoMount: false, forward: ['posthog', 'segment'] },
    });
    await run(page);
    await expect
      .poll(() =>
        page.evaluate(
          () =>
            (window as unknown as { Onboarding: { getFlow(s: string): { isCompleted: boolean } } }).Onboarding.getFlow(
              'fwd-list',
            )?.isCompleted,
        ),
      )
      .toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});

/** The participants CSV of an experiment: each user's variant. */
async function participants(experiment: string): Promise<Map<string, string>> {
  const csv = await env.service.call('GET', `/v1/analytics/experiments/${experiment}/participants.csv`, {
    key: PRIVATE_KEY,
  });
  expect(csv.status).toBe(200);
  const rows = csv.text.trim().split('\r\n').slice(1);
  return new Map(rows.map((row) => row.split(',') as [string, string]));
}

describe('experiments in the page', () => {
  /** The stubs, and the snippet's queue with a listener, so the page's announcements are seen from the first one on. */
  const HEAD = `${STUBS}<script>
    window.announced = [];
    window.Onboarding = { _q: [['on', ['experiment.exposed', (event) => announced.push(event)]]] };
  </script>`;
  const seen = (page: Page) =>
    page.evaluate(() => {
      const w = window as unknown as { sent: Sent; announced: ExperimentExposedEvent[] };
      return { sent: w.sent.filter(([, name]) => name === 'experiment.exposed'), announced: w.announced };
    });

  it('captures experiment.exposed once with the variant the service recorded, and not again after a reload', async () => {
    const userId = newUserId('fwd-exp');
    const { page, errors } = await openPage(env, '/forward-experiment.html', '', {
      userId,
      head: HEAD,
      init: { autoMount: false, forward: ['posthog', 'segment'] },
    });
    await expect.poll(() => seen(page).then(({ sent }) => sent.length)).toBe(2);
    const variant = (await participants('fwd-welcome')).get(userId);
    expect(['control', 'short', 'long']).toContain(variant);
    const { sent, announced } = await seen(page);
    expect(sent).toEqual([
      ['posthog', 'experiment.exposed', { experimentId: 'fwd-welcome', variant }],
      ['segment', 'experiment.exposed', { experimentId: 'fwd-welcome', variant }],
    ]);
    expect(announced).toEqual([{ experiment: 'fwd-welcome', variant, exposedAt: expect.any(String) }]);
    // As the service answers it; the user is in no other experiment (fwd-split's audience is other users).
    const answer = await env.service.call('GET', `/v1/public/flowStates?userId=${userId}`);
    expect((answer.body as FlowStatesResponse).experiments).toEqual([
      { id: 'fwd-welcome', variant, exposedAt: announced[0].exposedAt },
    ]);

    // The next page announces the exposure again (from the cache, then the answer), and forwards nothing.
    await page.reload();
    await expect.poll(() => seen(page).then(({ announced }) => announced.length)).toBe(1);
    await page.waitForFunction(
      () => typeof (globalThis as Record<symbol, unknown>)[Symbol.for('onboarding.forward')] === 'function',
    );
    await page.evaluate(() => (window as unknown as { Onboarding: { ready: Promise<void> } }).Onboarding.ready);
    await page.waitForTimeout(300);
    expect(await seen(page)).toEqual({ sent: [], announced });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("computes in the page, with the ESM build's assignVariant, the variants the service assigned to 2,000 users", async () => {
    // The package as a bundler user installs it: its ESM build, lit and nanostores bundled in beside it.
    const bundled = await build({
      stdin: {
        contents: `import { assignVariant } from 'open-onboarding'; window.assignVariant = assignVariant;`,
        resolveDir: resolve('.'),
      },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      logLevel: 'silent',
      alias: { 'open-onboarding': resolve('dist/onboarding.mjs') },
    });
    env.site.page(
      '/assign.html',
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Assignment</title></head><body>
        <script type="module">${bundled.outputFiles[0].text.replaceAll('</script', '<\\/script')}</script></body></html>`,
    );
    const page = await env.browser.context.newPage();
    await page.goto(`${env.site.url}/assign.html`);
    // A loopback page is a secure context: Web Crypto's digest is there.
    expect(await page.evaluate(() => isSecureContext)).toBe(true);
    const ids = Array.from({ length: 2000 }, (_, index) => `fwd-split-${process.pid}-${index}`);
    await page.waitForFunction(() => 'assignVariant' in window);
    const inPage = await page.evaluate(
      ([experiment, users]) => {
        const assign = (window as unknown as { assignVariant: typeof import('../../src/index.js').assignVariant })
          .assignVariant;
        return Promise.all(users.map((user) => assign(experiment, user)));
      },
      [{ id: 'fwd-split', variants: SPLIT_VARIANTS }, ids] as const,
    );
    await page.close();

    // The service assigns each on its first answer in the audience, which records the exposure.
    const answered = new Map<string, string | undefined>();
    for (let start = 0; start < ids.length; start += 50) {
      await Promise.all(
        ids.slice(start, start + 50).map(async (userId) => {
          const read = await env.service.call('POST', '/v1/public/flowStates', { body: { userId } });
          expect(read.status).toBe(200);
          answered.set(userId, (read.body as FlowStatesResponse).experiments?.[0]?.variant);
        }),
      );
    }
    const recorded = await participants('fwd-split');
    const service = ids.map((id) => recorded.get(id));
    expect(service).toEqual(ids.map((id) => answered.get(id)));
    expect(inPage).toEqual(service);
    // Every variant has users, near a third each.
    for (const variant of ['control', 'a', 'b'])
      expect(inPage.filter((v) => v === variant).length).toBeGreaterThan(550);
  }, 120_000);
});
