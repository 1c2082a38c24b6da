// Docs step: takes docs/images/flow-<type>.png from docs/flows.md's examples, drawn by the real elements in the live
// preview, and docs/demo.png from the demo. Run after `npm run build`: node scripts/docs-screenshots.mjs
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startPreview, startService } from '../dist/server.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const images = join(root, 'docs/images');

/** The complete flow files among docs/flows.md's YAML examples. */
export function docExamples() {
  const text = readFileSync(join(root, 'docs/flows.md'), 'utf8');
  return [...text.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .filter((yaml) => /^slug: /m.test(yaml) && /^type: /m.test(yaml));
}

// How each type is framed: the viewport, and what to do before the picture.
const SHOTS = {
  ANNOUNCEMENT: { size: [560, 540], whole: true },
  BANNER: { size: [760, 200] },
  CARD: { size: [420, 520] },
  CHECKLIST: {
    size: [420, 600],
    async prepare(frame) {
      await frame.locator('onboarding-checklist [part="step-header"]', { hasText: 'Invite your team' }).click();
      await frame.locator('onboarding-checklist [part="primary-button"]', { hasText: 'Invite' }).click();
    },
  },
  CUSTOM: { size: [420, 320] },
  FORM: { size: [480, 560] },
  HINT: {
    size: [520, 340],
    whole: true,
    async prepare(frame) {
      await frame.locator('onboarding-hint [part="beacon"]').first().click();
    },
  },
  SURVEY: { size: [460, 300], whole: true },
  TOOLTIP: {
    size: [520, 300],
    whole: true,
    async prepare(frame) {
      await frame.locator('[data-preview-target]').first().hover();
    },
  },
  TOUR: { size: [560, 340], whole: true },
};

async function flowShots(browser) {
  const dir = mkdtempSync(join(tmpdir(), 'onboarding-doc-flows-'));
  // One example per type: the one in the type's own section, which comes after the general ones.
  const byType = new Map(docExamples().map((yaml) => [/^type: (\S+)/m.exec(yaml)[1], yaml]));
  for (const yaml of byType.values()) writeFileSync(join(dir, `${/^slug: (\S+)/m.exec(yaml)[1]}.yaml`), yaml);
  const service = await startService({ flows: dir, database: 'memory', port: 0, watchFlows: false });
  const preview = await startPreview({ catalog: service.catalog, port: 0 });
  try {
    for (const flow of service.catalog.list()) {
      const shot = SHOTS[flow.flow.type];
      // A resource centre's picture is the demo's Help centre (demoShot): its example names flows of other sections.
      if (!shot) continue;
      const page = await browser.newPage({ viewport: { width: shot.size[0], height: shot.size[1] } });
      // Example image addresses are served from the demo's pictures.
      await page.route('**/*.{png,svg,mp4}', (route) => {
        const name = new URL(route.request().url()).pathname
          .split('/')
          .pop()
          .replace(/\.png$/, '.svg');
        const file = { 'welcome.svg': 'welcome', 'reports.svg': 'reports', 'recent.svg': 'checklist' }[name];
        if (!file) return route.fulfill({ status: 404 });
        return route.fulfill({
          contentType: 'image/svg+xml',
          body: readFileSync(join(root, `demo/assets/${file}.svg`)),
        });
      });
      await page.goto(`${preview.url}frame.html?slug=${flow.flow.slug}&theme=light&dir=ltr`);
      await page.waitForTimeout(800);
      await shot.prepare?.(page);
      await page.waitForTimeout(400);
      const path = join(images, `flow-${flow.flow.type.toLowerCase()}.png`);
      if (shot.whole) await page.screenshot({ path });
      else await page.locator('#stage').screenshot({ path });
      await page.close();
      console.log(`docs/images/flow-${flow.flow.type.toLowerCase()}.png`);
    }
  } finally {
    await preview.close();
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function demoShot(browser) {
  const child = spawn(process.execPath, ['demo/serve.mjs'], {
    cwd: root,
    env: { ...process.env, API_PORT: '0', DEMO_PORT: '0', PREVIEW_PORT: '0', DATABASE: 'memory' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  await new Promise((done) =>
    child.stdout.on('data', (chunk) => (output += chunk) && /public key:/.test(output) && done()),
  );
  const site = /demo site:\s+(\S+)/.exec(output)[1];
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
    // A guest the welcome's experiment (demo/flows/experiments.yaml) puts in `warm` (bucket 5906), so the picture has
    // the two-step welcome to close: a random guest is in the control group, with no welcome, a third of the time.
    await page.addInitScript(() => localStorage.setItem('onboarding:guestId', 'guest_docs-picture-2'));
    await page.goto(site);
    await page.evaluate(() => document.getElementById('demo-light').click());
    await page.locator('onboarding-announcement [part="close-button"]').click();
    for (const [title, button] of [
      ['Invite your team', 'Invite'],
      ['Create your first dashboard', 'Create'],
    ]) {
      const header = page.locator('onboarding-checklist [part="step-header"]', { hasText: title });
      // Completing a step opens the next one; open it only when it is closed.
      if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
      await page.locator('onboarding-checklist [part="primary-button"]', { hasText: button }).click();
      await page.waitForTimeout(300);
    }
    await page.waitForTimeout(2500);
    await page.screenshot({ path: join(root, 'docs/demo.png') });
    console.log('docs/demo.png');
    // The Help centre (a RESOURCE_CENTER), opened from the header's Help button, for docs/flows.md.
    await page.locator('#help-button').click();
    const panel = page.locator('onboarding-resource-center [part="panel"]');
    await panel.waitFor();
    await page.waitForTimeout(600);
    await panel.screenshot({ path: join(images, 'flow-resource_center.png') });
    console.log('docs/images/flow-resource_center.png');
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  mkdirSync(images, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    if (!process.argv.includes('--demo-only')) await flowShots(browser);
    await demoShot(browser);
  } finally {
    await browser.close();
  }
}
