// The script tag on a plain page, in real Chromium: identify, then the banner renders from the service; a tour converted from PostHog runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertPostHogTours } from '../../server/flows/from-posthog.js';
import { launchChromium, type LaunchedBrowser } from '../support/chromium.js';
import { bannerFlowYaml, PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';
import { startStaticSite, type StaticSite } from '../support/static-site.js';

let service: TestService;
let site: StaticSite;
let browser: LaunchedBrowser;

/**
 * A PostHog product tour as posthog-js types it (ProductTour, an element step and a modal step), converted by
 * from-posthog; its page rule keeps it to its own page.
 */
const [postHogTour] = convertPostHogTours({
  results: [
    {
      id: '019a0c1e-0000-7000-8000-00000000b001',
      name: 'Reports tour',
      tour_type: 'tour',
      auto_launch: true,
      start_date: '2025-12-01T00:00:00Z',
      end_date: null,
      conditions: { url: '/posthog-tour.html', urlMatchType: 'exact' },
      steps: [
        {
          id: 'filters',
          type: 'element',
          selector: '#report-filters',
          useManualSelector: true,
          progressionTrigger: 'button',
          content: null,
          contentHtml: '<h2>Filter by team</h2><p>Pick a <strong>team</strong> to narrow every chart.</p>',
          buttons: { primary: { text: 'Next', action: 'next_step' } },
        },
        { id: 'done', type: 'modal', progressionTrigger: 'button', content: null, contentHtml: '<p>That is all.</p>' },
      ],
    },
  ],
});

beforeAll(async () => {
  service = await startTestService({
    'banner.yaml': bannerFlowYaml('welcome', 'Hello from the service', 'Read from YAML'),
    [postHogTour.file]: postHogTour.text,
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

  it('runs a tour converted from PostHog: its first step is drawn at its target', async () => {
    expect(postHogTour.problems).toEqual([]);
    site.page(
      '/posthog-tour.html',
      `<!doctype html><html><body>
        <h1>Reports</h1>
        <div id="report-filters" style="margin: 80px; width: 200px; height: 40px">Filters</div>
        <script src="/onboarding.js" data-public-key="${PUBLIC_KEY}" data-api-url="${service.url}"></script>
      </body></html>`,
    );
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${site.url}/posthog-tour.html`);
    await page.evaluate(() => window.Onboarding.identify('posthog-tour-user'));

    const title = page.locator('onboarding-tour [part="title"]');
    await expect.poll(() => title.textContent(), { timeout: 10_000 }).toBe('Filter by team');
    const subtitle = page.locator('onboarding-tour [part="subtitle"]');
    expect(await subtitle.textContent()).toBe('Pick a team to narrow every chart.');
    expect(await subtitle.locator('strong').textContent()).toBe('team');
    expect(await page.locator('onboarding-tour [part="primary-button"]').textContent()).toBe('Next');
    // It points at its target: the step sits just below the element, as placed by default.
    const target = (await page.locator('#report-filters').boundingBox())!;
    const step = (await page.locator('onboarding-tour [part="base"]').boundingBox())!;
    expect(step.y).toBeGreaterThanOrEqual(target.y + target.height - 1);
    expect(errors).toEqual([]);
    await page.close();
  });
});
