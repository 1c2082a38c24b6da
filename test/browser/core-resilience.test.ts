// In real Chromium: storage that throws or is full, offline pauses, and the pagehide flush with keepalive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBrowserEnv, type BrowserEnv } from '../support/browser-env.js';
import { carriesWrite } from '../support/requests.js';
import { checklistYaml, PUBLIC_KEY } from '../support/service.js';

let env: BrowserEnv;

const throwingStorage = `<script>
  Object.defineProperty(window, 'localStorage', { configurable: true, get() { throw new DOMException('The operation is insecure.', 'SecurityError'); } });
</script>`;
// Fills localStorage to its quota before the script loads.
const fullStorage = `<script>
  try {
    const chunk = 'x'.repeat(1 << 20);
    for (let i = 0; i < 64; i++) localStorage.setItem('filler-' + i, chunk);
  } catch (error) {
    window.quotaError = error.name;
  }
  try {
    for (let i = 0; i < 4096; i++) localStorage.setItem('small-' + i, 'x'.repeat(1024));
  } catch {}
</script>`;

beforeAll(async () => {
  env = await startBrowserEnv({ 'setup.yaml': checklistYaml('setup', '', 2) }, { proxy: true });
  const page = (head = '') =>
    `<!doctype html><html><head>${head}</head><body>
      <script src="/onboarding.js" data-public-key="${PUBLIC_KEY}" data-api-url="${env.apiUrl}"></script>
    </body></html>`;
  env.site.page('/app.html', page());
  env.site.page('/throwing.html', page(throwingStorage));
  env.site.page('/full.html', page(fullStorage));
  env.site.page('/elsewhere.html', '<!doctype html><p>another page</p>');
});

afterAll(() => env?.close());

async function open(path: string): Promise<{ page: Page; errors: string[]; warnings: string[] }> {
  const page = await env.browser.context.newPage();
  const errors: string[] = [];
  const warnings: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'warning' && message.text().startsWith('[onboarding]')) warnings.push(message.text());
  });
  await page.goto(`${env.site.url}${path}`);
  await page.evaluate(() => window.Onboarding.ready);
  return { page, errors, warnings };
}

const rows = (userId: string) =>
  env.service.db.query<{ step_id: string }>('SELECT step_id FROM flow_responses WHERE user_id = $1 ORDER BY id', [
    userId,
  ]);

describe('storage', () => {
  for (const [name, path] of [
    ['throws on access', '/throwing.html'],
    ['is full', '/full.html'],
  ] as const) {
    it(`keeps identifying and recording transitions when localStorage ${name}`, async () => {
      const { page, errors } = await open(path);
      if (path === '/full.html')
        expect(await page.evaluate(() => (window as unknown as { quotaError?: string }).quotaError)).toBe(
          'QuotaExceededError',
        );
      const userId = `storage-${path.slice(1, -5)}`;
      expect(await page.evaluate(() => window.Onboarding.userId)).toMatch(/^guest_/);
      await page.evaluate((id) => window.Onboarding.identify(id, { plan: 'pro' }), userId);
      await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].complete());
      await page.evaluate(() => window.Onboarding.track('saved'));
      await expect.poll(() => rows(userId)).toEqual([{ step_id: 'one' }]);
      // Each write of a batch commits on its own, so the event may land a moment after the transition.
      await expect
        .poll(() => env.service.db.query('SELECT event FROM user_events WHERE user_id = $1', [userId]))
        .toEqual([{ event: 'saved' }]);
      expect(await page.evaluate(() => window.Onboarding.getFlow('setup')!.currentStep!.id)).toBe('two');
      expect(errors).toEqual([]);
      if (path === '/full.html') await page.evaluate(() => localStorage.clear());
      await page.close();
    });
  }
});

describe('network', () => {
  it('waits while offline and sends the queued writes once the browser is back online', async () => {
    const { page, errors } = await open('/app.html');
    await page.evaluate(() => window.Onboarding.identify('offline-user'));
    await env.browser.context.setOffline(true);
    const before = env.proxy!.requests.length;
    await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].complete());
    expect(await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].state.completed)).toBe(true);
    await page.waitForTimeout(1500);
    expect(env.proxy!.requests.length).toBe(before);
    expect(await page.evaluate(() => JSON.parse(localStorage.getItem('onboarding:outbox')!).length)).toBe(1);
    await env.browser.context.setOffline(false);
    await expect.poll(() => rows('offline-user'), { timeout: 10_000 }).toEqual([{ step_id: 'one' }]);
    expect(errors).toEqual([]);
    await page.evaluate(() => window.Onboarding.reset());
    await page.close();
  });

  it('flushes what waits for a retry with keepalive when the page goes away', async () => {
    const { page, errors, warnings } = await open('/app.html');
    await page.evaluate(() => window.Onboarding.identify('leaving-user'));
    // The service asks for a minute's patience; the user leaves before that.
    env.proxy!.answer(carriesWrite('flowStates'), 503, '{"status":503}', {
      headers: { 'Retry-After': '60' },
      times: 1,
    });
    await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].complete({ rating: 5 }));
    await expect.poll(() => warnings).toHaveLength(1);
    await page.evaluate(() => window.Onboarding.track('left'));
    await page.goto(`${env.site.url}/elsewhere.html`);
    await expect.poll(() => rows('leaving-user'), { timeout: 10_000 }).toEqual([{ step_id: 'one' }]);
    await expect
      .poll(() => env.service.db.query("SELECT event FROM user_events WHERE user_id = 'leaving-user'"))
      .toEqual([{ event: 'left' }]);
    // One warning per kind of failure, however often it happens.
    expect(warnings[0]).toMatch(/^\[onboarding\] write-failed/);
    expect(errors).toEqual([]);
    await page.close();
  });
});
