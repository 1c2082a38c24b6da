// The script's main journeys on the engine the project names (Chromium, Firefox or WebKit), one browser for the file, each action checked in the service.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { startSiteEnv, type SiteEnv } from '../support/browser-env.js';
import { ERROR_COLLECTOR, launchEngine, type Engine, type EnginePage } from '../support/engines.js';
import { carriesWrite } from '../support/requests.js';
import { PUBLIC_KEY } from '../support/service.js';
import {
  flowFile,
  newUserId,
  recorded,
  recordedData,
  scriptPage,
  serverState,
  surfaceHeights,
  type FlowFile,
} from '../support/browser-pages.js';

const ENGINE = inject('engine') ?? 'chromium';
const suite = (name: string) => `has(user.properties.suite) && user.properties.suite == '${name}'`;
/** expect.poll with room for a busy machine (its default gives up after one second). */
const poll = <T>(check: () => T | Promise<T>, timeout = 10_000) => expect.poll(check, { timeout, interval: 50 });

const FLOWS: FlowFile[] = [
  {
    slug: 'welcome',
    type: 'BANNER',
    targetingLogic: suite('core'),
    data: {
      steps: [
        {
          id: 'hello',
          title: 'Hello ${firstName}',
          subtitle: 'Something new',
          secondaryButton: { title: 'Not now', action: 'flow.skip' },
        },
      ],
    },
  },
  {
    slug: 'setup',
    type: 'CHECKLIST',
    targetingLogic: suite('checklist'),
    data: {
      steps: [
        { id: 'connect', title: 'Connect', primaryButton: { title: 'Connect', action: 'step.complete' } },
        { id: 'invite', title: 'Invite', primaryButton: { title: 'Invite', action: 'step.complete' } },
      ],
    },
  },
  {
    slug: 'profile',
    type: 'FORM',
    targetingLogic: suite('form'),
    data: {
      steps: [
        {
          id: 'about',
          title: 'About you',
          fields: [
            { id: 'name', type: 'text', label: 'Name', required: true, minLength: 2 },
            { id: 'email', type: 'email', label: 'Email', required: true },
          ],
        },
      ],
    },
  },
  {
    // A guest's announcement, on its own page only (the core journey starts as a guest too).
    slug: 'news',
    type: 'ANNOUNCEMENT',
    targetingLogic: 'user.isGuest',
    startWhen: { page: '/announce.html' },
    data: {
      steps: [
        {
          id: 'reports',
          title: 'Reports, rebuilt',
          subtitle: 'Faster charts and scheduled exports.',
          imageUri: '/media.svg',
          imageAlt: 'A chart',
          primaryButton: { title: 'Show me' },
        },
        { id: 'more', title: 'One more thing' },
      ],
    },
  },
  {
    slug: 'tour',
    type: 'TOUR',
    targetingLogic: suite('tour'),
    data: {
      steps: [
        { id: 'search', title: 'The search', subtitle: 'Find anything', selector: '#search' },
        { id: 'menu', title: 'The menu', selector: '#menu', props: { placement: 'right' } },
      ],
    },
  },
  {
    slug: 'nps',
    type: 'SURVEY',
    targetingLogic: suite('nps'),
    data: { steps: [{ id: 'score', title: 'How likely are you to recommend us?' }] },
  },
  {
    // A guest's checklist, placed only on the page whose markup shadows the document's properties.
    slug: 'clobbered',
    type: 'CHECKLIST',
    targetingLogic: 'user.isGuest',
    data: { steps: [{ id: 'first', title: 'First' }] },
  },
  {
    slug: 'offline',
    type: 'CHECKLIST',
    targetingLogic: suite('outbox'),
    data: {
      steps: [
        { id: 'one', title: 'One' },
        { id: 'two', title: 'Two' },
      ],
    },
  },
  {
    // The resource centre's journey: a centre with a feed of one announcement and a checklist of two open steps.
    slug: 'help',
    type: 'RESOURCE_CENTER',
    targetingLogic: suite('help'),
    data: {
      title: 'Help',
      steps: [],
      blocks: [
        { id: 'news', type: 'announcements', title: 'News', flows: ['help-news'] },
        { id: 'setup', type: 'checklist', title: 'Setup', flow: 'help-setup' },
      ],
    },
  },
  {
    slug: 'help-news',
    type: 'ANNOUNCEMENT',
    targetingLogic: suite('help'),
    data: { steps: [{ id: 'item', title: 'Exports, faster', subtitle: 'Ten times faster.' }] },
  },
  {
    slug: 'help-setup',
    type: 'CHECKLIST',
    targetingLogic: suite('help'),
    data: {
      steps: [
        { id: 'one', title: 'One' },
        { id: 'two', title: 'Two' },
      ],
    },
  },
];

const TOUR_PAGE = `
  <style>
    #search { position: absolute; left: 300px; top: 120px; width: 200px; height: 30px; }
    #menu { position: absolute; left: 20px; top: 360px; width: 100px; height: 40px; }
  </style>
  <input id="search" aria-label="Search">
  <button id="menu">Menu</button>`;

let env: SiteEnv;
let engine: Engine;
/** Another origin, as an attacker's would be: it records every request it gets. */
let elsewhere: { url: string; requests: string[]; server: Server };

/**
 * Markup a page may carry from its content (a comment, a profile) ahead of the script tag: named elements shadow the
 * document's properties, `currentScript` first, which made the script load its chunks from `src` and talk to
 * `data-api-url`. Lit's own reads of the document (createElement, createTreeWalker, importNode) are not shadowed here.
 */
const clobbering = (origin: string) => `
  <img name="currentScript" src="${origin}/x.png" alt="" data-api-url="${origin}" data-public-key="pk_evil" data-nonce="n">
  <img name="head" alt=""><img name="body" alt=""><img name="documentElement" alt=""><img name="querySelectorAll" alt="">
  <img name="addEventListener" alt=""><img name="removeEventListener" alt=""><img name="readyState" alt="">
  <img name="visibilityState" alt=""><img name="activeElement" alt=""><img name="defaultView" alt="">`;

beforeAll(async () => {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    response.writeHead(404, { 'Access-Control-Allow-Origin': '*' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  elsewhere = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
  [env, engine] = await Promise.all([
    startSiteEnv(Object.fromEntries(FLOWS.map(flowFile)), { proxy: true }),
    launchEngine(ENGINE),
  ]);
  env.site.page(
    '/media.svg',
    '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200"><rect width="400" height="200" fill="teal"/></svg>',
    { 'Content-Type': 'image/svg+xml' },
  );
  // Every page talks to the service through the proxy, so the outbox journey can take it away.
  const page = (path: string, body: string) =>
    env.site.page(path, scriptPage(env.apiUrl, body, { head: ERROR_COLLECTOR }));
  page('/core.html', '<onboarding-banner flow="welcome"></onboarding-banner>');
  page('/checklist.html', '<onboarding-checklist flow="setup"></onboarding-checklist>');
  page('/form.html', '<onboarding-form flow="profile"></onboarding-form>');
  page('/announce.html', '<button id="before">Before</button>');
  page('/tour.html', TOUR_PAGE);
  page('/nps.html', '<input id="typing" aria-label="Typing">');
  page('/outbox.html', '<onboarding-checklist flow="offline"></onboarding-checklist>');
  page('/help.html', '<button id="elsewhere">Elsewhere</button>');
  page(
    '/shadowed-global.html',
    '<div id="Onboarding"></div><onboarding-checklist flow="clobbered"></onboarding-checklist>',
  );
  // A folder with the built script and its chunks, but the tour's and the French strings' chunks each changed by one
  // byte (a space at the end: they would still run, define the tour, hand over the strings).
  const dist = new URL('../../dist/', import.meta.url);
  for (const name of readdirSync(dist).filter((file) => /^onboarding(-[\w-]+)?\.js$/.test(file))) {
    const body = readFileSync(new URL(name, dist), 'utf8');
    env.site.page(`/changed/${name}`, /^onboarding-(tour|strings-fr)\.js$/.test(name) ? `${body} ` : body, {
      'Content-Type': 'text/javascript',
    });
  }
  const tag = (
    src: string,
    extra = '',
  ) => `<script src="${src}" data-public-key="${PUBLIC_KEY}" data-api-url="${env.apiUrl}" ${extra}></script>
      <script>window.chunkErrors = []; Onboarding.on('error', (event) => chunkErrors.push(event.code + ': ' + event.error.message));</script>`;
  const tagged = (body: string, script: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test page</title></head><body><main>${body}</main>${script}</body></html>`;
  env.site.page(
    '/changed.html',
    tagged(
      `${TOUR_PAGE}<onboarding-checklist flow="clobbered"></onboarding-checklist>`,
      tag('/changed/onboarding.js', 'data-locale="fr"'),
    ),
  );
  // The script and its chunks from the service's own /script/<build>/ path, another origin, with the tag's integrity.
  const build = env.service.script!;
  env.site.page(
    '/from-service.html',
    tagged(
      '<onboarding-checklist flow="clobbered"></onboarding-checklist>',
      tag(
        `${env.service.url}/script/${build.build}/onboarding.js`,
        `integrity="${build.integrity}" crossorigin="anonymous"`,
      ),
    ),
  );
  // The script starts from its own tag's attributes, after the shadowing markup.
  env.site.page(
    '/clobbered.html',
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test page</title>${ERROR_COLLECTOR}</head><body>
      <main>${clobbering(elsewhere.url)}<onboarding-checklist flow="clobbered"></onboarding-checklist></main>
      <script src="/onboarding.js" data-public-key="${PUBLIC_KEY}" data-api-url="${env.apiUrl}"></script>
    </body></html>`,
  );
});

/** The pages a test opened; closed after it, passed or failed (WebKit's driver holds one session at a time). */
const opened = new Set<EnginePage>();
afterEach(async () => {
  await Promise.all([...opened].map((page) => page.close()));
  opened.clear();
});

afterAll(async () => {
  await engine?.close();
  await env?.close();
  await new Promise((resolve) => elsewhere?.server.close(resolve));
});

/** Opens one of the file's pages in a context of its own (a new visitor) and waits for the script's first state. */
async function visit(path: string): Promise<EnginePage> {
  const page = await engine.newPage();
  opened.add(page);
  await page.goto(`${env.site.url}${path}`);
  await page.waitForFunction(() => Boolean(window.Onboarding?.ready));
  await page.evaluate(() => window.Onboarding.ready);
  return page;
}

/** Identifies the visitor as a new user in one suite, as a login would, and returns the user's ID. */
async function identify(page: EnginePage, label: string, properties: Record<string, unknown> = {}): Promise<string> {
  const userId = newUserId(`${ENGINE}-${label}`);
  await page.evaluate(([id, props]) => window.Onboarding.identify(id, props), [
    userId,
    { suite: label, ...properties },
  ] as const);
  return userId;
}

/** Whether a box sits right by another (within 40 px of one of its edges). */
function beside(tip: { x: number; y: number; width: number; height: number }, box: typeof tip): boolean {
  const gaps = [
    tip.y - (box.y + box.height),
    box.y - (tip.y + tip.height),
    tip.x - (box.x + box.width),
    box.x - (tip.x + tip.width),
  ];
  return Math.min(...gaps.map(Math.abs)) < 40;
}

describe(`journeys in ${ENGINE}`, () => {
  it('identifies a guest, shows a banner with the user property in its title, and records its dismissal', async () => {
    const page = await visit('/core.html');
    const guest = await page.evaluate(() => window.Onboarding.userId);
    expect(guest).toMatch(/^guest_/);
    expect(await page.count('onboarding-banner >>> [part="base"]')).toBe(0);
    const userId = await identify(page, 'core', { firstName: 'Ada' });
    await poll(() => page.text('onboarding-banner >>> [part="title"]')).toBe('Hello Ada');
    const [user] = await env.service.db.query<{ properties: unknown }>('SELECT properties FROM users WHERE id = $1', [
      userId,
    ]);
    expect(user?.properties).toMatchObject({ firstName: 'Ada', suite: 'core' });
    await poll(() => recorded(env, userId, 'welcome')).toContain('STARTED_STEP:hello');
    await page.click('onboarding-banner >>> [part="secondary-button"]');
    await poll(() => page.count('onboarding-banner >>> [part="base"]')).toBe(0);
    await poll(async () => (await serverState(env, userId, 'welcome'))?.$state.skipped).toBe(true);
    expect(await recorded(env, userId, 'welcome')).toContain('SKIPPED_FLOW:hello');
    expect(await page.errors()).toEqual([]);
  });

  it('completes a checklist step by a click', async () => {
    const page = await visit('/checklist.html');
    const userId = await identify(page, 'checklist');
    await poll(() => page.text('onboarding-checklist >>> [part="progress-label"]')).toBe('0 of 2');
    await page.click('onboarding-checklist >>> [part="primary-button"]');
    await poll(() => page.text('onboarding-checklist >>> [part="progress-label"]')).toBe('1 of 2');
    await poll(() => recorded(env, userId, 'setup')).toContain('COMPLETED_STEP:connect');
    const state = await serverState(env, userId, 'setup');
    expect(state?.data.steps.map((step) => step.$state.completed)).toEqual([true, false]);
    expect(await page.errors()).toEqual([]);
  });

  it('takes a form typed at the keyboard, Tab between the fields and Enter to submit', async () => {
    const page = await visit('/form.html');
    const userId = await identify(page, 'form');
    await page.waitFor('onboarding-form >>> input[part="input"]');
    await page.focus('onboarding-form >>> input[part="input"]');
    await page.type('Ada');
    await page.press('Tab');
    await page.type('ada@example.com');
    await page.press('Enter');
    await poll(() => recordedData(env, userId, 'profile', 'COMPLETED_STEP')).toEqual({
      name: 'Ada',
      email: 'ada@example.com',
    });
    await poll(() => page.count('onboarding-form >>> [part="base"]')).toBe(0);
    await poll(async () => (await serverState(env, userId, 'profile'))?.$state.completed).toBe(true);
    expect(await page.errors()).toEqual([]);
  });

  it("opens a guest's announcement as tall as its content, closes it on Escape and records the skip", async () => {
    const page = await visit('/announce.html');
    const guest = await page.evaluate(() => window.Onboarding.userId);
    await page.waitFor('onboarding-announcement >>> dialog[open] img');
    await page.waitForFunction(
      () =>
        (document.querySelector('onboarding-announcement')!.shadowRoot!.querySelector('img') as HTMLImageElement)
          .complete,
    );
    expect(await page.text('onboarding-announcement >>> [part="counter"]')).toBe('Step 1 of 2');
    // As tall as its content: WebKit's dialog style, left alone, stretches it to the window.
    const heights = await page.evaluate(surfaceHeights, ['onboarding-announcement', 'dialog'] as const);
    expect(Math.abs(heights.surface - heights.content)).toBeLessThan(2);
    expect(heights.surface).toBeLessThan(heights.window - 200);
    // Focus is in the dialog, so Escape reaches it from the keyboard.
    await poll(() => page.evaluate(() => document.activeElement?.localName)).toBe('onboarding-announcement');
    await page.press('Escape');
    await poll(() => page.count('onboarding-announcement >>> dialog[open]')).toBe(0);
    await poll(() => recorded(env, guest, 'news')).toContain('SKIPPED_FLOW:reports');
    expect((await serverState(env, guest, 'news'))?.$state.skipped).toBe(true);
    expect(await page.errors()).toEqual([]);
  });

  it('opens the resource centre from its launcher, reads its feed, and closes on Escape with focus back on the launcher', async () => {
    const page = await visit('/help.html');
    const userId = await identify(page, 'help');
    const badge = 'onboarding-resource-center >>> [part="badge"]';
    // One unread announcement and two open steps; the announcement does not open by itself.
    await poll(() => page.text(badge)).toBe('3');
    expect(await page.count('onboarding-announcement >>> dialog[open]')).toBe(0);
    await page.click('onboarding-resource-center >>> [part="launcher"]');
    await page.waitFor('onboarding-resource-center >>> [part="panel"]');
    await poll(() => page.text('onboarding-resource-center >>> [part="title"]')).toBe('Help');
    await poll(() => page.evaluate(() => document.activeElement?.localName)).toBe('onboarding-resource-center');
    // Seen in the open panel: the announcement is read, here and on the service.
    await poll(() => page.text(badge)).toBe('2');
    await poll(async () => (await serverState(env, userId, 'help-news'))?.$state.started).toBe(true);
    expect(await recorded(env, userId, 'help')).toEqual(['STARTED_FLOW:']);
    await page.press('Escape');
    await poll(() => page.count('onboarding-resource-center >>> [part="panel"]')).toBe(0);
    await poll(() =>
      page.evaluate(() =>
        document.querySelector('onboarding-resource-center')?.shadowRoot?.activeElement?.getAttribute('part'),
      ),
    ).toBe('launcher');
    expect(await page.errors()).toEqual([]);
  });

  it('anchors a tour to two targets in turn and completes it', async () => {
    const page = await visit('/tour.html');
    const userId = await identify(page, 'tour');
    const tip = 'onboarding-tour >>> [part="base"]';
    await poll(() => page.text('onboarding-tour >>> [part="counter"]')).toBe('Step 1 of 2');
    await poll(async () => beside((await page.box(tip))!, (await page.box('#search'))!)).toBe(true);
    await poll(() => recorded(env, userId, 'tour')).toContain('STARTED_STEP:search');
    await page.click('onboarding-tour >>> [part="primary-button"]');
    await poll(() => page.text('onboarding-tour >>> [part="counter"]')).toBe('Step 2 of 2');
    await poll(async () => beside((await page.box(tip))!, (await page.box('#menu'))!)).toBe(true);
    await page.click('onboarding-tour >>> [part="primary-button"]');
    await poll(() => page.count(tip)).toBe(0);
    await poll(async () => (await serverState(env, userId, 'tour'))?.$state.completed).toBe(true);
    expect(await recorded(env, userId, 'tour')).toEqual(
      expect.arrayContaining(['COMPLETED_STEP:search', 'COMPLETED_STEP:menu']),
    );
    expect(await page.errors()).toEqual([]);
  });

  it('opens an NPS survey as tall as its content and records an answer given by keyboard', async () => {
    const page = await visit('/nps.html');
    const userId = await identify(page, 'nps');
    await page.waitFor('onboarding-survey >>> input[value="0"]');
    // As tall as its content: WebKit's popover style, left alone, stretches it to the window.
    const heights = await page.evaluate(surfaceHeights, ['onboarding-survey', '[part="base"]'] as const);
    expect(Math.abs(heights.surface - heights.content)).toBeLessThan(2);
    expect(heights.surface).toBeLessThan(heights.window - 200);
    await page.focus('onboarding-survey >>> input[value="0"]');
    for (let i = 0; i < 9; i++) await page.press('ArrowRight');
    expect(
      await page.evaluate(
        () =>
          document.querySelector('onboarding-survey')!.shadowRoot!.querySelector<HTMLInputElement>('input:checked')
            ?.value,
      ),
    ).toBe('9');
    await page.press('Tab');
    await page.press('Enter');
    await poll(() => recordedData(env, userId, 'nps', 'COMPLETED_STEP')).toEqual({ value: 9 });
    await poll(async () => (await serverState(env, userId, 'nps'))?.$state.completed).toBe(true);
    await poll(() => page.count('onboarding-survey >>> [part="base"]')).toBe(0);
    expect(await page.errors()).toEqual([]);
  });

  it("starts from its own tag when the page's markup shadows document.currentScript and the rest, and asks nothing of another origin", async () => {
    const page = await visit('/clobbered.html');
    const guest = await page.evaluate(() => window.Onboarding.userId);
    expect(guest).toMatch(/^guest_/);
    // The checklist's chunk came from beside the script, and its flow from the tag's service.
    await poll(() => page.text('onboarding-checklist >>> [part="progress-label"]')).toBe('0 of 1');
    const chunks = await page.evaluate(() =>
      [...document.scripts].map((script) => script.src).filter((src) => /onboarding-checklist/.test(src)),
    );
    expect(chunks).toEqual([`${env.site.url}/onboarding-checklist.js`]);
    const [user] = await env.service.db.query<{ id: string }>('SELECT id FROM users WHERE id = $1', [guest]);
    expect(user?.id).toBe(guest);
    // Only the page's own image asked the other origin for anything: no chunk, no API call.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(elsewhere.requests.filter((request) => request !== 'GET /x.png')).toEqual([]);
    expect(await page.errors()).toEqual([]);
  });

  it('takes over window.Onboarding when only an element named "Onboarding" is there', async () => {
    const page = await visit('/shadowed-global.html');
    expect(await page.evaluate(() => typeof window.Onboarding.init)).toBe('function');
    await poll(() => page.text('onboarding-checklist >>> [part="progress-label"]')).toBe('0 of 1');
    expect(await page.errors()).toEqual([]);
  });

  it('keeps a write made while the service is unreachable and lands it once when the service is back', async () => {
    const page = await visit('/outbox.html');
    const userId = await identify(page, 'outbox');
    await poll(() => page.text('onboarding-checklist >>> [part="progress-label"]')).toBe('0 of 2');
    const completions = async () =>
      (
        await env.service.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM flow_responses WHERE user_id = $1 AND action_type = 'COMPLETED_STEP'",
          [userId],
        )
      )[0].n;
    const queued = () =>
      page.evaluate(() =>
        (JSON.parse(localStorage.getItem('onboarding:outbox') ?? '[]') as Array<{ attempts: number }>).map(
          (entry) => entry.attempts,
        ),
      );

    env.proxy!.down();
    await page.evaluate(() => window.Onboarding.getFlow('offline')!.steps[0].complete());
    // The page shows the change at once; the write waits in the outbox after a failed attempt.
    await poll(() => page.text('onboarding-checklist >>> [part="progress-label"]')).toBe('1 of 2');
    await poll(async () => (await queued())[0] ?? 0).toBeGreaterThan(0);
    expect(await completions()).toBe(0);

    // Back, but the first answer is lost after the service applied the write: the retry must not apply it twice.
    env.proxy!.loseAnswer(carriesWrite('flowStates', '"COMPLETED_STEP"'));
    env.proxy!.up();
    await poll(queued, 20_000).toEqual([]);
    expect(await completions()).toBe(1);
    expect((await serverState(env, userId, 'offline'))?.data.steps.map((step) => step.$state.completed)).toEqual([
      true,
      false,
    ]);
  });

  it("runs no chunk whose bytes are not the build's: a tour and a strings chunk changed by one byte fail as unloaded ones, and say which", async () => {
    const page = await visit('/changed.html');
    const errors = () => page.evaluate(() => (window as unknown as { chunkErrors: string[] }).chunkErrors);
    const codes = async () => (await errors()).map((error) => error.split(':')[0]).sort();
    // The French strings did not run: the guest's checklist, from an unchanged chunk, stays in English.
    await poll(codes).toEqual(['strings-failed']);
    expect((await errors())[0]).toContain('onboarding-strings-fr.js');
    await poll(() => page.text('onboarding-checklist >>> [part="progress-label"]')).toBe('0 of 1');
    // The tour's chunk did not run either: no tour element was defined, and none is drawn.
    await identify(page, 'tour');
    await poll(codes).toEqual(['strings-failed', 'tour-failed']);
    expect((await errors()).find((error) => error.startsWith('tour-failed'))).toContain('/changed/onboarding-tour.js');
    expect(await page.evaluate(() => Boolean(customElements.get('onboarding-tour')))).toBe(false);
    expect(await page.count('onboarding-tour >>> [part="base"]')).toBe(0);
    expect(
      await page.evaluate(() =>
        [...document.scripts]
          .filter((script) => script.src.includes('/changed/onboarding-'))
          .every((script) => script.integrity.startsWith('sha384-')),
      ),
    ).toBe(true);
  });

  it("loads the script and its chunks from the service's /script/<build>/ path on another origin, each checked against its hash", async () => {
    const page = await visit('/from-service.html');
    await poll(() => page.text('onboarding-checklist >>> [part="progress-label"]')).toBe('0 of 1');
    const chunk = await page.evaluate(() =>
      [...document.scripts]
        .filter((script) => script.src.includes('onboarding-checklist'))
        .map((script) => [script.src, script.integrity.slice(0, 7), script.crossOrigin]),
    );
    expect(chunk).toEqual([
      [`${env.service.url}/script/${env.service.script!.build}/onboarding-checklist.js`, 'sha384-', 'anonymous'],
    ]);
    expect(await page.evaluate(() => (window as unknown as { chunkErrors: string[] }).chunkErrors)).toEqual([]);
  });
});
