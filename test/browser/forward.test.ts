// init({ forward }) in real Chromium: flow and step events reach stub PostHog and Segment globals on the page, and nothing without it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newUserId, openPage, startEnv, type Env } from '../support/browser-pages.js';

let env: Env;

beforeAll(async () => {
  env = await startEnv([
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
  ]);
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
