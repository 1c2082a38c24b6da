// In real Chromium, counted through the loopback proxy: what the script asks of the service, and how often (issues 8 and 10).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBrowserEnv, type BrowserEnv } from '../support/browser-env.js';
import type { SeenRequest } from '../support/loopback-proxy.js';
import { isStateRead, writesIn } from '../support/requests.js';
import { bannerFlowYaml, checklistYaml, PUBLIC_KEY } from '../support/service.js';

let env: BrowserEnv;

beforeAll(async () => {
  env = await startBrowserEnv(
    { 'a-banner.yaml': bannerFlowYaml('welcome', 'Hello, new visitor', 'Drawn from the state answer'), 'b-setup.yaml': checklistYaml('setup', '', 3) },
    { proxy: true },
  );
});

afterAll(() => env?.close());

/** A page of the site's origin with the banner in its markup; `drawnAt` is when its title first showed. */
const bannerPage = (script = '') => `<!doctype html><html><body>
  <onboarding-banner flow="welcome"></onboarding-banner>
  <script>
    localStorage.clear();
    (function watch() {
      const title = document.querySelector('onboarding-banner')?.shadowRoot?.querySelector('[part="title"]');
      if (title && title.textContent) window.drawnAt = Date.now();
      else requestAnimationFrame(watch);
    })();
  </script>
  <script src="/onboarding.js" data-public-key="${PUBLIC_KEY}" data-api-url="${env.apiUrl}"></script>
  ${script}
</body></html>`;

let pages = 0;
async function open(html: string): Promise<{ page: Page; since: number; errors: string[] }> {
  const path = `/requests-${++pages}.html`;
  env.site.page(path, html);
  const page = await env.browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const since = env.proxy!.requests.length;
  await page.goto(`${env.site.url}${path}`);
  return { page, since, errors };
}

const drawnAt = (page: Page) => page.evaluate(() => (window as unknown as { drawnAt?: number }).drawnAt);
const isFlowsListing = (r: SeenRequest) => /^\/v1\/public\/flows(\/|\?|$)/.test(r.path);

describe('drawing from the state answer alone (issue 8)', () => {
  it('draws a new visitor’s banner after one state request, and never lists the flows', async () => {
    const { page, since, errors } = await open(bannerPage());
    await expect.poll(() => drawnAt(page), { timeout: 10_000 }).toBeGreaterThan(0);
    const drawn = (await drawnAt(page))!;
    const before = env.proxy!.requests.slice(since).filter((r) => r.at <= drawn);
    const requests = before.filter((r) => r.method !== 'OPTIONS');
    expect(requests).toHaveLength(1);
    expect(isStateRead(requests[0]!)).toBe(true);
    expect(before.filter((r) => r.method === 'OPTIONS').length).toBeLessThanOrEqual(1);
    expect(await page.locator('onboarding-banner [part="subtitle"]').textContent()).toBe('Drawn from the state answer');
    // The banner records its first showing; wait for those writes, then look at everything the page sent.
    await expect.poll(() => page.evaluate(() => localStorage.getItem('onboarding:outbox'))).toBeNull();
    expect(env.proxy!.requests.slice(since).filter(isFlowsListing)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('asks writes for no content, and reads only the content of versions it does not hold', async () => {
    const { page, since, errors } = await open(bannerPage());
    await expect.poll(() => drawnAt(page), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.evaluate(() => window.Onboarding.identify('content-user'));
    await expect.poll(() => page.evaluate(() => window.Onboarding.getFlow('setup')?.steps.length)).toBe(3);
    await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0]!.complete());
    await expect.poll(() => page.evaluate(() => localStorage.getItem('onboarding:outbox'))).toBeNull();

    // A new version of the checklist: the next read carries its content, and only its.
    await env.service.writeFlow('b-setup.yaml', checklistYaml('setup', '', 2));
    const readsBefore = env.proxy!.requests.length;
    await page.evaluate(() => window.Onboarding.refresh());
    await expect.poll(() => page.evaluate(() => window.Onboarding.getFlow('setup')?.steps.length)).toBe(2);
    const read = env.proxy!.requests.slice(readsBefore).find(isStateRead)!;
    expect(JSON.parse(read.body).knownVersions).toEqual({ welcome: 1, setup: 1 });
    const transitions = env.proxy!.requests.slice(since).filter((r) => writesIn(r).some((write) => write.path === 'flowStates'));
    expect(transitions.length).toBeGreaterThan(0);
    expect(transitions.every((r) => r.path.includes('content=none') || JSON.parse(r.body).knownVersions)).toBe(true);
    expect(env.proxy!.requests.slice(since).filter(isFlowsListing)).toEqual([]);
    expect(errors).toEqual([]);
    await env.service.writeFlow('b-setup.yaml', checklistYaml('setup', '', 3));
    await page.close();
  });

  it('paints a returning visitor from the cache before any answer', async () => {
    const { page, errors } = await open(bannerPage());
    await expect.poll(() => drawnAt(page), { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => page.evaluate(() => localStorage.getItem('onboarding:content'))).toContain('Hello, new visitor');
    // The next visit's reads are held: only the cache can draw the banner.
    const held = env.proxy!.hold(isStateRead);
    const path = `/requests-${++pages}.html`;
    env.site.page(path, bannerPage().replace('localStorage.clear();', ''));
    await page.goto(`${env.site.url}${path}`);
    await expect.poll(() => drawnAt(page), { timeout: 10_000 }).toBeGreaterThan(0);
    await held.arrived;
    held.release();
    expect(errors).toEqual([]);
    await page.close();
  });
});
