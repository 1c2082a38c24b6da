// In real Chromium, counted through the loopback proxy: what the script asks of the service and of its folder, and how often (issues 8, 10 and 23),
// and a flow that becomes eligible mid-session drawn from the answer that made it so; flows in the user's language, with the translator's round trip.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBrowserEnv, type BrowserEnv } from '../support/browser-env.js';
import type { SeenRequest } from '../support/loopback-proxy.js';
import { isStateRead, writesIn } from '../support/requests.js';
import { bannerFlowYaml, checklistYaml, PRO_BANNER_YAML, PUBLIC_KEY } from '../support/service.js';

/** A tour for users whose `tour` property is true. */
const TOUR_YAML = `
slug: guided
name: Guided
type: TOUR
targetingLogic: "has(user.properties.tour) && user.properties.tour == true"
data:
  steps:
    - id: here
      title: Look here
      selector: "#target"
`;

let env: BrowserEnv;

beforeAll(async () => {
  env = await startBrowserEnv(
    {
      'a-banner.yaml': bannerFlowYaml('welcome', 'Hello, new visitor', 'Drawn from the state answer'),
      'b-setup.yaml': checklistYaml('setup', '', 3),
      'c-tour.yaml': TOUR_YAML,
    },
    { proxy: true },
  );
  firstPages = new Set(env.browser.context.pages());
});

// A page a failed test left open would follow the next test's visitor through the tabs' sync and send requests of its
// own into that test's counts: every page a test opened is closed after it, passed or not.
let firstPages: Set<Page>;
afterEach(async () => {
  for (const page of env.browser.context.pages()) if (!firstPages.has(page)) await page.close();
});

afterAll(() => env?.close());

/** A page of the site's origin with the banner in its markup; `drawnAt` is when it first rendered a step. */
const bannerPage = (script = '') => `<!doctype html><html><body>
  <onboarding-banner flow="welcome"></onboarding-banner>
  <script>
    localStorage.clear();
    // Fired from the element's update, right after it rendered the step.
    document.addEventListener('onboarding-step-change', (event) => {
      if (event.detail.flow && !window.drawnAt) window.drawnAt = Date.now();
    });
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
  it('draws a new visitor’s banner after one state request (no preflight), and never lists the flows', async () => {
    const { page, since, errors } = await open(bannerPage());
    await expect.poll(() => drawnAt(page), { timeout: 10_000 }).toBeGreaterThan(0);
    const drawn = (await drawnAt(page))!;
    const before = env.proxy!.requests.slice(since).filter((r) => r.at < drawn);
    // One request and no preflight: one round trip.
    expect(before).toHaveLength(1);
    expect(isStateRead(before[0])).toBe(true);
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
    await page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].complete());
    await expect.poll(() => page.evaluate(() => localStorage.getItem('onboarding:outbox'))).toBeNull();

    // A new version of the checklist: the next read carries its content, and only its.
    const setupHash = env.service.catalog.get('setup')!.contentHash;
    await env.service.writeFlow('b-setup.yaml', checklistYaml('setup', '', 2));
    const readsBefore = env.proxy!.requests.length;
    await page.evaluate(() => window.Onboarding.refresh());
    await expect.poll(() => page.evaluate(() => window.Onboarding.getFlow('setup')?.steps.length)).toBe(2);
    const read = env.proxy!.requests.slice(readsBefore).find(isStateRead)!;
    // Each held version is named by its content's hash, as the answers gave it.
    expect(JSON.parse(read.body).knownVersions).toEqual({
      welcome: env.service.catalog.get('welcome')!.contentHash,
      setup: setupHash,
    });
    expect(setupHash).toMatch(/^[0-9a-f]{16}$/);
    const transitions = env
      .proxy!.requests.slice(since)
      .filter((r) => writesIn(r).some((write) => write.path === 'flowStates'));
    expect(transitions.length).toBeGreaterThan(0);
    // A click's answer carries no content: transitions alone ask for none; a batch with a users write sends the versions it holds.
    expect(transitions.every((r) => r.path.includes('content=none') || JSON.parse(r.body).knownVersions)).toBe(true);
    expect(env.proxy!.requests.slice(since).filter(isFlowsListing)).toEqual([]);
    expect(errors).toEqual([]);
    await env.service.writeFlow('b-setup.yaml', checklistYaml('setup', '', 3));
    await page.close();
  });

  it('takes new content under a version number it already holds, as after a restore of the service from an older backup', async () => {
    const { page, errors } = await open(bannerPage());
    await expect
      .poll(() => page.evaluate(() => window.Onboarding.getFlow('welcome')?.steps[0]?.title), { timeout: 10_000 })
      .toBe('Hello, new visitor');
    const version = await page.evaluate(() => window.Onboarding.getFlow('welcome')!.version);
    // What a restore does to the flows: the versions made since the backup are gone, so the next change gets this
    // page's version number again, with other content.
    await env.service.db.query("DELETE FROM flows WHERE slug = 'welcome' AND version >= $1", [version]);
    try {
      await env.service.writeFlow(
        'a-banner.yaml',
        bannerFlowYaml('welcome', 'Hello again, after the restore', 'Drawn from the state answer'),
      );
      expect(
        await env.service.db.query("SELECT max(version)::int AS version FROM flows WHERE slug = 'welcome'"),
      ).toEqual([{ version }]);
      await page.evaluate(() => window.Onboarding.refresh());
      await expect
        .poll(() => page.evaluate(() => window.Onboarding.getFlow('welcome')?.steps[0]?.title))
        .toBe('Hello again, after the restore');
      await expect
        .poll(() => page.locator('onboarding-banner [part="title"]').textContent())
        .toBe('Hello again, after the restore');
      expect(errors).toEqual([]);
    } finally {
      await env.service.writeFlow(
        'a-banner.yaml',
        bannerFlowYaml('welcome', 'Hello, new visitor', 'Drawn from the state answer'),
      );
    }
  });

  it('paints a returning visitor from the cache before any answer', async () => {
    const { page, errors } = await open(bannerPage());
    await expect.poll(() => drawnAt(page), { timeout: 10_000 }).toBeGreaterThan(0);
    await expect
      .poll(() => page.evaluate(() => localStorage.getItem('onboarding:content')))
      .toContain('Hello, new visitor');
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

/** A page with `count` banners of the flows `many-0`…, and the script; `drawnAt` once every banner rendered a step. */
const manyPage = (count: number) => `<!doctype html><html><body>
  ${Array.from({ length: count }, (_, i) => `<onboarding-banner flow="many-${i}"></onboarding-banner>`).join('')}
  <script>
    localStorage.clear();
    const drawn = new Set();
    document.addEventListener('onboarding-step-change', (event) => {
      if (event.detail.flow) drawn.add(event.detail.flow.slug);
      if (drawn.size === ${count} && !window.drawnAt) window.drawnAt = Date.now();
    });
  </script>
  <script src="/onboarding.js" data-public-key="${PUBLIC_KEY}" data-api-url="${env.apiUrl}"></script>
</body></html>`;

describe('requests on a customer’s page (issue 10)', () => {
  it('sends the first showings of many flows in one request, each write under its own key', async () => {
    const count = 8;
    for (let i = 0; i < count; i++)
      await env.service.writeFlow(`many-${i}.yaml`, bannerFlowYaml(`many-${i}`, `Banner ${i}`, 'One of many'));
    try {
      const { page, since, errors } = await open(manyPage(count));
      await expect.poll(() => drawnAt(page), { timeout: 10_000 }).toBeGreaterThan(0);
      const guest = await page.evaluate(() => window.Onboarding.userId);
      // Each write of the batch commits on its own: on a loaded machine the last can land seconds after the first.
      await expect
        .poll(() => env.service.db.query('SELECT count(*)::int AS n FROM flow_states WHERE user_id = $1', [guest]), {
          timeout: 10_000,
        })
        .toEqual([{ n: count }]);
      await expect.poll(() => page.evaluate(() => localStorage.getItem('onboarding:outbox'))).toBeNull();
      const carrying = env.proxy!.requests.slice(since).filter((r) => writesIn(r).length > 0);
      expect(carrying).toHaveLength(1);
      const writes = writesIn(carrying[0]);
      expect(
        writes.filter((write) => write.body.actionType === 'STARTED_FLOW' || write.body.actionType === 'STARTED_STEP')
          .length,
      ).toBeGreaterThanOrEqual(count);
      expect(new Set(writes.map((write) => write.key)).size).toBe(writes.length);
      // The answer to these writes asked for no content.
      expect(carrying[0].path).toContain('content=none');
      expect(env.proxy!.requests.slice(since).filter((r) => r.method === 'OPTIONS')).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      for (let i = 0; i < count; i++)
        await env.service.writeFlow(
          `many-${i}.yaml`,
          bannerFlowYaml(`many-${i}`).replace('status: ACTIVE', 'status: DRAFT'),
        );
    }
  });

  it('draws a new user identified right after the tag after one request, with no read before it', async () => {
    const { page, since, errors } = await open(
      bannerPage(`<script>Onboarding.identify('identified-at-once', { plan: 'pro' });</script>`),
    );
    await expect.poll(() => drawnAt(page), { timeout: 10_000 }).toBeGreaterThan(0);
    const drawn = (await drawnAt(page))!;
    const before = env.proxy!.requests.slice(since).filter((r) => r.at < drawn);
    expect(before).toHaveLength(1);
    expect(writesIn(before[0]).map((write) => [write.path, write.body.userId])).toEqual([
      ['users', 'identified-at-once'],
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('makes no preflight through a whole journey: read, identify, clicks, track, group, refresh', async () => {
    const { page, since, errors } = await open(bannerPage());
    await expect.poll(() => drawnAt(page), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.evaluate(async () => {
      await window.Onboarding.identify('no-preflight-user', { plan: 'pro' });
      await window.Onboarding.getFlow('setup')!.steps[0].complete({ answer: 1 });
      await window.Onboarding.track('clicked');
      await window.Onboarding.group('no-preflight-team', { tier: 'gold' });
      await window.Onboarding.refresh();
    });
    await expect.poll(() => page.evaluate(() => localStorage.getItem('onboarding:outbox'))).toBeNull();
    const seen = env.proxy!.requests.slice(since);
    expect(seen.length).toBeGreaterThan(3);
    expect(seen.filter((r) => r.method === 'OPTIONS')).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});

/** A FORM every visitor gets while the chunk tests run; a survey and an announcement for users whose properties ask. */
const CHUNK_FLOWS: Record<string, string> = {
  'd-signup.yaml': `
slug: signup
name: Sign up
type: FORM
data:
  steps:
    - id: about
      title: About you
      fields:
        - { id: name, type: text, label: Your name, required: true }
`,
  'e-pulse.yaml': `
slug: pulse
name: Pulse
type: SURVEY
targetingLogic: "has(user.properties.survey) && user.properties.survey == true"
data:
  props: { priority: 5 }
  steps:
    - id: score
      title: How likely are you to recommend us?
`,
  'f-news.yaml': `
slug: news
name: News
type: ANNOUNCEMENT
targetingLogic: "has(user.properties.news) && user.properties.news == true"
data:
  steps:
    - id: note
      title: Something new
`,
};

/**
 * The chunks a page asked for, as paths, with when each request left (epoch ms, the proxy's clock). The banner's and
 * the announcement's, which these pages draw and which were in the script until issue 35, are left out.
 */
function chunkRequests(page: Page): Array<{ url: string; path: string; at: number }> {
  const seen: Array<{ url: string; path: string; at: number }> = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (/\/onboarding-(?!announcement|banner)[a-z]+\.js$/.test(path))
      seen.push({ url: request.url(), path, at: Date.now() });
  });
  return seen;
}
const paths = (seen: Array<{ path: string }>) => seen.map((request) => request.path);

/** A page with `body`, the script (from `src`), and the error codes the script reported in `window.codes`. */
const chunkPage = (body: string, { src = '/onboarding.js', tag = '', after = '' } = {}) => `<!doctype html><html><body>
  <script>
    localStorage.clear();
    window.codes = [];
    document.addEventListener('onboarding-step-change', (event) => {
      if (event.detail.flow && !window.drawnAt) window.drawnAt = Date.now();
    });
  </script>
  ${body}
  <script src="${src}" data-public-key="${PUBLIC_KEY}" data-api-url="${env.apiUrl}" ${tag}></script>
  <script>Onboarding.on('error', ({ code }) => window.codes.push(code));</script>
  ${after}
</body></html>`;

async function openChunkPage(html: string) {
  const page = await env.browser.context.newPage();
  page.setDefaultTimeout(8000);
  const chunks = chunkRequests(page);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const since = env.proxy!.requests.length;
  const path = `/chunks-${++pages}.html`;
  env.site.page(path, html);
  await page.goto(`${env.site.url}${path}`);
  return { page, chunks, errors, since };
}

const codes = (page: Page) => page.evaluate(() => (window as unknown as { codes: string[] }).codes);
const formTitle = (page: Page) => page.locator('onboarding-form [part="title"]').textContent();

describe('the on-demand chunks: form, survey and tour (issues 10 and 23)', () => {
  beforeAll(async () => {
    for (const [file, yaml] of Object.entries(CHUNK_FLOWS)) await env.service.writeFlow(file, yaml);
  });
  afterAll(async () => {
    for (const file of Object.keys(CHUNK_FLOWS)) await env.service.removeFlow(file);
  });

  it('downloads none on a page that draws no form, survey or tour, even with such flows eligible', async () => {
    // Eligible: the form (nobody placed one), the survey and the announcement, with auto-mount off; and no tour.
    const { page, chunks, errors } = await openChunkPage(
      chunkPage('<onboarding-banner flow="welcome"></onboarding-banner>', { tag: 'data-auto-mount="false"' }),
    );
    await expect.poll(() => drawnAt(page), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.evaluate(() => window.Onboarding.identify('no-chunk-user', { tour: false, survey: true, news: true }));
    await expect.poll(() => page.evaluate(() => window.Onboarding.getFlow('pulse')?.isVisible)).toBe(true);
    expect(await page.evaluate(() => Boolean(window.Onboarding.getFlow('signup')))).toBe(true);
    await page.waitForTimeout(300);
    expect(chunks).toEqual([]);
    expect(
      await page.evaluate(() =>
        ['onboarding-form', 'onboarding-survey', 'onboarding-tour'].map((tag) => Boolean(customElements.get(tag))),
      ),
    ).toEqual([false, false, false]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('starts the chunk of a form in the markup at once, in parallel with the first state read', async () => {
    // Before the script tag and after it: either way the chunk is asked for while the read is still unanswered.
    for (const [where, html] of [
      ['before', chunkPage('<onboarding-form flow="signup"></onboarding-form>')],
      ['after', chunkPage('', { after: '<onboarding-form flow="signup"></onboarding-form>' })],
    ] as const) {
      const held = env.proxy!.hold(isStateRead);
      const { page, chunks, since, errors } = await openChunkPage(html);
      await held.arrived;
      await expect.poll(() => paths(chunks), { message: where }).toEqual(['/onboarding-form.js']);
      await page.waitForFunction(() => Boolean(customElements.get('onboarding-form')));
      expect(await page.locator('onboarding-form [part="base"]').count()).toBe(0);
      held.release();
      await expect.poll(() => formTitle(page), { timeout: 10_000 }).toBe('About you');
      const drawn = (await drawnAt(page))!;
      // One round trip: one state read and the chunk, both sent before the read was answered.
      const before = env.proxy!.requests.slice(since).filter((r) => r.at < drawn);
      expect(before.map(isStateRead), where).toEqual([true]);
      expect(chunks[0].at - before[0].at, where).toBeLessThan(1000);
      expect(paths(chunks)).toEqual(['/onboarding-form.js']);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it('loads the form for elements a framework creates later, keeping the properties set before they were defined', async () => {
    const { page, chunks } = await openChunkPage(
      chunkPage('<onboarding-banner flow="welcome"></onboarding-banner><div id="app"></div>'),
    );
    await expect.poll(() => drawnAt(page), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(chunks).toEqual([]);
    await page.evaluate(() => {
      type Form = HTMLElement & { flow: string; strings: Record<string, string>; currentFlow: unknown };
      // One by its slug with translated strings, one given the Flow object itself, both before the element exists.
      const bySlug = document.createElement('onboarding-form') as Form;
      bySlug.flow = 'signup';
      bySlug.strings = { submit: 'Send it' };
      const byObject = document.createElement('onboarding-form') as Form;
      byObject.id = 'by-object';
      byObject.currentFlow = window.Onboarding.getFlow('signup');
      document.querySelector('#app')!.append(bySlug, byObject);
    });
    await expect
      .poll(() => page.locator('onboarding-form[flow="signup"] [part="title"]').textContent(), { timeout: 10_000 })
      .toBe('About you');
    expect(await page.locator('onboarding-form[flow="signup"] [part="primary-button"]').textContent()).toContain(
      'Send it',
    );
    await expect.poll(() => page.locator('#by-object [part="title"]').textContent()).toBe('About you');
    // It is the element's own property now: taking the Flow away again draws nothing.
    const cleared = await page.evaluate(async () => {
      const form = document.querySelector('#by-object') as HTMLElement & {
        currentFlow: unknown;
        updateComplete: Promise<boolean>;
      };
      form.currentFlow = undefined;
      await form.updateComplete;
      return form.shadowRoot!.querySelector('[part="base"]') === null;
    });
    expect(cleared).toBe(true);
    expect(paths(chunks)).toEqual(['/onboarding-form.js']);
    await page.close();
  });

  it('loads the form chunk when an <onboarding-flow> (its own chunk, from the markup) turns out to show a FORM, and draws it inside', async () => {
    const { page, chunks } = await openChunkPage(
      chunkPage('<onboarding-flow flow="signup"><p id="custom">Only for CUSTOM flows</p></onboarding-flow>'),
    );
    // Until its chunk is there, the page's content inside it is not drawn either.
    expect(await page.locator('#custom').isVisible()).toBe(false);
    await expect
      .poll(() => page.locator('onboarding-flow onboarding-form [part="title"]').textContent(), { timeout: 10_000 })
      .toBe('About you');
    expect(paths(chunks)).toEqual(['/onboarding-flow.js', '/onboarding-form.js']);
    // The slot is for CUSTOM flows: the page's own content stays hidden (while the chunk loads too: see the failing chunk below).
    expect(await page.locator('#custom').isVisible()).toBe(false);
    await page.close();
  });

  it('loads an auto-mounted survey once the state names it, keeping its place before a lower-priority announcement', async () => {
    // The user's one request (identified right after the tag) is held: nothing names the survey yet, so no chunk.
    const held = env.proxy!.hold((r) => writesIn(r).some((write) => write.path === 'users'));
    const { page, chunks, errors } = await openChunkPage(
      chunkPage('<onboarding-banner flow="welcome"></onboarding-banner>', {
        after: `<script>Onboarding.identify('survey-user', { survey: true, news: true });</script>`,
      }),
    );
    await held.arrived;
    await page.waitForTimeout(300);
    expect(chunks).toEqual([]);
    // Its answer names the survey: then, and only then, one more request, for the chunk.
    held.release();
    // The survey (priority 5) opens first although the announcement needs no chunk.
    await expect
      .poll(() => page.locator('onboarding-survey [part="title"]').textContent(), { timeout: 10_000 })
      .toBe('How likely are you to recommend us?');
    expect(await page.locator('onboarding-announcement [part="base"]').count()).toBe(0);
    expect(paths(chunks)).toEqual(['/onboarding-survey.js']);
    await page.locator('onboarding-survey [part="close-button"]').click();
    await expect.poll(() => page.locator('onboarding-announcement [part="title"]').textContent()).toBe('Something new');
    expect(paths(chunks)).toEqual(['/onboarding-survey.js']);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('reports a chunk that fails to load with its code, shows nothing for it, and holds nothing up', async () => {
    // The script from a folder where the survey's chunk is missing (404) and the form's is a file that defines nothing.
    env.site.route('/broken/onboarding.js', () => ({
      type: 'text/javascript',
      body: readFileSync(fileURLToPath(new URL('../../dist/onboarding.js', import.meta.url)), 'utf8'),
    }));
    env.site.route('/broken/onboarding-form.js', () => ({ type: 'text/javascript', body: '// not the form chunk' }));
    for (const chunk of ['flow', 'announcement']) {
      env.site.route(`/broken/onboarding-${chunk}.js`, () => ({
        type: 'text/javascript',
        body: readFileSync(fileURLToPath(new URL(`../../dist/onboarding-${chunk}.js`, import.meta.url)), 'utf8'),
      }));
    }
    const { page, chunks, errors } = await openChunkPage(
      chunkPage(
        '<onboarding-form flow="signup"></onboarding-form><onboarding-flow flow="signup"><p>Custom</p></onboarding-flow>',
        {
          src: '/broken/onboarding.js',
          after: `<script>Onboarding.identify('broken-user', { survey: true, news: true });</script>`,
        },
      ),
    );
    // The survey outranks the announcement, but its chunk never comes: the announcement opens at once all the same
    // (well before the 3 s a loading chunk may keep the slot).
    await expect
      .poll(() => codes(page), { timeout: 10_000 })
      .toEqual(expect.arrayContaining(['form-failed', 'survey-failed']));
    const failedAt = Date.now();
    await expect.poll(() => page.locator('onboarding-announcement [part="title"]').textContent()).toBe('Something new');
    expect(Date.now() - failedAt).toBeLessThan(1500);
    expect((await codes(page)).filter((code) => code.endsWith('-failed')).sort()).toEqual([
      'form-failed',
      'survey-failed',
    ]);
    expect(paths(chunks).sort()).toEqual([
      '/broken/onboarding-flow.js',
      '/broken/onboarding-form.js',
      '/broken/onboarding-survey.js',
    ]);
    // Nothing drawn for the form, in its element or in <onboarding-flow>, and no survey mounted.
    expect(await page.evaluate(() => document.querySelector('onboarding-form')!.shadowRoot)).toBeNull();
    expect(await page.locator('onboarding-flow p').isVisible()).toBe(false);
    expect(await page.locator('onboarding-survey').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('loads once, from beside the script, when a tour becomes open for the user, and shows the tour', async () => {
    const page = await env.browser.context.newPage();
    const chunks = chunkRequests(page);
    env.site.page('/tour.html', bannerPage('<button id="target">Target</button>'));
    await page.goto(`${env.site.url}/tour.html`);
    await page.evaluate(() => window.Onboarding.identify('tour-user', { tour: true }));
    await expect
      .poll(() => page.locator('onboarding-tour [part="title"]').textContent(), { timeout: 10_000 })
      .toBe('Look here');
    expect(chunks.map((request) => request.url)).toEqual([`${env.site.url}/onboarding-tour.js`]);
    await page.close();
  });

  it('loads when the page places a tour element, eligible flow or not', async () => {
    const page = await env.browser.context.newPage();
    const chunks = chunkRequests(page);
    env.site.page('/placed.html', bannerPage());
    await page.goto(`${env.site.url}/placed.html`);
    await expect.poll(() => drawnAt(page), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(chunks).toEqual([]);
    await page.evaluate(() =>
      document.body.append(
        Object.assign(document.createElement('div'), {
          innerHTML: '<onboarding-tour flow="guided"></onboarding-tour>',
        }),
      ),
    );
    await expect
      .poll(() => page.evaluate(() => Boolean(customElements.get('onboarding-tour'))), { timeout: 10_000 })
      .toBe(true);
    expect(paths(chunks)).toEqual(['/onboarding-tour.js']);
    await page.close();
  });
});

describe('a flow that becomes eligible mid-session', () => {
  it('draws a banner once identify adds the property its targeting needs, with no reload and no failed request', async () => {
    await env.service.writeFlow('g-pro-banner.yaml', PRO_BANNER_YAML);
    try {
      const page = await env.browser.context.newPage();
      const failed: string[] = [];
      const sdkHeaders: string[] = [];
      page.on('pageerror', (error) => failed.push(error.message));
      page.on('requestfailed', (request) =>
        failed.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`),
      );
      page.on('response', (response) => {
        if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
      });
      page.on('request', (request) => {
        // Our script asks for the default (targeted-out flows left out): no SDK header, no targetedOut.
        if (
          request.url().startsWith(env.apiUrl) &&
          (request.url().includes('targetedOut') ||
            Object.keys(request.headers()).some((name) => name.startsWith('x-frigade-')))
        ) {
          sdkHeaders.push(request.url());
        }
      });
      const path = `/requests-${++pages}.html`;
      env.site.page(
        path,
        `<!doctype html><html><body>
        <onboarding-banner flow="pro-banner"></onboarding-banner>
        <script>localStorage.clear(); window.codes = [];</script>
        <script src="/onboarding.js" data-public-key="${PUBLIC_KEY}" data-api-url="${env.apiUrl}"></script>
        <script>Onboarding.on('error', ({ code }) => window.codes.push(code));</script>
      </body></html>`,
      );
      await page.goto(`${env.site.url}${path}`);
      await page.evaluate(() => window.Onboarding.identify('mid-session-user', { plan: 'free' }));
      expect(await page.evaluate(() => window.Onboarding.getFlow('pro-banner'))).toBeUndefined();
      // Gone after a reload or a navigation: still there at the end means the same document drew the banner.
      await page.evaluate(() => Object.assign(window, { sameDocument: true }));
      const since = env.proxy!.requests.length;
      expect(await page.locator('onboarding-banner [part="title"]').count()).toBe(0);

      await page.evaluate(() => window.Onboarding.identify('mid-session-user', { plan: 'pro' }));
      await expect
        .poll(() => page.locator('onboarding-banner [part="title"]').textContent(), { timeout: 10_000 })
        .toBe('Your pro tools are ready');
      expect(await page.locator('onboarding-banner [part="subtitle"]').textContent()).toBe(
        "Drawn from the upsert's answer",
      );
      expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
      // The users write's answer brought the flow with its content: no listing of the flows was needed.
      expect(env.proxy!.requests.slice(since).filter(isFlowsListing)).toEqual([]);
      // The banner records its first showing; every write is answered before the page is judged.
      await expect.poll(() => page.evaluate(() => localStorage.getItem('onboarding:outbox'))).toBeNull();
      expect(await page.evaluate(() => (window as unknown as { codes: string[] }).codes)).toEqual([]);
      expect(failed).toEqual([]);
      expect(sdkHeaders).toEqual([]);
      await page.close();
    } finally {
      await env.service.removeFlow('g-pro-banner.yaml');
    }
  });
});

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const TRANSLATED_BANNER_YAML = `
slug: hello-banner
name: Hello banner
type: BANNER
data:
  props:
    dismissible: true
  steps:
    - id: hello
      title: Hello, \${firstName|friend}
      subtitle: Only in English
      primaryButton: { title: Start }
translations:
  fr:
    steps:
      hello:
        title: Bonjour, \${firstName|l'ami}
        primaryButton: { title: Commencer }
  fr-CA:
    steps:
      hello:
        primaryButton: { title: Démarrer }
  ar:
    steps:
      hello:
        title: مرحبا \${firstName|صديق}
`;

describe('flows in the user\u2019s language', () => {
  /**
   * Opens a page drawing the translated banner with `tag` on the script tag (null: no attributes, `after` calls init),
   * after `before` ran on the page.
   */
  async function localePage(
    tag: string | null,
    after: string,
    before?: (page: Page) => Promise<void>,
    flow = 'hello-banner',
  ) {
    const page = await env.browser.context.newPage();
    await before?.(page);
    const failed: string[] = [];
    page.on('pageerror', (error) => failed.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    const path = `/requests-${++pages}.html`;
    env.site.page(
      path,
      `<!doctype html><html lang="en"><body>
      <onboarding-banner flow="${flow}"></onboarding-banner>
      <script>localStorage.clear(); window.codes = [];</script>
      <script src="/onboarding.js" ${tag === null ? '' : `data-public-key="${PUBLIC_KEY}" data-api-url="${env.apiUrl}" ${tag}`}></script>
      <script>Onboarding.on('error', ({ code }) => window.codes.push(code)); ${after}</script>
    </body></html>`,
    );
    const since = env.proxy!.requests.length;
    await page.goto(`${env.site.url}${path}`);
    const text = (part: string) => page.locator(`onboarding-banner [part="${part}"]`).first().textContent();
    /** The locale each request to the service asked for. */
    const locales = () =>
      env.proxy!.requests.slice(since).map((request) => new URL(request.path, env.apiUrl).searchParams.get('locale'));
    const codes = () => page.evaluate(() => (window as unknown as { codes: string[] }).codes);
    return { page, text, locales, codes, failed };
  }

  it('takes the locale from data-locale (init), else the user property, else the browser\u2019s language', async () => {
    await env.service.writeFlow('h-hello-banner.yaml', TRANSLATED_BANNER_YAML);
    try {
      // init's locale, from the script tag: the first read is already in it.
      const tag = await localePage(
        'data-locale="fr-CA"',
        "Onboarding.identify('locale-init', { firstName: 'Ada', locale: 'de' });",
      );
      await expect.poll(() => tag.text('title'), { timeout: 10_000 }).toBe('Bonjour, Ada');
      expect(await tag.text('primary-button')).toContain('Démarrer');
      expect(await tag.page.evaluate(() => window.Onboarding.locale)).toBe('fr-CA');
      expect(tag.locales().length).toBeGreaterThan(0);
      expect(new Set(tag.locales())).toEqual(new Set(['fr-CA']));
      expect(await tag.codes()).toEqual([]);
      expect(tag.failed).toEqual([]);
      await tag.page.close();

      // No init locale: the user property, over the browser's English.
      const property = await localePage(
        '',
        "Onboarding.identify('locale-property', { firstName: 'Ada', locale: 'fr' });",
      );
      await expect.poll(() => property.text('title'), { timeout: 10_000 }).toBe('Bonjour, Ada');
      expect(await property.text('primary-button')).toContain('Commencer');
      expect(await property.page.evaluate(() => window.Onboarding.locale)).toBe('fr');
      expect(property.locales()).toContain('fr');
      expect(property.failed).toEqual([]);
      await property.page.close();

      // Neither: the browser's language (fr-FR here), by its base language.
      const browser = await localePage(
        '',
        "Onboarding.identify('locale-browser', { firstName: 'Ada' });",
        async (page) => {
          const cdp = await page.context().newCDPSession(page);
          // What a browser set to French does (as Playwright's locale option): the Accept-Language, and Intl's locale.
          await cdp.send('Emulation.setUserAgentOverride', {
            userAgent: await page.evaluate(() => navigator.userAgent),
            acceptLanguage: 'fr-FR',
          });
          await cdp.send('Emulation.setLocaleOverride', { locale: 'fr-FR' });
        },
      );
      expect(await browser.page.evaluate(() => navigator.language)).toBe('fr-FR');
      await expect.poll(() => browser.text('title'), { timeout: 10_000 }).toBe('Bonjour, Ada');
      expect(await browser.page.evaluate(() => window.Onboarding.locale)).toBe('fr-FR');
      expect(new Set(browser.locales())).toEqual(new Set(['fr-FR']));
      expect(browser.failed).toEqual([]);
      await browser.page.close();

      // A code that is none: the source text, reported once however often the locale is resolved again.
      const bad = await localePage(
        null,
        `Onboarding.init({ publicKey: '${PUBLIC_KEY}', apiUrl: '${env.apiUrl}', locale: 'xx_!!' });
        Onboarding.identify('locale-bad', { firstName: 'Ada' }); Onboarding.identify('locale-bad', { plan: 'pro' });`,
      );
      await expect.poll(() => bad.text('title'), { timeout: 10_000 }).toBe('Hello, Ada');
      await expect.poll(() => bad.codes()).toEqual(['bad-value']);
      expect(await bad.page.evaluate(() => window.Onboarding.locale)).toBeUndefined();
      expect(bad.failed).toEqual([]);
      await bad.page.close();
    } finally {
      await env.service.removeFlow('h-hello-banner.yaml');
    }
  });

  it("shows a translator's French after the round trip: export, translate, import, check, then the page", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'onboarding-round-trip-'));
    const source = `# The offer every new team sees.
slug: round-trip
name: Round trip
type: BANNER
data:
  steps:
    - id: offer # the only step
      title: Hello, \${firstName|friend}
      subtitle: Try <b>reports</b> today
      primaryButton: { title: Start }
`;
    try {
      const flows = join(dir, 'flows');
      mkdirSync(flows);
      writeFileSync(join(flows, 'round-trip.yaml'), source);
      // What a team runs: the built CLI, as installed.
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, [fileURLToPath(new URL('../../dist/flows.mjs', import.meta.url)), ...args], {
          encoding: 'utf8',
        });
      const xlf = join(dir, 'fr.xlf');
      expect(cli('translations', 'export', '--locale', 'fr', flows, '--out', xlf).status).toBe(0);
      // The translator's tool fills each unit's target, in the order of the file.
      const targets = [
        'Bonjour, ${firstName|l’ami}',
        'Essayez les <b>rapports</b> aujourd’hui<img src=x onerror="window.pwned=1">',
        'Commencer',
      ];
      const exported = readFileSync(xlf, 'utf8');
      expect(exported.match(/<source>/g)).toHaveLength(targets.length);
      let unit = 0;
      writeFileSync(
        xlf,
        exported.replace(
          /<\/source>(\s*<target\/>|\s*<target>[^<]*<\/target>)?/g,
          () => `</source><target>${escapeXml(targets[unit++])}</target>`,
        ),
      );
      const imported = cli('translations', 'import', xlf, flows);
      expect(imported.status, imported.stdout + imported.stderr).toBe(0);
      const checked = cli('check', '--locales', 'fr', flows);
      expect([checked.status, checked.stdout.trim()]).toEqual([0, '1 flow file checked: no problems']);
      const written = readFileSync(join(flows, 'round-trip.yaml'), 'utf8');
      // The file kept its comments and order, with the translation after the source.
      expect(written.startsWith(source)).toBe(true);

      await env.service.writeFlow('i-round-trip.yaml', written);
      const page = await localePage(
        'data-locale="fr"',
        "Onboarding.identify('round-trip-user', { firstName: 'Ada' });",
        undefined,
        'round-trip',
      );
      await expect.poll(() => page.text('title'), { timeout: 10_000 }).toBe('Bonjour, Ada');
      // The translation's markup is drawn as the source's is: bold text, and no element that could run script.
      const subtitle = page.page.locator('onboarding-banner [part="subtitle"]').first();
      expect(await subtitle.locator('b').textContent()).toBe('rapports');
      expect(await subtitle.locator('img').count()).toBe(0);
      expect(await page.page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
      expect(await page.text('primary-button')).toContain('Commencer');
      expect(page.failed).toEqual([]);
      await page.page.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await env.service.removeFlow('i-round-trip.yaml').catch(() => undefined);
    }
  });

  it('reads in the locale set, field by field (exact, base language, source), redraws on setLocale, and turns Arabic right to left', async () => {
    await env.service.writeFlow('h-hello-banner.yaml', TRANSLATED_BANNER_YAML);
    try {
      const { page, text, failed, codes } = await localePage(
        '',
        "Onboarding.identify('locale-user', { firstName: 'Ada' });",
      );
      await expect.poll(() => text('title'), { timeout: 10_000 }).toBe('Hello, Ada');
      const since = env.proxy!.requests.length;

      await page.evaluate(() => window.Onboarding.setLocale('fr-CA'));
      // The title from fr (the base language), the button from fr-CA, the subtitle from the source.
      await expect.poll(() => text('title'), { timeout: 10_000 }).toBe('Bonjour, Ada');
      expect(await text('primary-button')).toContain('Démarrer');
      expect(await text('subtitle')).toBe('Only in English');
      // The built-in strings come in French from their own file beside the script.
      await expect
        .poll(() => page.locator('onboarding-banner [part="close-button"]').getAttribute('aria-label'), {
          timeout: 10_000,
        })
        .toBe('Fermer');
      expect(env.proxy!.requests.slice(since).some((request) => request.path.includes('locale=fr-CA'))).toBe(true);
      expect(await page.evaluate(() => window.Onboarding.locale)).toBe('fr-CA');

      await page.evaluate(() => window.Onboarding.setLocale('ar'));
      await expect.poll(() => text('title'), { timeout: 10_000 }).toBe('مرحبا Ada');
      expect(await page.locator('onboarding-banner').getAttribute('dir')).toBe('rtl');
      expect(await text('primary-button')).toContain('Start');

      await page.evaluate(() => window.Onboarding.setLocale('en'));
      await expect.poll(() => text('title'), { timeout: 10_000 }).toBe('Hello, Ada');
      expect(await page.locator('onboarding-banner').getAttribute('dir')).toBeNull();
      expect(await codes()).toEqual([]);
      expect(failed).toEqual([]);
      await page.close();
    } finally {
      await env.service.removeFlow('h-hello-banner.yaml');
    }
  });
});
