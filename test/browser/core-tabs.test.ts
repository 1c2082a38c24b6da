// Two tabs of one site in real Chromium stay in step, send each write once, and refresh on SPA route changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBrowserEnv, type BrowserEnv } from '../support/browser-env.js';
import { isStateRead, writesIn } from '../support/requests.js';
import { checklistYaml, PRO_BANNER_YAML, PUBLIC_KEY } from '../support/service.js';

let env: BrowserEnv;

/** The pro banner, with French: the answer to the users write that makes it eligible brings its content. */
const PRO_BANNER_FR_YAML = `${PRO_BANNER_YAML}translations:
  fr:
    steps:
      offer:
        title: Vos outils pro sont prêts
`;

beforeAll(async () => {
  env = await startBrowserEnv(
    { 'setup.yaml': checklistYaml('setup', '', 3), 'pro.yaml': PRO_BANNER_FR_YAML },
    { proxy: true },
  );
  const page = (head = '') =>
    `<!doctype html><html><head>${head}</head><body>
      <script src="/onboarding.js" data-public-key="${PUBLIC_KEY}" data-api-url="${env.apiUrl}"></script>
      <script>
        window.seen = [];
        for (const name of ['flow.start', 'step.start', 'step.complete', 'change']) {
          Onboarding.on(name, (e) => seen.push(name + (e.step ? ':' + e.step.id : '')));
        }
      </script>
    </body></html>`;
  env.site.page('/app.html', page());
  env.site.page('/app/other', page());
  // A browser without BroadcastChannel: the storage event keeps the tabs in step.
  env.site.page('/no-channel.html', page('<script>delete window.BroadcastChannel;</script>'));
});

afterAll(() => env?.close());

const stepStates = (page: Page) =>
  page.evaluate(
    () => window.Onboarding.getFlow('setup')?.steps.map((s) => s.state.completed || s.state.skipped) ?? null,
  );
const seen = (page: Page) =>
  page.evaluate(() => (window as unknown as { seen: string[] }).seen.filter((e) => e !== 'change'));

async function twoTabs(path: string): Promise<[Page, Page, string[]]> {
  const errors: string[] = [];
  const pages: Page[] = [];
  for (let i = 0; i < 2; i++) {
    const page = await env.browser.context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${env.site.url}${path}`);
    await page.evaluate(() => window.Onboarding.ready);
    pages.push(page);
  }
  return [pages[0], pages[1], errors];
}

describe('tabs', () => {
  it('keeps two tabs in step: identity, clicks and events, with each write made once and applied once', async () => {
    const [a, b, errors] = await twoTabs('/app.html');
    await a.evaluate(() => window.Onboarding.identify('tab-user'));
    await expect.poll(() => b.evaluate(() => window.Onboarding.userId)).toBe('tab-user');
    await expect.poll(() => stepStates(b)).toEqual([false, false, false]);

    const before = env.proxy!.requests.length;
    await a.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].complete());
    await expect.poll(() => stepStates(b), { timeout: 5000 }).toEqual([true, false, false]);
    await b.evaluate(() => window.Onboarding.getFlow('setup')!.steps[1].skip());
    await expect.poll(() => stepStates(a), { timeout: 5000 }).toEqual([true, true, false]);
    await expect
      .poll(() => env.service.db.query("SELECT step_id FROM step_states WHERE user_id = 'tab-user' ORDER BY step_id"))
      .toEqual([{ step_id: 'one' }, { step_id: 'two' }]);

    // Each tab raised each event once, whichever tab made the change.
    for (const page of [a, b]) {
      await expect.poll(() => seen(page)).toEqual(['flow.start', 'step.start:one', 'step.complete:one']);
    }
    // Each change is one write, made in one tab. A tab may send the other tab's write a second time when it takes
    // the queue's lock before the other tab's removal reaches its localStorage (Chromium passes both between
    // processes without ordering them); the Idempotency-Key makes the service apply it once, as the rows above show.
    const writes = env
      .proxy!.requests.slice(before)
      .flatMap(writesIn)
      .filter((write) => write.path === 'flowStates');
    const byKey = new Map(writes.map((write) => [write.key, JSON.stringify(write.body)]));
    expect([...byKey.values()].map((body) => JSON.parse(body).actionType)).toEqual(['COMPLETED_STEP', 'SKIPPED_STEP']);
    for (const write of writes) expect(JSON.stringify(write.body)).toBe(byKey.get(write.key));
    expect(errors).toEqual([]);
    await a.evaluate(() => window.Onboarding.reset());
    await expect.poll(() => b.evaluate(() => window.Onboarding.userId)).toMatch(/^guest_/);
    await a.close();
    await b.close();
  });

  it('keeps tabs in step through the storage event when BroadcastChannel is missing', { retry: 2 }, async () => {
    const [a, b, errors] = await twoTabs('/no-channel.html');
    await a.evaluate(() => window.Onboarding.identify('storage-tab-user'));
    // The other tab learns the user, then reads its state: as long a wait as for the update below (a loaded full run took over 1 s).
    await expect.poll(() => b.evaluate(() => window.Onboarding.userId), { timeout: 5000 }).toBe('storage-tab-user');
    await expect.poll(() => stepStates(b), { timeout: 5000 }).toEqual([false, false, false]);
    await a.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].complete());
    await expect.poll(() => stepStates(b), { timeout: 5000 }).toEqual([true, false, false]);
    expect(errors).toEqual([]);
    await a.evaluate(() => window.Onboarding.reset());
    await a.close();
    await b.close();
  });
});

describe('tabs in two languages', () => {
  it("shows each tab's flows in its own language when another tab's answer brings content in another", async () => {
    const [a, b, errors] = await twoTabs('/app.html');
    await a.evaluate(() => window.Onboarding.identify('two-languages'));
    await expect.poll(() => b.evaluate(() => window.Onboarding.userId)).toBe('two-languages');
    await a.evaluate(() => window.Onboarding.setLocale('fr'));
    await b.evaluate(() => window.Onboarding.setLocale('en'));
    const title = (page: Page) => page.evaluate(() => window.Onboarding.getFlow('pro-banner')?.steps[0]?.title ?? null);
    await expect.poll(() => stepStates(b)).toEqual([false, false, false]);
    await expect.poll(() => stepStates(a)).toEqual([false, false, false]);

    // Tab A's users write makes the banner eligible; its answer brings the banner in French, and tab B hears of it.
    const before = env.proxy!.requests.length;
    await a.evaluate(() => window.Onboarding.identify('two-languages', { plan: 'pro' }));
    await expect.poll(() => title(a), { timeout: 5000 }).toBe('Vos outils pro sont prêts');
    // Tab B takes the new state but not the French content: it reads the banner in its own language.
    await expect.poll(() => title(b), { timeout: 5000 }).toBe('Your pro tools are ready');
    const reads = env.proxy!.requests.slice(before).filter(isStateRead);
    expect(reads.some((request) => request.path.includes('locale=en'))).toBe(true);
    expect(errors).toEqual([]);
    await a.evaluate(() => window.Onboarding.reset());
    await a.close();
    await b.close();
  });
});

describe('refresh', () => {
  it('reloads state once after a burst of SPA route changes, picking up progress made elsewhere', async () => {
    const page = await env.browser.context.newPage();
    await page.goto(`${env.site.url}/app.html`);
    await page.evaluate(() => window.Onboarding.identify('route-user'));
    // Another device completes a step.
    await env.service.call('POST', '/v1/public/flowStates', {
      body: { userId: 'route-user', flowSlug: 'setup', stepId: 'one', actionType: 'COMPLETED_STEP' },
    });
    const before = env.proxy!.requests.length;
    await page.evaluate(() => {
      history.pushState({}, '', '/app/other');
      history.replaceState({}, '', '/app/other?tab=2');
      history.pushState({}, '', '/app/other#section');
    });
    await expect.poll(() => stepStates(page), { timeout: 5000 }).toEqual([true, false, false]);
    await page.waitForTimeout(500);
    const reads = env.proxy!.requests.slice(before).filter(isStateRead);
    expect(reads).toHaveLength(1);
    await expect.poll(() => seen(page)).toContain('step.complete:one');
    await page.evaluate(() => window.Onboarding.reset());
    await page.close();
  });
});
