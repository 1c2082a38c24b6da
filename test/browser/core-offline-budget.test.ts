// In real Chromium: writes made offline are kept within the outbox's byte budget and all sent once back online;
// a write past the budget is refused at once and reported, and nothing already queued is lost.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBrowserEnv, type BrowserEnv } from '../support/browser-env.js';
import { checklistYaml, PUBLIC_KEY } from '../support/service.js';

let env: BrowserEnv;

beforeAll(async () => {
  // Its own service: the test below sends more than half of the default per-minute rate limit.
  env = await startBrowserEnv({ 'setup.yaml': checklistYaml('setup', '', 3) }, { proxy: true });
  env.site.page(
    '/app.html',
    `<!doctype html><html><head><script>window.codes = []; localStorage.clear();</script></head><body>
      <script src="/onboarding.js"></script>
      <script>
        Onboarding.on('error', (event) => codes.push(event.code));
        Onboarding.init({ publicKey: '${PUBLIC_KEY}', apiUrl: '${env.apiUrl}' });
      </script>
    </body></html>`,
  );
});

// Each test goes offline; none leaves the browser so for the next, whether it passed or not.
afterEach(() => env.browser.context.setOffline(false));

afterAll(() => env?.close());

async function open(): Promise<{ page: Page; errors: string[] }> {
  const page = await env.browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${env.site.url}/app.html`);
  await page.evaluate(() => window.Onboarding.ready);
  return { page, errors };
}

const count = async (sql: string, userId: string) =>
  Number((await env.service.db.query<{ n: string | number }>(sql, [userId]))[0].n);
const queued = (page: Page) =>
  page.evaluate(() => (JSON.parse(localStorage.getItem('onboarding:outbox') ?? '[]') as unknown[]).length);
const codes = (page: Page) => page.evaluate(() => (window as unknown as { codes: string[] }).codes);

describe('writes made offline (issue 14, item 11)', () => {
  it(
    'keeps well over 500 writes made offline and sends every one of them once back online',
    { timeout: 120_000 },
    async () => {
      const { page, errors } = await open();
      await page.evaluate(() => window.Onboarding.identify('offline-many'));
      await expect.poll(() => page.evaluate(() => window.Onboarding.getFlow('setup')?.steps.length)).toBe(3);
      await env.browser.context.setOffline(true);
      await page.evaluate(async () => {
        const flow = () => window.Onboarding.getFlow('setup')!;
        await flow().steps[0].complete({ first: true });
        for (let i = 0; i < 600; i++) await window.Onboarding.track(`offline-${i}`, { i });
        await flow().steps[1].complete({ last: true });
      });
      expect(await queued(page)).toBe(602);
      expect(await codes(page)).not.toContain('outbox-full');
      await env.browser.context.setOffline(false);
      await expect
        .poll(() => count('SELECT count(*) AS n FROM user_events WHERE user_id = $1', 'offline-many'), {
          timeout: 100_000,
          interval: 1000,
        })
        .toBe(600);
      await expect
        .poll(() => count('SELECT count(*) AS n FROM flow_responses WHERE user_id = $1', 'offline-many'), {
          timeout: 10_000,
        })
        .toBe(2);
      await expect.poll(() => queued(page)).toBe(0);
      // Sent in the order they were made.
      const sent = await env.service.db.query<{ event: string }>(
        'SELECT event FROM user_events WHERE user_id = $1 ORDER BY id',
        ['offline-many'],
      );
      expect(sent.map((row) => row.event)).toEqual(Array.from({ length: 600 }, (_, i) => `offline-${i}`));
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it(
    'refuses a write that would take the queue over its byte budget, reports outbox-full, and loses nothing already queued',
    { timeout: 60_000 },
    async () => {
      const { page, errors } = await open();
      await page.evaluate(() => window.Onboarding.identify('offline-full'));
      await expect.poll(() => page.evaluate(() => window.Onboarding.getFlow('setup')?.steps.length)).toBe(3);
      await env.browser.context.setOffline(true);
      // About 60 KB each, under the service's 100 KB body limit: the 1 MiB budget holds 17 of them.
      const accepted = await page.evaluate(async () => {
        const blob = 'x'.repeat(60_000);
        const codes = (window as unknown as { codes: string[] }).codes;
        for (let i = 0; i < 40; i++) {
          await window.Onboarding.track(`fill-${i}`, { blob });
          if (codes.includes('outbox-full')) return i;
        }
        return -1;
      });
      expect(accepted).toBeGreaterThanOrEqual(15);
      expect(await queued(page)).toBe(accepted);
      // A refused step action is not applied either.
      await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].complete({ blob: 'y'.repeat(60_000) }));
      expect(await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].state.completed)).toBe(false);
      expect((await codes(page)).filter((code) => code === 'outbox-full')).toHaveLength(2);
      expect(await queued(page)).toBe(accepted);

      await env.browser.context.setOffline(false);
      await expect.poll(() => queued(page), { timeout: 30_000 }).toBe(0);
      const sent = await env.service.db.query<{ event: string }>(
        'SELECT event FROM user_events WHERE user_id = $1 ORDER BY id',
        ['offline-full'],
      );
      expect(sent.map((row) => row.event)).toEqual(Array.from({ length: accepted }, (_, i) => `fill-${i}`));
      expect(await count('SELECT count(*) AS n FROM flow_responses WHERE user_id = $1', 'offline-full')).toBe(0);
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
