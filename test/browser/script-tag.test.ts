// The script tag on a plain page, in real Chromium: identify, then the banner renders from the service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type LaunchedBrowser } from '../support/chromium.js';
import { bannerFlowYaml, PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';
import { startStaticSite, type StaticSite } from '../support/static-site.js';

let service: TestService;
let site: StaticSite;
let browser: LaunchedBrowser;

beforeAll(async () => {
  service = await startTestService({
    'banner.yaml': bannerFlowYaml('welcome', 'Hello from the service', 'Read from YAML'),
  });
  site = await startStaticSite();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await service?.close();
});

describe('script tag in Chromium', () => {
  it('identifies the visitor and shows the banner title from the shadow DOM', async () => {
    site.page(
      '/plain.html',
      `<!doctype html><html><body>
        <h1>A plain page</h1>
        <onboarding-banner flow="welcome"></onboarding-banner>
        <script src="/onboarding.js" data-public-key="${PUBLIC_KEY}" data-api-url="${service.url}"></script>
      </body></html>`,
    );
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${site.url}/plain.html`);
    await page.evaluate(() => window.Onboarding.identify('browser-user-1', { plan: 'pro' }));

    const title = page.locator('onboarding-banner [part="title"]');
    await expect.poll(() => title.textContent(), { timeout: 10_000 }).toBe('Hello from the service');
    expect(await page.locator('onboarding-banner [part="subtitle"]').textContent()).toBe('Read from YAML');
    expect(await page.evaluate(() => window.Onboarding.userId)).toBe('browser-user-1');
    // The banner lives in an open shadow root, not in the page's light DOM.
    expect(await page.evaluate(() => document.querySelector('onboarding-banner')!.shadowRoot!.mode)).toBe('open');
    expect(errors).toEqual([]);

    const stored = await service.call('GET', '/v1/public/flowStates?userId=browser-user-1');
    expect(stored.status).toBe(200);
    const user = await service.db.query<{ properties: Record<string, unknown> }>(
      'SELECT properties FROM users WHERE id = $1',
      ['browser-user-1'],
    );
    expect(user[0]?.properties).toEqual({ plan: 'pro' });
    await page.close();
  });
});
