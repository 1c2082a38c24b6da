// The README's async snippet in real Chromium: calls queue on the stub, replay once, and resolve after replay.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserEnv, type BrowserEnv } from '../support/browser-env.js';
import { writesIn } from '../support/requests.js';
import { checklistYaml, PUBLIC_KEY } from '../support/service.js';

let env: BrowserEnv;

// The snippet exactly as documented: the first <script> of the README block that defines the `_q` stub.
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const snippet = /```html\n(<script>\n[^`]*?_q[^`]*?<\/script>)/.exec(readme)![1];

/** A page that uses Onboarding before the async script arrives; `twice` includes the snippet and the script twice. */
function snippetPage(userId: string, twice: boolean): string {
  const tag = `<script async src="/onboarding.js" data-public-key="${PUBLIC_KEY}" data-api-url="${env.apiUrl}"></script>`;
  const calls = `<script>
    window.log = [];
    window.off = Onboarding.on('step.complete', (e) => log.push('step.complete:' + e.step.id));
    window.identified = Onboarding.identify('${userId}', { plan: 'pro' }).then(() => {
      log.push('identified as ' + Onboarding.userId);
      return Onboarding.getFlow('setup').steps[0].complete();
    });
    window.tracked = Onboarding.track('opened-from-snippet');
    Onboarding.ready.then(() => log.push('ready'));
  </script>`;
  const n = twice ? 2 : 1;
  return `<!doctype html><html><head>${snippet.repeat(n)}</head><body>${calls}${tag.repeat(n)}</body></html>`;
}

beforeAll(async () => {
  env = await startBrowserEnv({ 'setup.yaml': checklistYaml('setup', '', 1) }, { proxy: true });
});

afterAll(() => env?.close());

describe('async snippet', () => {
  for (const [name, twice] of [
    ['replays queued calls once, in order, and resolves them after replay', false],
    ['does no harm when the snippet and the script are both included twice', true],
  ] as const) {
    it(name, async () => {
      const userId = twice ? 'snippet-user-twice' : 'snippet-user';
      const path = `/${userId}.html`;
      env.site.page(path, snippetPage(userId, twice));
      const page = await env.browser.context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const before = env.proxy!.requests.length;
      await page.goto(`${env.site.url}${path}`);
      await page.evaluate(() =>
        Promise.all([
          (window as unknown as { identified: Promise<void> }).identified,
          (window as unknown as { tracked: Promise<void> }).tracked,
        ]),
      );
      const log = await page.evaluate(() =>
        (window as unknown as { log: string[] }).log.filter((entry) => entry !== 'change'),
      );
      expect(log).toContain(`identified as ${userId}`);
      expect(log).toContain('ready');
      await expect
        .poll(() => page.evaluate(() => (window as unknown as { log: string[] }).log))
        .toContain('step.complete:one');
      // The real object replaced the stub, and the stub's unsubscribe reaches the real handler.
      expect(await page.evaluate(() => typeof window.Onboarding.getFlow)).toBe('function');
      await page.evaluate(() => (window as unknown as { off: () => void }).off());

      // Completing the only step completes the flow: the service records both, once each.
      await expect
        .poll(() =>
          env.service.db.query('SELECT action_type, step_id FROM flow_responses WHERE user_id = $1 ORDER BY id', [
            userId,
          ]),
        )
        .toEqual([
          { action_type: 'COMPLETED_STEP', step_id: 'one' },
          { action_type: 'COMPLETED_FLOW', step_id: 'one' },
        ]);
      // Each write of a batch commits on its own, so the event may land a moment after the responses.
      await expect
        .poll(() => env.service.db.query('SELECT event FROM user_events WHERE user_id = $1', [userId]))
        .toEqual([{ event: 'opened-from-snippet' }]);
      const upserts = env
        .proxy!.requests.slice(before)
        .flatMap(writesIn)
        .filter((write) => write.path === 'users');
      expect(upserts).toHaveLength(2);
      expect(errors).toEqual([]);
      await page.evaluate(() => window.Onboarding.reset());
      await page.close();
    });
  }
});
