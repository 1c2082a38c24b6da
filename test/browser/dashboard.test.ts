// The analytics dashboard in real Chromium, on a real service with a month of traffic: sign-in, every view, keyboard use, CSV, axe, CSP, light and dark,
// the collections, a flow's reshowings, its split by locale, a resource centre's use, a flow's goal, the experiments, and the People page.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchChromium, type LaunchedBrowser } from '../support/chromium.js';
import type { AnalyticsFlowResponse, ExperimentReport, ExplainResponse } from '../../src/api/wire.js';
import { percent, percentRange, points, pointsRange, pValue } from '../../tools/dashboard/format.js';
import { SEED_FLOWS, seedExperiments, seedMonth } from '../support/analytics-seed.js';
import { PRIVATE_KEY, PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** Set to a folder to keep the screenshots this suite takes (light and dark, every view). */
const SCREENSHOTS = process.env.ONBOARDING_DASHBOARD_SCREENSHOTS;

let service: TestService;
let browser: LaunchedBrowser;

beforeAll(async () => {
  service = await startTestService(SEED_FLOWS, { dashboard: true });
  await seedMonth(service);
  await seedExperiments(service);
  browser = await launchChromium();
  if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

interface Watched {
  page: Page;
  /** Console errors, page errors and CSP violations. */
  problems: string[];
  /** Every address the page asked for. */
  requests: string[];
}

async function open(colorScheme: 'light' | 'dark' = 'light'): Promise<Watched> {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('request', (request) => requests.push(request.url()));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  await page.goto(`${service.url}/dashboard`);
  return { page, problems, requests };
}

async function signIn(page: Page, key = PRIVATE_KEY): Promise<void> {
  await page.locator('ob-sign-in input').fill(key);
  await page.keyboard.press('Enter');
}

/** The element that has focus, through open shadow roots. */
const focused = (page: Page) =>
  page.evaluate(() => {
    let element: Element | null = document.activeElement;
    while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement;
    return element ? `${element.tagName.toLowerCase()}:${(element.textContent ?? '').trim().slice(0, 40)}` : '';
  });

async function tabTo(page: Page, target: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    if ((await focused(page)) === target) return;
  }
  throw new Error(`Tab never reached ${target}`);
}

async function serious(page: Page): Promise<string[]> {
  // Evaluated through the debugging protocol: the page's CSP refuses an injected script tag, as it should.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: unknown,
          ): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document);
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}

/** An experiment's report as the service answers it. */
const experimentReport = async (id: string) =>
  (await service.call('GET', `/v1/analytics/experiments/${id}`, { key: PRIVATE_KEY })).body as ExperimentReport;

/** The text of each cell of each row of a table, whitespace folded. */
const cellsOf = (rows: ReturnType<Page['locator']>) =>
  rows.evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('th, td')].map((cell) => cell.textContent.replace(/\s+/g, ' ').trim())),
  );

async function shoot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

describe('the dashboard', () => {
  it('refuses a public key, signs in with a private key, and never puts the key in an address', async () => {
    const { page, problems, requests } = await open();
    await shoot(page, 'sign-in-light');
    await signIn(page, PUBLIC_KEY);
    await expect.poll(() => page.locator('ob-sign-in [role="alert"]').textContent()).toContain('private key');
    await signIn(page);
    await page.locator('ob-flows-list table').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('onboarding-dashboard:key'))).toBe(PRIVATE_KEY);
    expect(requests.some((url) => url.includes(PRIVATE_KEY) || url.includes(PUBLIC_KEY))).toBe(false);
    expect(page.url()).not.toContain(PRIVATE_KEY);
    // A reload keeps the session of this tab; signing out forgets the key.
    await page.reload();
    await page.locator('ob-flows-list table').waitFor();
    await page.locator('ob-dashboard button', { hasText: 'Sign out' }).click();
    await page.locator('ob-sign-in input').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(problems.filter((p) => !p.includes('401') && !p.includes('403'))).toEqual([]);
    await page.close();
  });

  it('lists every flow with its numbers, busiest first', async () => {
    const { page, problems } = await open();
    await signIn(page);
    const rows = page.locator('ob-flows-list tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(Object.keys(SEED_FLOWS).filter((file) => file !== 'experiments.yaml').length);
    const first = await rows.first().locator('td').allTextContents();
    expect(first[0]).toContain('Getting started');
    const report = (
      await service.call(
        'GET',
        '/v1/analytics/flows?from=' + new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10),
        { key: PRIVATE_KEY },
      )
    ).body;
    const started = report.flows.find((f: { slug: string }) => f.slug === 'getting-started').started;
    expect(first[2]).toBe(String(started));
    await shoot(page, 'flows-light');
    expect(problems).toEqual([]);
    await page.close();
  });

  it("works by keyboard: a survey's NPS, its comments, the answers and their CSV download", async () => {
    const { page, problems } = await open();
    await signIn(page);
    await page.locator('ob-flows-list tbody tr').first().waitFor();
    await tabTo(page, 'a:Quarterly NPS');
    await page.keyboard.press('Enter');
    await page.locator('ob-survey-panel .score-value').waitFor();
    expect(page.url()).toMatch(/#\/flows\/nps\?days=30$/);
    // The new page's heading takes focus, for screen readers.
    await expect.poll(() => focused(page)).toBe('h1:Quarterly NPS');
    const nps = (
      await service.call(
        'GET',
        `/v1/analytics/flows/nps?from=${new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10)}`,
        { key: PRIVATE_KEY },
      )
    ).body.survey.steps[0];
    expect(await page.locator('ob-survey-panel .score-value').textContent()).toBe(
      `${nps.score > 0 ? '+' : ''}${Math.round(nps.score)}`,
    );
    expect(await page.locator('ob-survey-panel .comments li').count()).toBeGreaterThan(3);
    await page.locator('ob-answers tbody tr').first().waitFor();
    await shoot(page, 'survey-light');
    // The picture in docs/analytics.md: the top of a survey's report, down to its NPS.
    const card = await page.locator('ob-survey-panel section.nps').boundingBox();
    if (SCREENSHOTS)
      await page.screenshot({
        path: join(SCREENSHOTS, 'dashboard.png'),
        fullPage: true,
        clip: { x: 0, y: 0, width: 1280, height: Math.ceil(card!.y + card!.height + 24) },
      });

    await tabTo(page, 'button:Download CSV');
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    expect(download.suggestedFilename()).toMatch(/^nps-answers-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync(await download.path(), 'utf8');
    expect(csv.split('\r\n')[0]).toBe('created_at,user_id,step_id,field,value,url,version,response_id,locale');
    expect(csv.split('\r\n').length).toBeGreaterThan(20);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows a flow's totals, trend by day and step funnel, and filters by version and range", async () => {
    const { page, problems } = await open();
    await signIn(page);
    await page.locator('ob-flows-list tbody tr').first().waitFor();
    await page.locator('ob-flows-list a', { hasText: 'Getting started' }).click();
    const funnel = page.locator('ob-flow-view table.funnel tbody tr');
    await funnel.first().waitFor();
    expect(await funnel.count()).toBe(4);
    expect(await funnel.first().locator('th').textContent()).toContain('Connect your data');
    // A checklist has no answers: no empty answers card either.
    await page.waitForTimeout(200);
    expect(await page.locator('ob-answers section').count()).toBe(0);
    expect(await page.locator('ob-flow-view svg.trend').getAttribute('aria-label')).toMatch(
      /^\d+ started and \d+ of them completed/,
    );
    await shoot(page, 'flow-light');
    await page.locator('ob-dashboard select#range').selectOption('7');
    await expect.poll(() => page.url()).toMatch(/days=7$/);
    await page.locator('ob-flow-view select').selectOption('1');
    await expect.poll(() => page.url()).toMatch(/days=7&version=1$/);
    await expect.poll(() => page.locator('ob-flow-view details tbody tr').count()).toBe(7);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows the users whose target was missing in a tour's funnel, and not in a checklist's", async () => {
    const { page, problems } = await open();
    await signIn(page);
    await page.evaluate(() => (location.hash = '#/flows/product-tour?days=30'));
    const header = page.locator('ob-flow-view table.funnel thead th');
    await expect.poll(() => header.allTextContents()).toContain('Target missing');
    const cells = await page.locator('ob-flow-view table.funnel tbody tr td:last-child').allTextContents();
    expect(cells.map((cell) => cell.trim())).toEqual(['–', '12', '–']);
    expect(await page.locator('ob-flow-view table.funnel').getAttribute('aria-describedby')).toBe('missing-note');
    await page.evaluate(() => (location.hash = '#/flows/getting-started?days=30'));
    await page.locator('ob-flow-view table.funnel tbody tr th', { hasText: 'Connect your data' }).waitFor();
    expect(await header.allTextContents()).not.toContain('Target missing');
    expect(problems).toEqual([]);
    await page.close();
  });

  it.each(['light', 'dark'] as const)('has no serious or critical axe violation on any view, %s', async (scheme) => {
    const { page, problems } = await open(scheme);
    expect(await serious(page)).toEqual([]);
    if (scheme === 'dark') await shoot(page, 'sign-in-dark');
    await signIn(page);
    await page.locator('ob-flows-list tbody tr').first().waitFor();
    expect(await serious(page)).toEqual([]);
    if (scheme === 'dark') await shoot(page, 'flows-dark');
    for (const slug of ['nps', 'getting-started', 'profile', 'product-tour']) {
      await page.evaluate((s) => (location.hash = `#/flows/${s}?days=30`), slug);
      await page.locator('ob-flow-view table.funnel tbody tr').first().waitFor();
      // A checklist and a tour have no answers, so their answers card stays empty.
      if (slug === 'nps' || slug === 'profile') await page.locator('ob-answers table').waitFor();
      expect(await serious(page), slug).toEqual([]);
      if (scheme === 'dark') await shoot(page, `${slug}-dark`);
    }
    await page.evaluate(() => (location.hash = '#/experiments?days=30'));
    await page.locator('ob-experiments-list tbody tr').first().waitFor();
    expect(await serious(page), 'experiments').toEqual([]);
    if (scheme === 'dark') await shoot(page, 'experiments-dark');
    for (const id of ['export-banner', 'quick-tour']) {
      await page.evaluate((i) => (location.hash = `#/experiments/${i}?days=30`), id);
      await page.locator('ob-experiment-view table.variants-table tbody tr').first().waitFor();
      expect(await serious(page), id).toEqual([]);
      if (scheme === 'dark') await shoot(page, `experiment-${id}-dark`);
    }
    await page.evaluate(() => (location.hash = '#/people/axe-visitor?days=30'));
    await page.locator('ob-people-view details.flow').first().waitFor();
    expect(await serious(page), 'people').toEqual([]);
    if (scheme === 'dark') await shoot(page, 'people-dark');
    // Dark means dark: the page's background follows the system setting.
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe(scheme === 'dark' ? 'rgb(13, 16, 23)' : 'rgb(245, 246, 250)');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('lists the collections with their type, cool-off and flows in priority order, each linking to its report', async () => {
    await service.writeFlow(
      'collections.yaml',
      'collections:\n  - { id: home-announcements, type: DEFAULT, coolOff: 48h, flows: [whats-new, nps] }\n  - { id: setup, type: CUSTOM, flows: [profile, getting-started] }\n',
    );
    try {
      const { page, problems } = await open();
      await signIn(page);
      const cards = page.locator('ob-collections section.card');
      await cards.first().waitFor();
      expect(await cards.locator('h3').allTextContents()).toEqual(['home-announcements', 'setup']);
      expect((await cards.locator('.badge').allTextContents()).map((t) => t.trim())).toEqual(['Default', 'Custom']);
      expect((await cards.locator('p.hint').allTextContents()).map((t) => t.trim())).toEqual([
        'Cool-off 48h between flows',
        'No cool-off between flows',
      ]);
      expect(await cards.nth(0).locator('ol li a').allTextContents()).toEqual(["What's new in March", 'Quarterly NPS']);
      expect(await cards.nth(1).locator('ol li a').allTextContents()).toEqual(['Tell us about you', 'Getting started']);
      expect(await serious(page)).toEqual([]);
      await shoot(page, 'collections-light');
      await cards.nth(1).locator('a', { hasText: 'Getting started' }).click();
      await expect.poll(() => page.url()).toMatch(/#\/flows\/getting-started\?days=30$/);
      await page.locator('ob-flow-view table.funnel tbody tr').first().waitFor();
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await service.removeFlow('collections.yaml');
    }
  });

  it("shows a flow's reshowings when it has reshow, and none for a flow without", async () => {
    await service.writeFlow(
      'comeback.yaml',
      'slug: comeback\nname: Come back\ntype: BANNER\nreshow: { after: 1s, times: 1 }\ndata:\n  steps:\n    - id: hello\n      title: Hello\n',
    );
    try {
      const act = async (userId: string, actionType: string) =>
        expect(
          (await service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug: 'comeback', actionType } }))
            .status,
        ).toBe(201);
      for (const user of ['back-a', 'back-b', 'back-c']) await act(user, 'SKIPPED_FLOW');
      // The flow comes back a second after each dismissal; one user completes it then, one dismisses it again.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await act('back-a', 'COMPLETED_FLOW');
      await act('back-b', 'SKIPPED_FLOW');
      const { page, problems } = await open();
      await signIn(page);
      await page.evaluate(() => (location.hash = '#/flows/comeback?days=30'));
      const rows = page.locator('ob-flow-view table.reshow tbody tr');
      await rows.first().waitFor();
      const cells = await rows.evaluateAll((trs) =>
        trs.map((tr) => [
          tr.querySelector('th')!.textContent.trim(),
          tr.querySelector('td')!.textContent.replace(/\s+/g, ' ').trim(),
        ]),
      );
      expect(cells).toEqual([
        ['Acted on a comeback', '2'],
        ['Comebacks acted on', '2'],
        ['Completed after it came back', '1 50%'],
        ['Dismissed it again', '1 50%'],
      ]);
      expect(await serious(page)).toEqual([]);
      await shoot(page, 'reshow-light');
      await page.evaluate(() => (location.hash = '#/flows/getting-started?days=30'));
      await page.locator('ob-flow-view table.funnel tbody tr th', { hasText: 'Connect your data' }).waitFor();
      expect(await page.locator('ob-flow-view table.reshow').count()).toBe(0);
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await service.removeFlow('comeback.yaml');
    }
  });

  it("shows a resource centre's opens, clicks per block and item, and the searches that found nothing", async () => {
    await service.writeFlow(
      'help-desk.yaml',
      'slug: help-desk\nname: Help desk\ntype: RESOURCE_CENTER\ndata:\n  title: Help\n  blocks:\n' +
        '    - { id: find, type: search }\n    - { id: guides, type: links, links: [{ title: Guides, url: /guides }] }\n',
    );
    try {
      const event = (userId: string, properties: Record<string, unknown>) =>
        service.call('POST', '/v1/public/users', {
          body: {
            userId,
            events: [{ event: 'onboarding:resource-center', properties: { flow: 'help-desk', ...properties } }],
          },
        });
      for (const user of ['desk-a', 'desk-b']) {
        const opened = await service.call('POST', '/v1/public/flowStates', {
          body: { userId: user, flowSlug: 'help-desk', actionType: 'STARTED_FLOW' },
        });
        expect(opened.status).toBe(201);
        expect((await event(user, { action: 'search', block: 'find', query: 'Export CSV', results: 0 })).status).toBe(
          201,
        );
      }
      expect((await event('desk-a', { action: 'click', block: 'guides', item: '/guides' })).status).toBe(201);
      const { page, problems } = await open();
      await signIn(page);
      await page.evaluate(() => (location.hash = '#/flows/help-desk?days=30'));
      const card = page.locator('ob-flow-view section[aria-labelledby="centre-title"]');
      await card.waitFor();
      expect(await card.locator('.hint').textContent()).toBe('Opened by 2 users');
      const rows = (table: number) =>
        card
          .locator('table')
          .nth(table)
          .locator('tbody tr')
          .evaluateAll((trs) => trs.map((tr) => tr.textContent.replace(/\s+/g, ' ').trim()));
      expect(await rows(0)).toEqual(['guides /guides 1 1']);
      expect(await rows(1)).toEqual(['export csv 2']);
      expect(await serious(page)).toEqual([]);
      await shoot(page, 'resource-centre-light');
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await service.removeFlow('help-desk.yaml');
    }
  });

  it("shows a flow's split by the translation each user first started in, and none for a flow used in no locale", async () => {
    await service.writeFlow(
      'bilingual.yaml',
      'slug: bilingual\nname: Bilingual\ntype: BANNER\ndata:\n  steps:\n    - id: hello\n      title: Hello\n' +
        'translations:\n  fr: { steps: { hello: { title: Bonjour } } }\n  fr-CA: { steps: { hello: { title: Allô } } }\n',
    );
    try {
      const act = async (userId: string, actionType: string, locale?: string) =>
        expect(
          (
            await service.call('POST', `/v1/public/flowStates${locale ? `?locale=${locale}` : ''}`, {
              body: { userId, flowSlug: 'bilingual', actionType },
            })
          ).status,
        ).toBe(201);
      await act('fr-a', 'COMPLETED_FLOW', 'fr');
      await act('fr-b', 'SKIPPED_FLOW', 'fr');
      await act('ca-a', 'COMPLETED_FLOW', 'fr-CA');
      await act('none-a', 'STARTED_FLOW');
      // No German translation: this user saw the source text, and is counted with those who sent no locale.
      await act('de-a', 'STARTED_FLOW', 'de');
      const { page, problems } = await open();
      await signIn(page);
      await page.evaluate(() => (location.hash = '#/flows/bilingual?days=30'));
      const rows = page.locator('ob-flow-view table.locales tbody tr');
      await rows.first().waitFor();
      const cells = await rows.evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('th, td')].map((cell) => cell.textContent.replace(/\s+/g, ' ').trim())),
      );
      expect(cells).toEqual([
        ['Source text', '2', '0 0%', '0', '–'],
        ['Frenchfr', '2', '1 50%', '1', expect.any(String)],
        ['Canadian Frenchfr-CA', '1', '1 100%', '0', expect.any(String)],
      ]);
      expect(await serious(page)).toEqual([]);
      await shoot(page, 'locales-light');
      await page.evaluate(() => (location.hash = '#/flows/getting-started?days=30'));
      await page.locator('ob-flow-view table.funnel tbody tr th', { hasText: 'Connect your data' }).waitFor();
      expect(await page.locator('ob-flow-view table.locales').count()).toBe(0);
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await service.removeFlow('bilingual.yaml');
    }
  });

  it("shows a flow's goal: its event, window, users seen and converted, and the rate, as the service counts them", async () => {
    const { page, problems } = await open();
    await signIn(page);
    await page.evaluate(() => (location.hash = '#/flows/getting-started?days=30'));
    const card = page.locator('ob-flow-view section[aria-labelledby="goal-title"]');
    await card.locator('table tbody tr').first().waitFor();
    const from = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    const goal = (
      (await service.call('GET', `/v1/analytics/flows/getting-started?from=${from}`, { key: PRIVATE_KEY }))
        .body as AnalyticsFlowResponse
    ).goal!;
    expect(goal).toMatchObject({ event: 'report.exported', within: '7d' });
    expect(goal.converted).toBeGreaterThan(0);
    expect(goal.converted).toBeLessThan(goal.seen);
    expect((await card.locator('.hint').textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      "report.exported within 7d of a user's first start",
    );
    expect(await cellsOf(card.locator('tbody tr'))).toEqual([
      ['Seen (first started in this window)', String(goal.seen)],
      ['Converted', String(goal.converted)],
      ['Conversion rate', percent(goal.rate)],
    ]);
    // A flow without a goal has no goal card.
    await page.evaluate(() => (location.hash = '#/flows/product-tour?days=30'));
    await page.locator('ob-flow-view table.funnel tbody tr th', { hasText: 'Your workspace' }).waitFor();
    expect(await card.count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('lists every experiment with its status, goal, variants, users exposed and a verdict, each linking to its page', async () => {
    const { page, problems } = await open();
    await signIn(page);
    await page.locator('ob-flows-list tbody tr').first().waitFor();
    await page.locator('ob-dashboard nav a', { hasText: 'Experiments' }).click();
    const rows = page.locator('ob-experiments-list tbody tr');
    await rows.first().waitFor();
    expect(page.url()).toMatch(/#\/experiments\?days=30$/);
    expect(await page.locator('ob-dashboard nav a[aria-current="page"]').textContent()).toBe('Experiments');
    // The range applies to flows only.
    expect(await page.locator('ob-dashboard select#range').count()).toBe(0);
    const reports = await Promise.all(['export-banner', 'invite-card', 'quick-tour'].map(experimentReport));
    const cells = await cellsOf(rows);
    expect(cells.map((row) => row[0])).toEqual(['export-banner', 'invite-card', 'quick-tour']);
    for (const [index, report] of reports.entries()) {
      const [, status, goal, variants, exposed] = cells[index];
      expect(status).toBe('running');
      expect(goal).toBe(`${report.goal.event} within ${report.goal.within}`);
      expect(variants).toBe(
        report.variants.map((v) => `${v.id} ${v.flow ?? 'no flow'} · weight ${v.weight}`).join(' '),
      );
      expect(exposed).toBe(String(report.exposed));
    }
    expect(reports.map((report) => report.exposed)).toEqual([80, 6, 20]);
    const banner = reports[0].variants.find((v) => v.id === 'banner')!;
    expect(cells.map((row) => row[5])).toEqual([
      `banner converts better than control: ${points(banner.difference!)} (95 % interval ${pointsRange(banner.differenceInterval!)}).`,
      'Not enough data yet.',
      'Sample ratio mismatch: the figures cannot be trusted until its cause is found.',
    ]);
    await shoot(page, 'experiments-light');
    await rows.first().locator('a').click();
    await expect.poll(() => page.url()).toMatch(/#\/experiments\/export-banner\?days=30$/);
    await page.locator('ob-experiment-view table.variants-table tbody tr').first().waitFor();
    await expect.poll(() => focused(page)).toBe('h1:export-banner');
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows an experiment's rates, intervals, differences, p-values and chances to beat the baseline as the service reports them, each rate drawn as a whisker", async () => {
    const { page, problems } = await open();
    await signIn(page);
    await page.evaluate(() => (location.hash = '#/experiments/export-banner?days=30'));
    const rows = page.locator('ob-experiment-view table.variants-table tbody tr');
    await rows.first().waitFor();
    const report = await experimentReport('export-banner');
    expect(report.enoughData).toBe(true);
    expect(report.sampleRatio.mismatch).toBe(false);
    expect(await cellsOf(rows)).toEqual(
      report.variants.map((v) => [
        `${v.id}${v.baseline ? ' baseline' : ''} ${v.flow ?? 'no flow (control)'} · weight ${v.weight}`,
        String(v.exposed),
        String(v.converted),
        percent(v.rate),
        percentRange(v.interval!),
        v.baseline ? '–' : points(v.difference!),
        v.baseline ? '–' : pointsRange(v.differenceInterval!),
        v.baseline ? '–' : pValue(v.pValue),
        v.baseline ? '–' : percent(v.chanceToBeatBaseline),
      ]),
    );
    expect(report.variants.map((v) => v.baseline)).toEqual([true, false]);
    // No banner: enough data, and the split matches the weights; the verdict reads the difference's interval.
    expect(await page.locator('ob-experiment-view .banner').count()).toBe(0);
    const banner = report.variants[1];
    expect(await page.locator('ob-experiment-view .verdict').textContent()).toBe(
      `banner converts better than control: ${points(banner.difference!)} (95 % interval ${pointsRange(banner.differenceInterval!)}).`,
    );
    const kpis = await page.locator('ob-experiment-view .kpi-value').allTextContents();
    const converted = report.variants.reduce((sum, v) => sum + v.converted, 0);
    expect(kpis).toEqual([String(report.exposed), String(converted), 'control', pValue(report.sampleRatio.pValue)]);
    // The methods the answer names.
    const methods = await page.locator('ob-experiment-view .methods dd code').allTextContents();
    expect(methods.sort()).toEqual(Object.values(report.methods).sort());

    // One whisker per variant, on a shared scale from 0 (the first gridline) to the last label's share.
    const chart = page.locator('ob-experiment-view svg.intervals');
    expect(await chart.getAttribute('role')).toBe('img');
    expect(await chart.getAttribute('aria-label')).toContain(
      `control (baseline): ${percent(report.variants[0].rate)}, 95 % interval ${percentRange(report.variants[0].interval!)}`,
    );
    const drawn = await chart.evaluate((svg) => {
      const n = (el: Element | null, name: string) => Number(el!.getAttribute(name));
      const grid = [...svg.querySelectorAll('line.gridline')].map((line) => n(line, 'x1'));
      const labels = [...svg.querySelectorAll('text.axis')].map((text) => text.textContent);
      const whiskers = [...svg.querySelectorAll('g.whisker')].map((g) => ({
        baseline: g.classList.contains('is-baseline'),
        from: n(g.querySelector('line.range'), 'x1'),
        to: n(g.querySelector('line.range'), 'x2'),
        at: n(g.querySelector('circle.rate'), 'cx'),
      }));
      const baselineLine = n(svg.querySelector('line.baseline-rate'), 'x1');
      return { grid, labels, whiskers, baselineLine };
    });
    const max = Number.parseFloat(drawn.labels.at(-1)!) / 100;
    const x = (share: number) => drawn.grid[0] + (share / max) * (drawn.grid.at(-1)! - drawn.grid[0]);
    expect(max).toBeGreaterThanOrEqual(Math.max(...report.variants.map((v) => v.interval![1])));
    expect(drawn.whiskers).toHaveLength(report.variants.length);
    for (const [index, variant] of report.variants.entries()) {
      const whisker = drawn.whiskers[index];
      expect(whisker.baseline).toBe(variant.baseline);
      expect(whisker.from).toBeCloseTo(x(variant.interval![0]), 1);
      expect(whisker.to).toBeCloseTo(x(variant.interval![1]), 1);
      expect(whisker.at).toBeCloseTo(x(variant.rate!), 1);
    }
    expect(drawn.baselineLine).toBeCloseTo(x(report.variants[0].rate!), 1);
    await shoot(page, 'experiment-light');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('warns of a sample ratio mismatch and of too little data, each in a banner', async () => {
    const { page, problems } = await open();
    await signIn(page);
    await page.evaluate(() => (location.hash = '#/experiments/quick-tour?days=30'));
    const banners = page.locator('ob-experiment-view .banner');
    await banners.first().waitFor();
    const quick = await experimentReport('quick-tour');
    expect(quick.sampleRatio.mismatch).toBe(true);
    expect(quick.enoughData).toBe(true);
    expect(quick.variants.map((v) => [v.exposed, v.converted])).toEqual([
      [10, 5],
      [10, 5],
    ]);
    expect(await banners.count()).toBe(1);
    expect(await banners.getAttribute('role')).toBe('alert');
    expect((await banners.textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      `Sample ratio mismatch: the split does not match the weights, so the figures cannot be trusted; look for a bug in assignment or exposure. (Chi-square test p ${pValue(quick.sampleRatio.pValue)}.)`,
    );
    // The banner says it; the verdict line does not say it again.
    expect(await page.locator('ob-experiment-view .verdict').count()).toBe(0);
    await shoot(page, 'experiment-mismatch-light');

    await page.evaluate(() => (location.hash = '#/experiments/invite-card?days=30'));
    await page.locator('ob-experiment-view h1', { hasText: 'invite-card' }).waitFor();
    const invite = await experimentReport('invite-card');
    expect(invite.enoughData).toBe(false);
    expect(invite.sampleRatio.mismatch).toBe(false);
    expect(await banners.count()).toBe(1);
    expect(await banners.getAttribute('role')).toBe('status');
    expect((await banners.textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      'Not enough data yet: every variant needs at least 5 conversions and 5 non-conversions.',
    );
    expect(await serious(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("works by keyboard on the experiments, down to the participants' CSV download, with the key never in an address", async () => {
    const { page, problems, requests } = await open();
    await signIn(page);
    await page.locator('ob-flows-list tbody tr').first().waitFor();
    await tabTo(page, 'a:Experiments');
    await page.keyboard.press('Enter');
    await page.locator('ob-experiments-list tbody tr').first().waitFor();
    await expect.poll(() => focused(page)).toBe('h1:Experiments');
    await tabTo(page, 'a:quick-tour');
    await page.keyboard.press('Enter');
    await page.locator('ob-experiment-view table.variants-table tbody tr').first().waitFor();
    await expect.poll(() => focused(page)).toBe('h1:quick-tour');
    await tabTo(page, 'button:Download participants CSV');
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    expect(download.suggestedFilename()).toBe('quick-tour-participants.csv');
    const lines = readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('user_id,variant,exposed_at,converted_at');
    expect(lines).toHaveLength(1 + (await experimentReport('quick-tour')).exposed);
    expect(lines.slice(1).filter((line) => line.split(',')[3] !== '')).toHaveLength(10);
    await expect
      .poll(() => page.locator('ob-experiment-view [role="status"]').last().textContent())
      .toBe('The CSV was downloaded.');
    expect(requests.some((url) => url.includes(PRIVATE_KEY))).toBe(false);
    expect(problems).toEqual([]);
    await page.close();
  });
  it('looks a user up on the People page: their properties, groups and latest events, and every flow, those not shown first, each with its failed rule first, all drawn as text', async () => {
    const userId = 'people-ada';
    // What the page must draw as text, never as markup: in a property, an event's name and an event's property.
    const markup = '<img src=x onerror="window.__pwned = 1">';
    const upsert = await service.call('POST', '/v1/public/users', {
      body: {
        userId,
        properties: { plan: 'free', seats: 3, note: markup },
        events: [
          { event: 'report.exported' },
          { event: '<script>window.__pwned = 2</script>', properties: { html: markup } },
        ],
      },
    });
    expect(upsert.status).toBe(201);
    expect((await service.call('POST', '/v1/public/groups', { body: { groupId: 'acme', userId } })).status).toBe(201);

    const { page, problems, requests } = await open();
    await signIn(page);
    await page.locator('ob-flows-list tbody tr').first().waitFor();
    await page.locator('ob-dashboard nav a', { hasText: 'People' }).click();
    await expect.poll(() => page.url()).toMatch(/#\/people\?days=30$/);
    await expect.poll(() => focused(page)).toBe('h1:People');
    expect(await page.locator('ob-dashboard nav a[aria-current="page"]').textContent()).toBe('People');
    expect(await page.locator('ob-dashboard select#range').count()).toBe(0);
    await page.locator('ob-people-view input').fill(userId);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toMatch(/#\/people\/people-ada\?days=30$/);
    const flows = page.locator('ob-people-view details.flow');
    await flows.first().waitFor();
    await expect.poll(() => focused(page)).toBe(`h1:${userId}`);
    const answer = (await service.call('GET', `/v1/users/${userId}/explain`, { key: PRIVATE_KEY }))
      .body as ExplainResponse;
    expect(answer.exists).toBe(true);

    // The user as the rules read them.
    expect(await cellsOf(page.locator('ob-people-view table.props tr'))).toEqual(
      Object.entries(answer.user.properties).map(([name, v]) => [name, typeof v === 'string' ? v : JSON.stringify(v)]),
    );
    expect(await cellsOf(page.locator('ob-people-view table.props tr'))).toContainEqual(['note', markup]);
    expect((await page.locator('ob-people-view ul.groups li').allTextContents()).map((t) => t.trim())).toEqual([
      'acme',
    ]);
    const events = await cellsOf(page.locator('ob-people-view .events tbody tr'));
    expect(events.map((row) => row[0])).toEqual(answer.user.recentEvents.map((e) => e.event));
    expect(events.map((row) => row[0])).toEqual(['<script>window.__pwned = 2</script>', 'report.exported']);
    expect(events[0][1]).toBe(JSON.stringify({ html: markup }));
    // Nothing the user sent ran or became an element.
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('ob-people-view img, ob-people-view script').count()).toBe(0);

    // Every flow of the catalog: those not shown first, open, with what held them back on top.
    const order = [...answer.flows.filter((f) => !f.shown), ...answer.flows.filter((f) => f.shown)];
    expect(await flows.evaluateAll((all) => all.map((d) => d.getAttribute('data-flow')))).toEqual(
      order.map((f) => f.flowSlug),
    );
    const held = answer.flows.find((f) => f.flowSlug === 'export-banner')!;
    expect(held.shown).toBe(false);
    expect(held.heldBy).toBe('targeting');
    const card = page.locator('ob-people-view details.flow[data-flow="export-banner"]');
    expect(await card.getAttribute('open')).not.toBeNull();
    expect(await card.locator('.badge').first().textContent()).toBe('Not shown');
    expect((await card.locator('.held-by').textContent())?.replace(/\s+/g, ' ').trim()).toBe('Held by Targeting');
    // Its sentence is its first rule's, the one that failed.
    expect(await card.locator('li.reason .detail').first().textContent()).toBe(
      held.reasons.find((r) => !r.passed)!.detail,
    );
    const rules = await card
      .locator('li.reason')
      .evaluateAll((lis) =>
        lis.map((li) => [li.getAttribute('data-rule'), li.classList.contains('failed') ? 'failed' : 'passed']),
      );
    expect(rules).toHaveLength(held.reasons.length);
    expect(rules[0]).toEqual(['targeting', 'failed']);
    expect(rules.slice(1).every(([, outcome]) => outcome === 'passed')).toBe(true);
    // The targeting's clauses, each with its value: the cohort is what the user lacks.
    const clauses = await card.locator('li.reason[data-rule="targeting"] li.clause').allTextContents();
    expect(clauses.length).toBeGreaterThan(0);
    expect(clauses.join(' ')).toContain('user.properties.cohort');
    // A flow shown comes after, folded, with its state.
    const shown = order.find((f) => f.shown)!;
    const shownCard = page.locator(`ob-people-view details.flow[data-flow="${shown.flowSlug}"]`);
    expect(await shownCard.getAttribute('open')).toBeNull();
    expect(await shownCard.locator('.badge').allTextContents()).toEqual(['Shown', 'not started']);
    expect(await page.locator('ob-people-view .card-head .hint').last().textContent()).toContain(
      `${answer.flows.filter((f) => f.shown).length} of ${answer.flows.length} shown`,
    );
    expect(await serious(page)).toEqual([]);
    await shoot(page, 'people-light');

    // A group of the user's explains the read the page makes with it, and the way back reads without.
    await page.locator('ob-people-view ul.groups a', { hasText: 'acme' }).click();
    await expect.poll(() => page.url()).toMatch(/#\/people\/people-ada\?days=30&group=acme$/);
    await expect
      .poll(() => page.locator('ob-people-view .card-head .hint').last().textContent())
      .toContain('in a read with group acme');
    expect(requests.some((url) => url.endsWith(`/v1/users/${userId}/explain?groupId=acme`))).toBe(true);
    expect(await page.locator('ob-people-view ul.groups a').getAttribute('aria-current')).toBe('true');
    await page.locator('ob-people-view a', { hasText: 'Explain without a group' }).click();
    await expect.poll(() => page.url()).toMatch(/#\/people\/people-ada\?days=30$/);
    await expect
      .poll(() => page.locator('ob-people-view .card-head .hint').last().textContent())
      .not.toContain('group');
    expect(requests.some((url) => url.includes(PRIVATE_KEY))).toBe(false);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('says plainly that a user is unknown, from a deep link to the People page', async () => {
    const { page, problems } = await open();
    await page.evaluate(() => (location.hash = '#/people/never-seen-anywhere'));
    await signIn(page);
    const banner = page.locator('ob-people-view .unknown');
    await banner.waitFor();
    expect(await banner.getAttribute('role')).toBe('status');
    expect((await banner.textContent())?.replace(/\s+/g, ' ').trim()).toContain(
      'Unknown user: the service has stored nothing for “never-seen-anywhere”.',
    );
    expect(await page.locator('ob-people-view h1').textContent()).toBe('never-seen-anywhere');
    expect(await page.locator('ob-people-view input').inputValue()).toBe('never-seen-anywhere');
    expect(await page.locator('ob-people-view .badge', { hasText: 'known user' }).count()).toBe(0);
    expect(await page.locator('ob-people-view table.props').count()).toBe(0);
    expect(await page.locator('ob-people-view ul.groups').count()).toBe(0);
    expect(await page.locator('ob-people-view .events').count()).toBe(0);
    const answer = (await service.call('GET', '/v1/users/never-seen-anywhere/explain', { key: PRIVATE_KEY }))
      .body as ExplainResponse;
    expect(answer.exists).toBe(false);
    expect(await page.locator('ob-people-view details.flow').count()).toBe(answer.flows.length);
    expect(await serious(page)).toEqual([]);
    await shoot(page, 'people-unknown-light');

    // An id the service refuses (longer than any id it stores): its problem is said, and nothing is left loading.
    const tooLong = 'x'.repeat(257);
    const refusal = await service.call('GET', `/v1/users/${tooLong}/explain`, { key: PRIVATE_KEY });
    expect(refusal.status).toBeGreaterThanOrEqual(400);
    await page.locator('ob-people-view input').fill(tooLong);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('ob-dashboard main > [role="alert"]').textContent()).toBe(refusal.body.detail);
    expect(await page.locator('ob-people-view [role="status"]').count()).toBe(0);
    expect(problems.filter((p) => !p.includes(String(refusal.status)))).toEqual([]);
    await page.close();
  });
});
