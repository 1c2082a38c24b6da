// In real Chromium, against a service that requires identity: the page gets the hash from its own backend, and the script carries it (issue 9).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { userHashFor } from '../../server/http/identity.js';
import { startBrowserEnv, type BrowserEnv } from '../support/browser-env.js';
import { isStateRead, writesIn } from '../support/requests.js';
import { checklistYaml, PUBLIC_KEY } from '../support/service.js';

const SECRET = 'a-secret-of-16+chars-in-chromium';
const USER = 'verified-user';
let env: BrowserEnv;

beforeAll(async () => {
  env = await startBrowserEnv(
    { 'setup.yaml': checklistYaml('setup', '!user.isGuest', 3) },
    { proxy: true, service: { identity: { secrets: [SECRET], required: true } } },
  );
  // The customer's backend: it knows who is logged in (a session cookie here) and signs that user's ID.
  env.site.route('/api/onboarding-identity', (request) => {
    const userId = /(?:^|;\s*)session=([^;]+)/.exec(request.headers.cookie ?? '')?.[1];
    if (!userId) return { status: 401, body: '{"error":"not logged in"}' };
    return { body: JSON.stringify({ userId, userHash: userHashFor(SECRET, userId) }) };
  });
  const tag = `<script src="/onboarding.js" data-public-key="${PUBLIC_KEY}" data-api-url="${env.apiUrl}"></script>`;
  // Logging in: the page asks its backend for the signed identity, then identifies.
  env.site.page(
    '/login.html',
    `<!doctype html><html><body><onboarding-checklist flow="setup"></onboarding-checklist>${tag}
    <script>
      fetch('/api/onboarding-identity')
        .then((response) => response.json())
        .then(({ userId, userHash }) => Onboarding.identify(userId, { plan: 'pro' }, { userHash }));
    </script></body></html>`,
  );
  // Every other page: the script tag alone; the script remembers the user and the hash.
  env.site.page(
    '/app.html',
    `<!doctype html><html><body><onboarding-checklist flow="setup"></onboarding-checklist>${tag}</body></html>`,
  );
});

afterAll(() => env?.close());

interface Watched {
  page: Page;
  refused: string[];
  /** URLs and header values of every request to the service, where the hash must never be. */
  exposed: string[];
  errors: string[];
}

const watched: Watched[] = [];
async function watch(page: Page): Promise<Watched> {
  const entry: Watched = { page, refused: [], exposed: [], errors: [] };
  page.on('response', (response) => {
    if (response.url().startsWith(env.apiUrl) && response.status() === 401) entry.refused.push(response.url());
  });
  page.on('request', (request) => {
    if (request.url().startsWith(env.apiUrl)) entry.exposed.push(request.url(), ...Object.values(request.headers()));
  });
  page.on('pageerror', (error) => entry.errors.push(error.message));
  watched.push(entry);
  return entry;
}

const stepStates = (page: Page) =>
  page.evaluate(() => window.Onboarding.getFlow('setup')?.steps.map((step) => step.state.completed) ?? null);
const hashOf = (userId: string) => userHashFor(SECRET, userId);

describe('identity verification in the browser (issue 9)', () => {
  it('identifies with the hash from the page’s backend, reads with it after a reload and in another tab, and forgets it on reset', async () => {
    await env.browser.context.addCookies([{ name: 'session', value: USER, url: env.site.url }]);
    const tab = await watch(await env.browser.context.newPage());
    await tab.page.goto(`${env.site.url}/login.html`);
    await expect
      .poll(() => tab.page.locator('onboarding-checklist [part~="step"]').count(), { timeout: 10_000 })
      .toBe(3);
    await tab.page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[0].complete());
    await expect
      .poll(() => env.service.db.query('SELECT step_id FROM step_states WHERE user_id = $1 AND completed', [USER]))
      .toEqual([{ step_id: 'one' }]);

    // A reload of another page: nothing calls identify, and the reads still carry the hash.
    const since = env.proxy!.requests.length;
    await tab.page.goto(`${env.site.url}/app.html`);
    await expect.poll(() => stepStates(tab.page), { timeout: 10_000 }).toEqual([true, false, false]);
    await tab.page.evaluate(() => window.Onboarding.refresh());
    const reads = env
      .proxy!.requests.slice(since)
      .filter(isStateRead)
      .map((r) => JSON.parse(r.body));
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((read) => read.userId === USER && read.userHash === hashOf(USER))).toBe(true);

    // Another tab: the same user, the same hash, and its writes are taken.
    const other = await watch(await env.browser.context.newPage());
    await other.page.goto(`${env.site.url}/app.html`);
    await expect.poll(() => stepStates(other.page), { timeout: 10_000 }).toEqual([true, false, false]);
    await other.page.evaluate(() => window.Onboarding.getFlow('setup')!.steps[1].complete());
    await expect.poll(() => stepStates(tab.page), { timeout: 10_000 }).toEqual([true, true, false]);
    await expect
      .poll(() =>
        env.service.db.query('SELECT step_id FROM step_states WHERE user_id = $1 AND completed ORDER BY step_id', [
          USER,
        ]),
      )
      .toEqual([{ step_id: 'one' }, { step_id: 'two' }]);

    // Logging out forgets the hash, here and in the other tab.
    const beforeReset = env.proxy!.requests.length;
    await tab.page.evaluate(() => window.Onboarding.reset());
    await expect.poll(() => other.page.evaluate(() => window.Onboarding.userId)).toMatch(/^guest_/);
    expect(await tab.page.evaluate(() => Object.keys(localStorage).filter((key) => key.includes('userHash')))).toEqual(
      [],
    );
    await tab.page.evaluate(() => window.Onboarding.refresh());
    const afterReset = env.proxy!.requests.slice(beforeReset);
    expect(afterReset.filter(isStateRead).every((r) => !r.body.includes(hashOf(USER)))).toBe(true);
    expect(afterReset.flatMap(writesIn).every((write) => !JSON.stringify(write.body).includes(hashOf(USER)))).toBe(
      true,
    );

    for (const entry of watched) {
      expect(entry.refused).toEqual([]);
      expect(entry.errors).toEqual([]);
      // In bodies only: no URL and no header ever carries it, so it adds no preflight and stays out of logs.
      expect(entry.exposed.some((value) => value.includes(hashOf(USER)))).toBe(false);
      await entry.page.close();
    }
  });
});
