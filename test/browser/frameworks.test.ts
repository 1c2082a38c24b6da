// examples/ in React, Vue and Svelte: each bundled with esbuild (and the framework's own compiler), run in Chromium
// against the real service, drawing <onboarding-checklist> and following the $flows store.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Plugin } from 'esbuild';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleApp } from '../support/app-bundle.js';
import { startBrowserEnv, type BrowserEnv } from '../support/browser-env.js';
import { PUBLIC_KEY } from '../support/service.js';

const SETUP = `
slug: setup-guide
name: Setup guide
type: CHECKLIST
data:
  title: Get set up
  steps:
    - { id: one, title: One }
    - { id: two, title: Two }
    - { id: three, title: Three }
`;

/** .vue single-file components, compiled by Vue's own compiler with onboarding-* tags as custom elements. */
const vuePlugin: Plugin = {
  name: 'vue',
  setup(setup) {
    setup.onLoad({ filter: /\.vue$/ }, async (args) => {
      const { parse, compileScript } = await import('vue/compiler-sfc');
      const { descriptor } = parse(readFileSync(args.path, 'utf8'), { filename: args.path });
      const script = compileScript(descriptor, {
        id: 'example',
        inlineTemplate: true,
        templateOptions: { compilerOptions: { isCustomElement: (tag: string) => tag.startsWith('onboarding-') } },
      });
      return { contents: script.content, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/** .svelte components, compiled by Svelte's own compiler. */
const sveltePlugin: Plugin = {
  name: 'svelte',
  setup(setup) {
    setup.onLoad({ filter: /\.svelte$/ }, async (args) => {
      const { compile } = await import('svelte/compiler');
      const { js } = compile(readFileSync(args.path, 'utf8'), { filename: args.path, generate: 'client' });
      return { contents: js.code, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

async function bundle(entry: string): Promise<string> {
  const text = await bundleApp(entry, {
    conditions: ['svelte', 'browser'],
    // The package as an app installs it: its ESM build.
    alias: { 'open-onboarding': resolve('dist/onboarding.mjs') },
    define: {
      __VUE_OPTIONS_API__: 'false',
      __VUE_PROD_DEVTOOLS__: 'false',
      __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    },
    plugins: [vuePlugin, sveltePlugin],
  });
  // The script runs inside an HTML <script>; keep a closing tag in a string from ending it.
  return text.replaceAll('</script', '<\\/script');
}

let env: BrowserEnv;

beforeAll(async () => {
  env = await startBrowserEnv({ 'setup-guide.yaml': SETUP });
});

afterAll(async () => {
  await env?.close();
});

async function open(framework: string, entry: string): Promise<{ page: Page; errors: string[]; userId: string }> {
  const userId = `${framework}-${process.pid}`;
  const config = JSON.stringify({ publicKey: PUBLIC_KEY, apiUrl: env.service.url, userId, autoMount: false });
  env.site.page(
    `/${framework}.html`,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${framework}</title></head><body><div id="root"></div>
      <script>window.ONBOARDING_CONFIG = ${config};</script>
      <script type="module">${await bundle(entry)}</script></body></html>`,
  );
  const page = await env.browser.context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    // The test site has no favicon; anything else logged is a finding.
    if (
      (message.type() === 'error' || message.type() === 'warning') &&
      !message.text().startsWith('Failed to load resource')
    )
      errors.push(message.text());
  });
  await page.goto(`${env.site.url}/${framework}.html`);
  return { page, errors, userId };
}

describe.each([
  ['react', 'examples/react/main.jsx'],
  ['vue', 'examples/vue/main.js'],
  ['svelte', 'examples/svelte/main.js'],
])('examples/%s', (framework, entry) => {
  it('draws the checklist element and follows the $flows store as a step is completed', async () => {
    const { page, errors, userId } = await open(framework, entry);
    const label = page.locator('onboarding-checklist [part="progress-label"]');
    await expect.poll(() => label.textContent()).toBe('0 of 3');
    await expect.poll(() => page.locator('#progress').textContent()).toBe('Setup 0%');
    expect(await page.locator('#next').textContent()).toBe('Done: One');

    await page.click('#next');
    await expect.poll(() => page.locator('#progress').textContent()).toBe('Setup 33%');
    await expect.poll(() => label.textContent()).toBe('1 of 3');
    expect(await page.locator('#next').textContent()).toBe('Done: Two');
    await expect
      .poll(async () => {
        const read = await env.service.call('GET', `/v1/public/flowStates?userId=${userId}`);
        return read.body.eligibleFlows[0].data.steps[0].$state.completed;
      })
      .toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});
