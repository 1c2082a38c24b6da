// `npm start`'s demo, run as a stranger would: the demo page on one port shows the banner from the service on another.
// test/browser/demo-journeys.test.ts walks through the rest of the demo.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { assignVariant } from '../../src/api/experiment-assignment.js';
import type { ExperimentsFile } from '../../src/api/wire.js';
import { launchChromium, type LaunchedBrowser } from '../support/chromium.js';

/**
 * The visitor: a guest whose variant of the demo's experiment (demo/flows/experiments.yaml) is the two-step welcome,
 * since a third of the guests, the control group, see no welcome at all.
 */
const GUEST = 'guest_npm-start-1';

let demo: ChildProcess;
let output = '';
let browser: LaunchedBrowser;

beforeAll(async () => {
  demo = spawn(process.execPath, ['demo/serve.mjs'], {
    env: { ...process.env, API_PORT: '0', DEMO_PORT: '0', PREVIEW_PORT: '0', DATABASE: 'memory' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  demo.stdout!.on('data', (chunk) => (output += chunk));
  demo.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo did not start:\n${output}`)), 30_000);
    demo.stdout!.on('data', () => {
      if (/public key:\s+pk_/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    demo.on('exit', (code) => reject(new Error(`demo exited ${code}:\n${output}`)));
  });
  browser = await launchChromium();
  await browser.context.addInitScript((guest) => {
    if (!localStorage.getItem('onboarding:guestId')) localStorage.setItem('onboarding:guestId', guest);
  }, GUEST);
});

afterAll(async () => {
  await browser?.close();
  demo?.kill('SIGTERM');
});

describe('npm start', () => {
  it('prints the URLs and the public key, and the demo page shows the banner', async () => {
    const site = /demo site:\s+(\S+)/.exec(output)?.[1];
    const api = /service API:\s+(\S+)/.exec(output)?.[1];
    expect(site).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(api).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(new URL(site!).port).not.toBe(new URL(api!).port);
    expect(output).toMatch(/live preview:\s+http:\/\/127\.0\.0\.1:\d+\/preview\//);
    const dashboard = /dashboard:\s+(\S+) \(sign in with (sk_\S+)\)/.exec(output);
    expect(dashboard?.[1]).toBe(`${api}/dashboard`);
    expect((await fetch(dashboard![1])).status).toBe(200);

    const page = await browser.context.newPage();
    await page.goto(site!);
    const title = page.locator('onboarding-banner [part="title"]');
    await expect.poll(() => title.textContent(), { timeout: 10_000 }).toBe('You are on the Free plan');
    await page.close();
  });

  it("switches the flows' language from the demo bar without a reload, Arabic right to left, and keeps it after one", async () => {
    const site = /demo site:\s+(\S+)/.exec(output)![1];
    const poll = <T>(check: () => Promise<T>) => expect.poll(check, { timeout: 10_000, interval: 50 });
    const page = await browser.context.newPage();
    await page.goto(site);
    const banner = page.locator('onboarding-banner');
    const title = banner.locator('[part="title"]');
    await poll(() => title.textContent()).toBe('You are on the Free plan');
    await page.evaluate(() => ((window as unknown as { unloaded: boolean }).unloaded = false));

    await page.getByLabel('Language of the flows').selectOption('fr');
    await poll(() => title.textContent()).toBe('Vous êtes sur l’offre Gratuite');
    expect(await banner.getAttribute('dir')).toBeNull();
    await page.getByLabel('Language of the flows').selectOption('ar');
    await poll(() => title.textContent()).toBe('أنت على الخطة المجانية');
    expect(await banner.getAttribute('dir')).toBe('rtl');
    expect(await page.evaluate(() => (window as unknown as { unloaded?: boolean }).unloaded)).toBe(false);

    await page.reload();
    await poll(() => title.textContent()).toBe('أنت على الخطة المجانية');
    expect(await page.locator('#demo-language').inputValue()).toBe('ar');
    // Back to the flows' own text, for whatever runs next in this browser.
    await page.getByLabel('Language of the flows').selectOption('en');
    await poll(() => title.textContent()).toBe('You are on the Free plan');
    expect(await banner.getAttribute('dir')).toBeNull();
    await page.close();
  });

  it("keeps the dashboard's hint beacons off the welcome announcement at phone and desktop width, and shows them once it is closed", async () => {
    const site = /demo site:\s+(\S+)/.exec(output)![1];
    const poll = <T>(check: () => Promise<T>) => expect.poll(check, { timeout: 10_000, interval: 50 });
    const { experiments } = parse(readFileSync('demo/flows/experiments.yaml', 'utf8')) as ExperimentsFile;
    expect(await assignVariant(experiments[0], GUEST)).toBe('warm');
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(site);
    const dialog = page.locator('onboarding-announcement dialog');
    const beacons = page.locator('onboarding-hint [part="beacon"]');
    await poll(() => page.locator('onboarding-announcement [part="title"]').textContent()).toBe(
      'Hi there, welcome to Lumen!',
    );
    expect(await page.evaluate(() => window.Onboarding.userId)).toBe(GUEST);
    // The hints' element is on the page for its flow (it is eligible on this page), yet draws no beacon over the dialog.
    await page.locator('onboarding-hint[flow="dashboard-hints"]').waitFor({ state: 'attached' });
    await page.waitForTimeout(800);
    expect(await beacons.count()).toBe(0);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.waitForTimeout(300);
    expect(await beacons.count()).toBe(0);
    expect(await dialog.evaluate((el) => el.matches(':modal'))).toBe(true);

    await page.locator('onboarding-announcement [part="close-button"]').click();
    await poll(() => dialog.count()).toBe(0);
    await poll(() => beacons.count()).toBe(2);
    // Back on top of the page: what is drawn at each beacon's centre is the beacon.
    for (const beacon of await beacons.all()) {
      const box = (await beacon.boundingBox())!;
      expect(
        await page.evaluate(
          ([x, y]) => document.elementFromPoint(x, y)?.localName,
          [box.x + box.width / 2, box.y + box.height / 2],
        ),
      ).toBe('onboarding-hint');
    }
    await page.close();
  });
});
