// Frigade's own JavaScript SDK (@frigade/js) in real Chromium, on a page of another origin, against this service: only the apiUrl changes;
// the same service's collections drawn by @frigade/react's <Frigade.Collection> and by our script's <onboarding-collection>.
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComputedCollectionFlow, FlowState, FlowStatesResponse } from '../../src/api/wire.js';
import { bundleApp } from '../support/app-bundle.js';
import { startBrowserEnv, type BrowserEnv } from '../support/browser-env.js';
import { FRIGADE_FLOWS, FRIGADE_REACT_FLOWS } from '../support/frigade-flows.js';
import { PUBLIC_KEY } from '../support/service.js';

let env: BrowserEnv;
/** How far the service's clock is ahead of the real one: a collection's cool-off passes when it moves on. */
let clockAheadMs = 0;

beforeAll(async () => {
  env = await startBrowserEnv(
    { ...FRIGADE_FLOWS, ...FRIGADE_REACT_FLOWS },
    { service: { now: () => new Date(Date.now() + clockAheadMs) } },
  );
  // The SDK as a page would bundle it: one script that puts the Frigade class on window.
  const bundle = await build({
    stdin: {
      contents: "import { Frigade } from '@frigade/js'; window.Frigade = Frigade;",
      resolveDir: process.cwd(),
      loader: 'js',
    },
    bundle: true,
    format: 'iife',
    write: false,
    logLevel: 'silent',
  });
  env.site.page('/frigade.js', bundle.outputFiles[0].text, { 'Content-Type': 'text/javascript' });
  env.site.page(
    '/app.html',
    '<!doctype html><html><body><h1>An app that used Frigade</h1><script src="/frigade.js"></script></body></html>',
  );
});
afterAll(() => env?.close());

interface PageTools {
  page: Page;
  errors: string[];
  /** Every answer of the service that was not a success, and every failed call the SDK reported (it warns and carries on). */
  warnings: string[];
}

async function openApp(userId: string): Promise<PageTools> {
  const page = await env.browser.context.newPage();
  const errors: string[] = [];
  const warnings: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.text().includes('Frigade')) warnings.push(message.text());
  });
  page.on('response', (response) => {
    if (response.url().startsWith(env.service.url) && response.status() >= 400)
      warnings.push(`${response.status()} ${response.url()}`);
  });
  await page.goto(`${env.site.url}/app.html`);
  await page.evaluate(
    ([key, apiUrl, id]) => {
      const Frigade = (window as unknown as { Frigade: new (key: string, config: object) => unknown }).Frigade;
      (window as unknown as { frigade: unknown }).frigade = new Frigade(key, { apiUrl, userId: id });
    },
    [PUBLIC_KEY, env.service.url, userId],
  );
  return { page, errors, warnings };
}

async function storedFlow(userId: string, slug: string): Promise<FlowState | undefined> {
  const states = (
    await env.service.call('GET', `/v1/public/flowStates?userId=${encodeURIComponent(userId)}&content=none`)
  ).body as FlowStatesResponse;
  return states.eligibleFlows.find((flow) => flow.flowSlug === slug);
}

/** Each flow of the collection as the service shows it to the user now: `[flowId, visible]`. */
async function storedCollection(userId: string, collectionId: string): Promise<Array<[string, boolean]>> {
  const states = (
    await env.service.call('GET', `/v1/public/flowStates?userId=${encodeURIComponent(userId)}&content=none`)
  ).body as FlowStatesResponse;
  const rows: ComputedCollectionFlow[] = states.collections?.computedOrder ?? [];
  return rows.filter((row) => row.collectionId === collectionId).map((row) => [row.flowId, row.visible]);
}

/** Runs code against `window.frigade` in the page. */
type Sdk = {
  getFlows(): Promise<
    Array<{
      id: string;
      title?: string;
      isVisible: boolean;
      isCompleted: boolean;
      isSkipped: boolean;
      steps: Map<
        string,
        { id: string; title?: string; $state: { completed: boolean; skipped: boolean }; complete(): Promise<void> }
      >;
    }>
  >;
  getFlow(id: string): Promise<{
    isCompleted: boolean;
    isSkipped: boolean;
    steps: Map<
      string,
      { id: string; $state: { completed: boolean; skipped: boolean }; complete(data?: object): Promise<void> }
    >;
    complete(): Promise<void>;
    skip(): Promise<void>;
    restart(): Promise<void>;
  }>;
  identify(userId: string, properties?: object): Promise<void>;
  getCollection(id: string): Promise<{
    collectionType: string;
    allowedComponents: string[];
    flows: Array<{ flowId: string; visible: boolean; flow?: { id: string } }>;
  }>;
  reload(): Promise<void>;
  group(groupId: string, properties?: object): Promise<void>;
  track(event: string, properties?: object): Promise<void>;
};
declare global {
  interface Window {
    frigade: Sdk;
    /** The React page's app: mounts a component of @frigade/react, or adds the user's properties through its `useUser()`. */
    frigadeApp: {
      mount(component: string, props: object): void;
      addProperties(properties: object): Promise<void>;
      loaded(): Promise<void>;
    };
    /** Set by a test in the page; still there later, the page has not been reloaded since. */
    sameDocument?: boolean;
  }
}

describe('@frigade/js in Chromium, from another origin', () => {
  it('gets the eligible flows with their titles and step titles, and holds the other ACTIVE flows hidden', async () => {
    const { page, errors, warnings } = await openApp(`chromium-frigade-${Date.now()}`);
    const flows = await page.evaluate(async () =>
      (await window.frigade.getFlows()).map((flow) => ({
        id: flow.id,
        title: flow.title,
        visible: flow.isVisible,
        steps: [...flow.steps.values()].map((step) => step.title),
      })),
    );
    expect(
      flows
        .filter((flow) => flow.visible)
        .map((flow) => flow.id)
        .sort(),
    ).toEqual(['setup', 'welcome']);
    // Targeted out but ACTIVE: held, with content, so a property change can show it (the draft never comes).
    expect(flows.map((flow) => flow.id)).toHaveLength(9 + Object.keys(FRIGADE_REACT_FLOWS).length);
    expect(flows.map((flow) => flow.id)).not.toContain('unreleased');
    expect(flows.find((flow) => flow.id === 'pro-tips')).toMatchObject({ title: 'Tips for pro users', visible: false });
    expect(flows.find((flow) => flow.id === 'welcome')).toEqual({
      id: 'welcome',
      title: 'Welcome aboard',
      visible: true,
      steps: ['Hello there', 'See you around'],
    });
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    await page.close();
  });

  it('stores step.complete, flow.complete, flow.restart and flow.skip', async () => {
    const userId = `chromium-frigade-${Date.now()}-actions`;
    const { page, errors, warnings } = await openApp(userId);
    await page.evaluate(async () =>
      (await window.frigade.getFlow('setup')).steps.get('connect')!.complete({ source: 'csv' }),
    );
    expect((await storedFlow(userId, 'setup'))!.data.steps[0].$state.completed).toBe(true);
    await page.evaluate(async () => (await window.frigade.getFlow('setup')).complete());
    expect((await storedFlow(userId, 'setup'))!.$state.completed).toBe(true);
    await page.evaluate(async () => (await window.frigade.getFlow('setup')).restart());
    expect((await storedFlow(userId, 'setup'))!.$state).toMatchObject({ completed: false, started: false });
    await page.evaluate(async () => (await window.frigade.getFlow('setup')).skip());
    expect((await storedFlow(userId, 'setup'))!.$state.skipped).toBe(true);
    // The page's context reached the service: each response knows the page it was made on.
    const urls = await env.service.db.query<{ url: string }>(
      'SELECT DISTINCT url FROM flow_responses WHERE user_id = $1',
      [userId],
    );
    expect(urls).toEqual([{ url: `${env.site.url}/app.html` }]);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    await page.close();
  });

  it('makes flows eligible through identify, group and track', async () => {
    const userId = `chromium-frigade-${Date.now()}-targeting`;
    const { page, errors, warnings } = await openApp(userId);
    // The SDK answers a POST identical to one it sent in the last 250 ms from its own cache, so the
    // journey waits that long between calls, as any real page would.
    const ids = async () => {
      await page.waitForTimeout(300);
      return page.evaluate(async () =>
        (await window.frigade.getFlows()).filter((flow) => flow.isVisible).map((flow) => flow.id),
      );
    };
    expect(await ids()).not.toContain('pro-tips');
    await page.evaluate((id) => window.frigade.identify(id, { plan: 'pro' }), userId);
    expect(await ids()).toContain('pro-tips');
    await page.evaluate(() => window.frigade.group(`gold-team-${Date.now()}`, { tier: 'gold' }));
    expect(await ids()).toContain('team-banner');
    await page.evaluate(() => window.frigade.track('exported'));
    expect(await ids()).toContain('upgrade-nudge');
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    await page.close();
  });

  it('agrees with the stored state after an action the state makes moot', async () => {
    const userId = `chromium-frigade-${Date.now()}-moot`;
    const { page, errors, warnings } = await openApp(userId);
    const view = await page.evaluate(async () => {
      const flow = await window.frigade.getFlow('setup');
      await flow.complete();
      await flow.steps.get('invite')!.complete();
      await flow.skip();
      const after = await window.frigade.getFlow('setup');
      return {
        completed: after.isCompleted,
        skipped: after.isSkipped,
        steps: [...after.steps.values()].map((step) => [step.id, step.$state.completed, step.$state.skipped]),
      };
    });
    const stored = await storedFlow(userId, 'setup');
    expect(view).toEqual({
      completed: stored!.$state.completed,
      skipped: stored!.$state.skipped,
      steps: stored!.data.steps.map((step) => [step.id, step.$state.completed, step.$state.skipped]),
    });
    expect(view).toMatchObject({ completed: true, skipped: false });
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    await page.close();
  });

  it("reads a collection's computed order: one flow at a time, the next after the cool-off", async () => {
    const userId = `chromium-frigade-${Date.now()}-collection`;
    const { page, errors, warnings } = await openApp(userId);
    // Loaded first, as a page does; the SDK answers a POST it sent in the last 250 ms from its cache, so the journey waits.
    await page.evaluate(() => window.frigade.getFlows());
    await page.waitForTimeout(300);
    await page.evaluate((id) => window.frigade.identify(id, { tips: true }), userId);
    const collection = async () => {
      await page.waitForTimeout(300);
      return page.evaluate(async () => {
        const found = await window.frigade.getCollection('tips');
        return {
          type: found.collectionType,
          allowed: found.allowedComponents,
          flows: found.flows.map((row) => [row.flowId, row.visible, row.flow?.id]),
        };
      });
    };
    expect(await collection()).toEqual({
      type: 'CUSTOM',
      allowed: ['Card'],
      flows: [
        ['tip-one', true, 'tip-one'],
        ['tip-two', false, 'tip-two'],
      ],
    });
    await page.evaluate(async () => (await window.frigade.getFlow('tip-one')).complete());
    await page.evaluate(() => window.frigade.reload());
    // Completed: the next tip waits out the collection's one-day cool-off, on every device.
    expect((await collection()).flows).toEqual([
      ['tip-one', false, 'tip-one'],
      ['tip-two', false, 'tip-two'],
    ]);
    clockAheadMs = 25 * 3600_000;
    try {
      await page.evaluate(() => window.frigade.reload());
      expect((await collection()).flows).toEqual([
        ['tip-one', false, 'tip-one'],
        ['tip-two', true, 'tip-two'],
      ]);
    } finally {
      clockAheadMs = 0;
    }
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    await page.close();
  });
});

let reactBundle: Promise<string> | undefined;

/** The page of a React 19 app that uses @frigade/react, bundled once for the file; its config comes from `window.FRIGADE_REACT_CONFIG`. */
function bundleReactPage(): Promise<string> {
  reactBundle ??= bundleApp('test/browser/frigade-react-page.jsx');
  return reactBundle;
}

/** A component of @frigade/react the page draws, by its name there (`Banner`, `Checklist.Collapsible`, …), with its props. */
interface Mounted {
  component: string;
  props: Record<string, unknown>;
}

/** Opens the React page for `userId` with the user's properties and the components it draws from the start, noting every failure. */
async function openReactApp(
  userId: string,
  options: { userProperties: object; mounted?: Mounted[] },
): Promise<{ page: Page; problems: string[] }> {
  env.site.page('/frigade-react.js', await bundleReactPage(), { 'Content-Type': 'text/javascript' });
  const config = { apiKey: PUBLIC_KEY, apiUrl: env.service.url, userId, ...options };
  env.site.page(
    `/react-${userId}.html`,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Reports</title></head><body><div id="root"></div>
      <script>window.FRIGADE_REACT_CONFIG = ${JSON.stringify(config)};</script>
      <script type="module" src="/frigade-react.js"></script></body></html>`,
  );
  const page = await env.browser.context.newPage();
  // A step that waits in vain fails within the test's time, saying which.
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // The test site has no favicon; a failed call to the service is caught below, with its address.
    if (
      (message.type() === 'error' || message.type() === 'warning') &&
      !message.text().startsWith('Failed to load resource')
    )
      problems.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    if (response.url().startsWith(env.service.url) && response.status() >= 400)
      problems.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => {
    if (request.url().startsWith(env.service.url))
      problems.push(`failed: ${request.method()} ${request.url()} ${request.failure()?.errorText}`);
  });
  await page.goto(`${env.site.url}/react-${userId}.html`);
  return { page, problems };
}

/** Reloads the page and waits for the SDK's first state read (a POST to /v1/public/flowStates without an action) to be answered. */
async function reloadAndLoadState(page: Page): Promise<void> {
  const stateRead = page.waitForResponse(
    (response) =>
      response.url() === `${env.service.url}/v1/public/flowStates` &&
      response.request().method() === 'POST' &&
      !response.request().postData()?.includes('actionType'),
  );
  await page.reload();
  await stateRead;
}

describe("@frigade/react's <Frigade.Collection> in Chromium, on the same service", () => {
  it("draws the collection's current flow, and after a dismissal the next one only once the cool-off has passed", async () => {
    const userId = `chromium-frigade-react-${Date.now()}`;
    const { page, problems } = await openReactApp(userId, {
      userProperties: { reactTips: true },
      mounted: [{ component: 'Collection', props: { collectionId: 'react-tips' } }],
    });
    const collection = page.locator('.fr-collection[data-collection-id="react-tips"]');
    const banner = collection.getByRole('complementary', { name: 'Banner' });
    const card = collection.locator('.fr-card');

    // The first flow, drawn by the component its type names (BANNER: <Frigade.Banner>), and nothing else.
    await expect
      .poll(() => banner.locator('.fr-title').textContent(), { timeout: 10_000 })
      .toBe('Saved views are here');
    expect(
      await collection
        .locator('[data-flow-id]')
        .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-flow-id'))),
    ).toEqual(['react-banner']);
    expect(await storedCollection(userId, 'react-tips')).toEqual([
      ['react-banner', true],
      ['react-card', false],
    ]);
    // Drawn, so started: the component starts the flow's first step.
    await expect
      .poll(async () => (await storedFlow(userId, 'react-banner'))?.$state.started, { timeout: 5000 })
      .toBe(true);

    // Dismissed with its close button: stored as a skip, and the card waits out the collection's one-day cool-off,
    // in this tab (from the answer to the skip) and after a reload.
    const skipAnswered = page.waitForResponse(
      (response) =>
        response.url() === `${env.service.url}/v1/public/flowStates` &&
        Boolean(response.request().postData()?.includes('"SKIPPED_FLOW"')),
    );
    await banner.getByRole('button', { name: 'Dismiss' }).click();
    await skipAnswered;
    await expect.poll(() => banner.count(), { timeout: 5000 }).toBe(0);
    expect((await storedFlow(userId, 'react-banner'))!.$state.skipped).toBe(true);
    expect(await storedCollection(userId, 'react-tips')).toEqual([
      ['react-banner', false],
      ['react-card', false],
    ]);
    expect((await storedFlow(userId, 'react-card'))!.$state.visible).toBe(false);
    await page.waitForTimeout(300);
    expect(await card.count()).toBe(0);
    await reloadAndLoadState(page);
    await page.waitForTimeout(500);
    expect(await collection.count()).toBe(0);
    expect(await card.count()).toBe(0);

    // A day later on the service's clock, the card is the collection's flow: drawn as a card, with its own dismiss button.
    clockAheadMs = 25 * 3600_000;
    try {
      expect(await storedCollection(userId, 'react-tips')).toEqual([
        ['react-banner', false],
        ['react-card', true],
      ]);
      await reloadAndLoadState(page);
      await expect.poll(() => card.locator('.fr-title').textContent(), { timeout: 10_000 }).toBe('Invite your team');
      expect(
        await collection
          .locator('[data-flow-id]')
          .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-flow-id'))),
      ).toEqual(['react-card']);
      expect(await card.getByRole('button', { name: 'Dismiss' }).count()).toBe(1);
      await expect
        .poll(async () => (await storedFlow(userId, 'react-card'))?.$state.started, { timeout: 5000 })
        .toBe(true);
    } finally {
      clockAheadMs = 0;
    }
    expect(problems).toEqual([]);
    await page.close();
  });
});

/** Opens the React page for a new user with the `reactComponents` property, and mounts one component of @frigade/react in it. */
async function mountComponent(
  name: string,
  component: string,
  props: object,
): Promise<{ page: Page; problems: string[]; userId: string }> {
  const userId = `chromium-frigade-react-${Date.now()}-${name}`;
  const { page, problems } = await openReactApp(userId, { userProperties: { reactComponents: true } });
  await page.waitForFunction(() => window.frigadeApp !== undefined);
  await page.evaluate(([c, p]) => window.frigadeApp.mount(c, p), [component, props] as const);
  return { page, problems, userId };
}

/** Each step's data as the service stored it: `{ stepId: data }`. */
async function storedStepData(userId: string, slug: string): Promise<Record<string, unknown>> {
  const rows = await env.service.db.query<{ step_id: string; data: unknown }>(
    'SELECT step_id, data FROM step_states WHERE user_id = $1 AND flow_slug = $2 AND data IS NOT NULL',
    [userId, slug],
  );
  return Object.fromEntries(
    rows.map((row) => [row.step_id, typeof row.data === 'string' ? JSON.parse(row.data) : row.data]),
  );
}

/** Waits for the service's answer to the SDK's `actionType` for the flow. */
function answered(page: Page, actionType: string, slug: string): Promise<unknown> {
  return page.waitForResponse((response) => {
    const body = response.request().postData() ?? '';
    return (
      response.url() === `${env.service.url}/v1/public/flowStates` &&
      body.includes(`"${actionType}"`) &&
      body.includes(`"${slug}"`)
    );
  });
}

describe("@frigade/react's components in Chromium, on the same service", () => {
  it('shows a <Frigade.Banner> and stores its dismissal as a skip', async () => {
    const { page, problems, userId } = await mountComponent('banner', 'Banner', { flowId: 'rc-banner' });
    const banner = page.getByRole('complementary', { name: 'Banner' });
    await expect
      .poll(() => banner.locator('.fr-title').textContent(), { timeout: 10_000 })
      .toBe('Dashboards load twice as fast');
    await expect
      .poll(async () => (await storedFlow(userId, 'rc-banner'))?.$state.started, { timeout: 5000 })
      .toBe(true);

    const skipped = answered(page, 'SKIPPED_FLOW', 'rc-banner');
    await banner.getByRole('button', { name: 'Dismiss' }).click();
    await skipped;
    await expect.poll(() => banner.count(), { timeout: 5000 }).toBe(0);
    expect((await storedFlow(userId, 'rc-banner'))!.$state).toMatchObject({
      skipped: true,
      completed: false,
      visible: false,
    });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('completes a <Frigade.Checklist.Collapsible> step with its button, and opens the next', async () => {
    const { page, problems, userId } = await mountComponent('checklist', 'Checklist.Collapsible', {
      flowId: 'rc-checklist',
    });
    const checklist = page.locator('.fr-checklist[data-flow-id="rc-checklist"]');
    await expect
      .poll(() => checklist.locator('.fr-checklist-header .fr-title').textContent(), { timeout: 10_000 })
      .toBe('Get started with Reports');
    expect(await checklist.locator('.fr-progress-text').textContent()).toBe('0/2');

    const completed = answered(page, 'COMPLETED_STEP', 'rc-checklist');
    await checklist.getByRole('button', { name: 'Connect', exact: true }).click();
    await completed;
    expect(
      (await storedFlow(userId, 'rc-checklist'))!.data.steps.map((step) => [step.id, step.$state.completed]),
    ).toEqual([
      ['connect', true],
      ['share', false],
    ]);
    await expect.poll(() => checklist.locator('.fr-progress-text').textContent()).toBe('1/2');
    // The next step is the open one now: its button shows, the first step's is folded away.
    await expect.poll(() => checklist.getByRole('button', { name: 'Share', exact: true }).isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("submits a <Frigade.Form> typed at the keyboard, the answers stored as the step's data", async () => {
    const { page, problems, userId } = await mountComponent('form', 'Form', { flowId: 'rc-form' });
    const name = page.getByLabel('Your name');
    await name.waitFor({ timeout: 10_000 });
    const send = page.getByRole('button', { name: 'Send' });
    expect(await send.isDisabled()).toBe(true);

    await name.focus();
    await page.keyboard.type('Ada Lovelace');
    await page.keyboard.press('Tab');
    await page.keyboard.type('A weekly revenue report');
    await expect.poll(() => send.isEnabled()).toBe(true);
    const submitted = answered(page, 'COMPLETED_FLOW', 'rc-form');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await submitted;

    expect(await storedStepData(userId, 'rc-form')).toEqual({
      about: { name: 'Ada Lovelace', goal: 'A weekly revenue report' },
    });
    expect((await storedFlow(userId, 'rc-form'))!.$state.completed).toBe(true);
    await expect.poll(() => name.count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows a <Frigade.Announcement> and completes it step by step', async () => {
    const { page, problems, userId } = await mountComponent('announcement', 'Announcement', {
      flowId: 'rc-announcement',
    });
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.getByRole('heading').textContent(), { timeout: 10_000 }).toBe('Meet the new editor');
    await expect
      .poll(async () => (await storedFlow(userId, 'rc-announcement'))?.$state.started, { timeout: 5000 })
      .toBe(true);

    await dialog.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => dialog.getByRole('heading').textContent()).toBe('Drag to reorder');
    const completed = answered(page, 'COMPLETED_FLOW', 'rc-announcement');
    await dialog.getByRole('button', { name: 'Got it' }).click();
    await completed;
    await expect.poll(() => dialog.count(), { timeout: 5000 }).toBe(0);
    const stored = (await storedFlow(userId, 'rc-announcement'))!;
    expect(stored.$state).toMatchObject({ completed: true, skipped: false });
    expect(stored.data.steps.map((step) => step.$state.completed)).toEqual([true, true]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("anchors a <Frigade.Tour> to each step's target and steps through it", async () => {
    const { page, problems, userId } = await mountComponent('tour', 'Tour', { flowId: 'rc-tour' });
    const tooltip = page.locator('.fr-tour [role="dialog"]');
    /** Whether the tooltip's corner, where its ping sits, is on the target's bottom right corner (the default side, bottom, and alignment, after). */
    const anchoredTo = async (target: string) => {
      const [box, anchor] = await Promise.all([tooltip.boundingBox(), page.locator(target).boundingBox()]);
      return (
        Math.abs(box!.x - (anchor!.x + anchor!.width)) <= 1 && Math.abs(box!.y - (anchor!.y + anchor!.height)) <= 1
      );
    };

    await expect.poll(() => tooltip.locator('.fr-title').textContent(), { timeout: 10_000 }).toBe('Your reports');
    expect(await anchoredTo('#nav-reports')).toBe(true);
    await expect
      .poll(async () => (await storedFlow(userId, 'rc-tour'))?.data.steps[0]!.$state.started, { timeout: 5000 })
      .toBe(true);

    await tooltip.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => tooltip.locator('.fr-title').textContent()).toBe('Your settings');
    expect(await anchoredTo('#nav-settings')).toBe(true);
    expect((await storedFlow(userId, 'rc-tour'))!.data.steps[0].$state.completed).toBe(true);

    const completed = answered(page, 'COMPLETED_FLOW', 'rc-tour');
    await tooltip.getByRole('button', { name: 'Done' }).click();
    await completed;
    await expect.poll(() => tooltip.count(), { timeout: 5000 }).toBe(0);
    expect((await storedFlow(userId, 'rc-tour'))!.$state.completed).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('stores the score picked in a <Frigade.Survey.NPS> and the feedback submitted after it', async () => {
    const { page, problems, userId } = await mountComponent('nps', 'Survey.NPS', { flowId: 'rc-nps' });
    const survey = page.locator('.fr-nps');
    await expect
      .poll(() => survey.locator('.fr-title').textContent(), { timeout: 10_000 })
      .toBe('How likely are you to recommend Reports to a friend?');
    expect(await survey.locator('.fr-field-nps button').allTextContents()).toEqual([
      '0',
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
    ]);
    // The scale's ends are labelled as the field says.
    expect(await survey.locator('.fr-field-nps-left-label, .fr-field-nps-right-label').allTextContents()).toEqual([
      'Not at all',
      'Certainly',
    ]);

    const scored = answered(page, 'COMPLETED_STEP', 'rc-nps');
    await survey.getByRole('button', { name: '9', exact: true }).click();
    await scored;
    const feedback = survey.getByPlaceholder('Tell us more');
    await feedback.waitFor();
    await feedback.focus();
    await page.keyboard.type('The exports');
    const sent = answered(page, 'COMPLETED_FLOW', 'rc-nps');
    await survey.getByRole('button', { name: 'Send' }).click();
    await sent;

    // Stored as the SDK sends them: its form keeps one set of values across the flow's steps, so the feedback step
    // carries the score too.
    expect(await storedStepData(userId, 'rc-nps')).toEqual({
      score: { 'nps-score': '9' },
      feedback: { 'nps-score': '9', feedback: 'The exports' },
    });
    expect((await storedFlow(userId, 'rc-nps'))!.$state.completed).toBe(true);
    await expect.poll(() => survey.count(), { timeout: 5000 }).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows a <Frigade.Banner> whose flow becomes eligible mid-session, without a reload', async () => {
    const { page, problems, userId } = await mountComponent('mid-session', 'Banner', { flowId: 'rc-pro-banner' });
    const banner = page.getByRole('complementary', { name: 'Banner' });
    // Loaded, and not for this user yet.
    await page.evaluate(() => window.frigadeApp.loaded());
    await page.waitForTimeout(300);
    expect(await banner.count()).toBe(0);
    expect((await storedFlow(userId, 'rc-pro-banner'))?.$state.visible ?? false).toBe(false);

    await page.evaluate(() => {
      window.sameDocument = true;
      return window.frigadeApp.addProperties({ plan: 'pro' });
    });
    await expect.poll(() => banner.locator('.fr-title').textContent(), { timeout: 10_000 }).toBe('Welcome to Pro');
    expect(await page.evaluate(() => window.sameDocument)).toBe(true);
    expect((await storedFlow(userId, 'rc-pro-banner'))!.$state.visible).toBe(true);
    await expect
      .poll(async () => (await storedFlow(userId, 'rc-pro-banner'))?.$state.started, { timeout: 5000 })
      .toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('<onboarding-collection> in Chromium, on the same service', () => {
  it("draws the collection's current flow with its type's element, and the next one after the cool-off", async () => {
    const userId = `chromium-collection-${Date.now()}`;
    env.site.page(
      '/collection.html',
      `<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body>
        <aside><onboarding-collection collection="tips"></onboarding-collection></aside>
        <script src="/onboarding.js"></script>
        <script>Onboarding.init(${JSON.stringify({ publicKey: PUBLIC_KEY, apiUrl: env.service.url, userId })}); Onboarding.identify(${JSON.stringify(userId)}, { tips: true });</script>
      </body></html>`,
    );
    const page = await env.browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${env.site.url}/collection.html`);
    // The first tip, drawn as the card it is (the card's element inside <onboarding-flow>), and only it.
    const card = page.locator('onboarding-collection onboarding-card [part="title"]');
    await expect.poll(() => card.textContent(), { timeout: 8000 }).toBe('Keyboard shortcuts');
    expect(await page.locator('onboarding-collection onboarding-flow').count()).toBe(1);
    expect(await page.locator('onboarding-collection onboarding-flow').getAttribute('flow')).toBe('tip-one');
    // Done with it: nothing until the cool-off has passed, on this device or any other.
    await page.evaluate(() => window.Onboarding.getFlow('tip-one')!.complete());
    await expect.poll(() => page.locator('onboarding-collection onboarding-flow').count()).toBe(0);
    await page.reload();
    await page.waitForTimeout(500);
    expect(await page.locator('onboarding-collection onboarding-flow').count()).toBe(0);
    clockAheadMs = 25 * 3600_000;
    try {
      await page.evaluate(() => window.Onboarding.refresh());
      await expect.poll(() => card.textContent()).toBe('Saved searches');
    } finally {
      clockAheadMs = 0;
    }
    expect(errors).toEqual([]);
    await page.close();
  });
});
