// Shared setup of the element suites: a real service, a page site on another port, and what the service recorded (the journeys on every engine read it too).
import type { Page } from 'playwright-core';
import type { FLOW_TYPE_ALIASES, FlowData, FlowState, FlowType, StartWhen } from '../../src/api/wire.js';
import { startBrowserEnv, type BrowserEnv, type EnvOptions, type SiteEnv } from './browser-env.js';
import { PUBLIC_KEY } from './service.js';

export interface FlowFile {
  slug: string;
  /** One of ours, or Frigade's name for one (NPS_SURVEY). */
  type: FlowType | keyof typeof FLOW_TYPE_ALIASES;
  data: FlowData;
  targetingLogic?: string;
  startWhen?: StartWhen;
}

/** A flow file for the service's folder; JSON is valid YAML. */
export function flowFile(flow: FlowFile): [string, string] {
  return [
    `${flow.slug}.yaml`,
    JSON.stringify({ name: `Flow ${flow.slug}`, status: 'ACTIVE', targetingLogic: '', ...flow }),
  ];
}

export type Env = BrowserEnv;

export function startEnv(flows: FlowFile[], options?: EnvOptions): Promise<Env> {
  return startBrowserEnv(Object.fromEntries(flows.map(flowFile)), options);
}

let counter = 0;
/** A user ID no other test uses. */
export const newUserId = (label: string) => `${label}-${process.pid}-${++counter}`;

export interface PageOptions {
  userId: string;
  /** Extra options for Onboarding.init, as JSON. */
  init?: Record<string, unknown>;
  head?: string;
  headers?: Record<string, string>;
}

/** A page of `body`, then the script and its init: as `userId`, or as a guest when `userId` is left out. */
export function scriptPage(apiUrl: string, body: string, options: Partial<PageOptions> = {}): string {
  const config = JSON.stringify({
    publicKey: PUBLIC_KEY,
    apiUrl,
    ...(options.userId ? { userId: options.userId } : {}),
    ...options.init,
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test page</title>${options.head ?? ''}</head><body>
      <main>${body}</main>
      <script src="/onboarding.js"></script>
      <script>Onboarding.init(${config});</script>
    </body></html>`;
}

/** Serves `body` with the script and an init for `userId`, opens it, and collects page errors. */
export async function openPage(
  env: Env,
  path: string,
  body: string,
  options: PageOptions,
): Promise<{ page: Page; errors: string[] }> {
  env.site.page(path, scriptPage(env.service.url, body, options), options.headers);
  const page = await env.browser.context.newPage();
  // Fail with Playwright's message well before the test's own timeout.
  page.setDefaultTimeout(8000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      errors.push(message.text());
  });
  await page.goto(`${env.site.url}${path}`);
  return { page, errors };
}

/** The user's state in one flow as the service reports it now. */
export async function serverState(
  env: Pick<SiteEnv, 'service'>,
  userId: string,
  slug: string,
): Promise<FlowState | undefined> {
  const read = await env.service.call('GET', `/v1/public/flowStates?userId=${encodeURIComponent(userId)}`);
  return (read.body?.eligibleFlows as FlowState[] | undefined)?.find((flow) => flow.flowSlug === slug);
}

/** The transitions the service recorded for one flow (its whole response log), as "ACTION_TYPE:stepId". */
export async function recorded(env: Pick<SiteEnv, 'service'>, userId: string, slug: string): Promise<string[]> {
  const rows = await env.service.db.query<{ action_type: string; step_id: string }>(
    'SELECT action_type, step_id FROM flow_responses WHERE user_id = $1 AND flow_slug = $2 ORDER BY id',
    [userId, slug],
  );
  return rows.map((row) => `${row.action_type}:${row.step_id}`);
}

/** The data recorded with the last response of `actionType`, decoded. */
export async function recordedData(
  env: Pick<SiteEnv, 'service'>,
  userId: string,
  slug: string,
  actionType: string,
): Promise<unknown> {
  const [row] = await env.service.db.query<{ data: string }>(
    'SELECT data FROM flow_responses WHERE user_id = $1 AND flow_slug = $2 AND action_type = $3 ORDER BY id DESC LIMIT 1',
    [userId, slug, actionType],
  );
  return row ? JSON.parse(row.data) : undefined;
}

/** Whether the element's shadow root has an element matching `selector`. */
export function shadowHas(page: Page, host: string, selector: string): Promise<boolean> {
  return page.evaluate(([h, s]) => Boolean(document.querySelector(h)?.shadowRoot?.querySelector(s)), [host, selector]);
}

/** Waits until the element has rendered `selector` in its shadow root (locators pierce open shadow roots). */
export async function waitForPart(page: Page, selector: string, timeout = 10_000): Promise<void> {
  await page.locator(selector).first().waitFor({ state: 'visible', timeout });
}

/**
 * Runs in the page: the height of an element's surface (its dialog or popover, found in its shadow root), its
 * content's (from the first row's top to the last row's bottom, with padding and border), and the window's.
 * Self-contained, so any driver can send it to the page.
 */
export async function surfaceHeights([host, surface]: readonly [host: string, surface: string]): Promise<{
  surface: number;
  content: number;
  window: number;
}> {
  const element = document.querySelector(host)!.shadowRoot!.querySelector(surface)!;
  // Measured at rest: an entrance still scaling the surface would shrink every box it holds.
  await Promise.allSettled(element.getAnimations().map((animation) => animation.finished));
  const rows = [...element.children].map((row) => row.getBoundingClientRect()).filter((row) => row.height > 0);
  const style = getComputedStyle(element);
  const chrome = ['paddingTop', 'paddingBottom', 'borderTopWidth', 'borderBottomWidth'].reduce(
    (sum, key) => sum + parseFloat(style[key as 'paddingTop']),
    0,
  );
  return {
    surface: element.getBoundingClientRect().height,
    content: rows.at(-1)!.bottom - rows[0].top + chrome,
    window: innerHeight,
  };
}

/** Reloads and gives the script time to load state again (it renders from the service's answer). */
export async function reloadAndSettle(page: Page): Promise<void> {
  await page.reload();
  await page.waitForFunction(
    () => (window as unknown as { Onboarding: { ready: Promise<void> } }).Onboarding?.ready !== undefined,
  );
  await page.evaluate(() => (window as unknown as { Onboarding: { ready: Promise<void> } }).Onboarding.ready);
  await page.waitForTimeout(300);
}
