// <onboarding-resource-center> in Chromium against the service: the badge, reading the feed across browsers, replaying
// a tour, search in the page, the page's own launcher, the keyboard, phone width, and its chunk only where it is needed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  newUserId,
  openPage,
  recorded,
  scriptPage,
  serverState,
  startEnv,
  type Env,
} from '../support/browser-pages.js';
import { launchChromium } from '../support/chromium.js';

let env: Env;
const suite = (name: string) => `has(user.properties.suite) && user.properties.suite == '${name}'`;
const CHUNK = '/onboarding-resource-center.js';

const PAGE = `<style>body { margin: 0; font: 16px sans-serif; }</style>
  <h1>App</h1>
  <button id="help" style="position: absolute; top: 12px; right: 16px">?</button>`;

const blocks = [
  { id: 'find', type: 'search' },
  { id: 'setup', type: 'checklist', flow: 'rc-setup' },
  { id: 'tours', type: 'flows', title: 'Tours', flows: ['rc-tour'] },
  { id: 'news', type: 'announcements', title: "What's new", flows: ['rc-news-2', 'rc-news-1'] },
  { id: 'more', type: 'links', links: [{ title: 'Documentation', url: '/docs', target: '_blank' }] },
];

beforeAll(async () => {
  env = await startEnv([
    {
      slug: 'rc-centre',
      type: 'RESOURCE_CENTER',
      targetingLogic: suite('rc'),
      data: { title: 'Help centre', launcher: { label: 'Help' }, blocks, steps: [] },
    },
    {
      slug: 'rc-host-centre',
      type: 'RESOURCE_CENTER',
      targetingLogic: suite('rc-host'),
      data: { title: 'Help centre', launcher: { selector: '#help' }, blocks, steps: [] },
    },
    {
      slug: 'rc-setup',
      type: 'CHECKLIST',
      targetingLogic: `${suite('rc')} || ${suite('rc-host')}`,
      data: {
        title: 'Set up',
        steps: [
          { id: 'invite', title: 'Invite your team' },
          { id: 'connect', title: 'Connect a source' },
          { id: 'import', title: 'Import data' },
        ],
      },
    },
    {
      slug: 'rc-tour',
      type: 'TOUR',
      targetingLogic: `${suite('rc')} || ${suite('rc-host')}`,
      data: {
        title: 'Product tour',
        props: { overlay: false },
        steps: [{ id: 'one', title: 'Reports', subtitle: 'Export a zeppelin-sized spreadsheet.' }],
      },
    },
    ...[1, 2].map((n) => ({
      slug: `rc-news-${n}`,
      type: 'ANNOUNCEMENT' as const,
      targetingLogic: `${suite('rc')} || ${suite('rc-host')}`,
      data: { steps: [{ id: 'n', title: `News ${n}`, subtitle: `Something new, number ${n}.` }] },
    })),
    { slug: 'rc-other', type: 'CHECKLIST', targetingLogic: suite('none'), data: { steps: [{ id: 'a', title: 'A' }] } },
  ]);
});
afterAll(() => env?.close());

/** A page for a new user of `suite`, its requests recorded, once the state has loaded; the tour finished first. */
async function open(name: string, path: string) {
  const userId = newUserId(name);
  const { page, errors } = await openPage(env, path, PAGE, { userId });
  const requests: string[] = [];
  page.on('request', (request) => requests.push(new URL(request.url()).pathname));
  await page.evaluate(
    async ([id, s]) => {
      await window.Onboarding.identify(id, { suite: s });
      await window.Onboarding.getFlow('rc-tour')?.complete();
    },
    [userId, name] as const,
  );
  return { page, errors, requests, userId };
}

const badge = (page: Page) => page.locator('onboarding-resource-center [part="badge"]');
const panel = (page: Page) => page.locator('onboarding-resource-center [role="dialog"]');
/** The focused element, through shadow roots: its part or id. */
const focused = (page: Page) =>
  page.evaluate(() => {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    return active?.getAttribute('part') ?? active?.id ?? active?.localName;
  });

describe('<onboarding-resource-center> in Chromium', () => {
  it('counts unread announcements and open tasks on its badge, without opening the announcements as modals', async () => {
    const { page, errors, requests } = await open('rc', '/rc-badge.html');
    await expect.poll(() => badge(page).textContent()).toBe('5');
    expect(await badge(page).getAttribute('aria-label')).toBe('5 unread');
    expect(requests).toContain(CHUNK);
    await page.waitForTimeout(300);
    expect(await page.locator('onboarding-announcement dialog[open]').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('lowers the badge once the feed is read, and another browser shows the same after a load', async () => {
    const { page, errors, userId } = await open('rc', '/rc-read.html');
    await expect.poll(() => badge(page).textContent()).toBe('5');
    await page.locator('onboarding-resource-center [part="launcher"]').click();
    // A dialog named by its title (the checklist inside has a heading of its own).
    await page.getByRole('dialog', { name: 'Help centre' }).waitFor();
    await expect.poll(() => badge(page).textContent()).toBe('3');
    await expect.poll(async () => (await serverState(env, userId, 'rc-news-1'))?.$state.started).toBe(true);
    await expect.poll(async () => (await serverState(env, userId, 'rc-news-2'))?.$state.started).toBe(true);
    expect(await recorded(env, userId, 'rc-centre')).toEqual(['STARTED_FLOW:']);
    // Another browser, with nothing stored: the service's state gives the same count.
    const other = await launchChromium();
    try {
      env.site.page('/rc-read-2.html', scriptPage(env.service.url, PAGE, { userId }));
      const second = await other.context.newPage();
      await second.goto(`${env.site.url}/rc-read-2.html`);
      await expect.poll(() => badge(second).textContent()).toBe('3');
    } finally {
      await other.close();
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  it('replays a finished tour from its list: the row says done, a click starts it over and closes the panel', async () => {
    const { page, errors, userId } = await open('rc', '/rc-replay.html');
    await page.evaluate(() => window.Onboarding.resourceCenter.open());
    const row = page.locator('onboarding-resource-center [part~="block-flows"] [part="item"]');
    await expect.poll(() => row.textContent()).toMatch(/Product tour\s*Done/);
    await row.click();
    await expect.poll(() => panel(page).count()).toBe(0);
    expect(await page.evaluate(() => window.Onboarding.resourceCenter.isOpen())).toBe(false);
    await page.locator('onboarding-tour').getByText('Reports').first().waitFor();
    await expect
      .poll(() => recorded(env, userId, 'rc-tour'))
      .toEqual(expect.arrayContaining(['NOT_STARTED_FLOW:one', 'STARTED_FLOW:one']));
    const events = await env.service.db.query<{ properties: unknown }>(
      "SELECT properties FROM user_events WHERE user_id = $1 AND event = 'onboarding:resource-center'",
      [userId],
    );
    expect(events.map((row) => row.properties)).toEqual([
      { flow: 'rc-centre', action: 'click', block: 'tours', item: 'rc-tour' },
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('finds a word only a step holds, in the page, with no request while typing; the pause records the search', async () => {
    const { page, errors, requests, userId } = await open('rc', '/rc-search.html');
    await page.evaluate(() => window.Onboarding.resourceCenter.open());
    await panel(page).waitFor();
    await page.waitForTimeout(500);
    const before = requests.length;
    await page.locator('onboarding-resource-center input').pressSequentially('zeppelin');
    const blocksShown = () =>
      page
        .locator('onboarding-resource-center [part~="block"]')
        .evaluateAll((all) => all.map((b) => b.getAttribute('part')));
    expect(await blocksShown()).toEqual(['block block-search', 'block block-flows']);
    expect(await page.locator('onboarding-resource-center [part~="block-flows"]').textContent()).toContain(
      'Product tour',
    );
    expect(requests.slice(before)).toEqual([]);
    await expect
      .poll(async () =>
        (
          await env.service.db.query<{ properties: unknown }>(
            "SELECT properties FROM user_events WHERE user_id = $1 AND event = 'onboarding:resource-center'",
            [userId],
          )
        ).map((row) => row.properties),
      )
      .toEqual([{ flow: 'rc-centre', action: 'search', block: 'find', query: 'zeppelin', results: 1 }]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("opens from the page's own launcher, which carries the count as data-onboarding-unread", async () => {
    const { page, errors } = await open('rc-host', '/rc-host.html');
    await expect.poll(() => page.locator('#help').getAttribute('data-onboarding-unread')).toBe('5');
    expect(await page.locator('onboarding-resource-center [part="launcher"]').count()).toBe(0);
    await page.locator('#help').click();
    await panel(page).waitFor();
    // Beside the page's launcher: below it, by the right edge.
    const help = (await page.locator('#help').boundingBox())!;
    const box = (await panel(page).boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(help.y + help.height);
    expect(await page.evaluate(() => window.Onboarding.resourceCenter.isOpen())).toBe(true);
    await expect.poll(() => page.locator('#help').getAttribute('data-onboarding-unread')).toBe('3');
    // Escape with focus still on the page's launcher closes it, and focus stays there.
    await page.locator('#help').focus();
    await page.keyboard.press('Escape');
    await expect.poll(() => panel(page).count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('help');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('works by keyboard alone: open, move, Escape, and focus back on the launcher', async () => {
    const { page, errors } = await open('rc', '/rc-keys.html');
    await badge(page).waitFor();
    await page.locator('onboarding-resource-center [part="launcher"]').focus();
    await page.keyboard.press('Enter');
    await panel(page).waitFor();
    // The page behind stays usable: the panel is not modal.
    expect(await panel(page).getAttribute('aria-modal')).toBeNull();
    await expect.poll(() => focused(page)).toBe('search');
    await page.keyboard.press('Tab');
    expect(await focused(page)).not.toBe('search');
    await page.keyboard.press('Escape');
    await expect.poll(() => panel(page).count()).toBe(0);
    expect(await focused(page)).toBe('launcher');
    const events: unknown[] = await page.evaluate(() => {
      const seen: unknown[] = [];
      window.Onboarding.on('resource-center', (event) => seen.push(event));
      window.Onboarding.resourceCenter.toggle();
      window.Onboarding.resourceCenter.toggle();
      return seen;
    });
    expect(events).toEqual([
      { open: true, unread: 3 },
      { open: false, unread: 3 },
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('is a full-width sheet along the bottom at phone width', async () => {
    const { page, errors } = await open('rc', '/rc-phone.html');
    await page.setViewportSize({ width: 375, height: 700 });
    await page.evaluate(() => window.Onboarding.resourceCenter.open());
    await panel(page).waitFor();
    const box = (await panel(page).boundingBox())!;
    expect(box.x).toBe(0);
    expect(box.width).toBe(375);
    expect(Math.round(box.y + box.height)).toBe(700);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('downloads no chunk for it on a page with no resource centre', async () => {
    const { page, errors, requests } = await open('none', '/rc-none.html');
    await page.waitForTimeout(500);
    expect(requests.some((path) => path.includes('resource-center'))).toBe(false);
    expect(await page.locator('onboarding-resource-center').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
