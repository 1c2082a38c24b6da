// One small page API over three drivers, so a journey file runs unchanged on Chromium (playwright-core), Firefox (puppeteer-core over
// WebDriver BiDi) and WebKit (WebKitGTK's MiniBrowser over classic WebDriver).
import { chromium } from 'playwright-core';
import type { Browser as PuppeteerBrowser, Page as PuppeteerPage } from 'puppeteer-core';
import { CHROMIUM_ARGS, ensureChromium } from './chromium.js';
import { ensureFirefox, launchFirefox } from './firefox.js';
import { ensureWebKit, launchWebKit } from './webkit.js';

export type EngineName = 'chromium' | 'firefox' | 'webkit';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The browser engine a project's journeys run on. */
    engine: EngineName;
  }
}

/**
 * Selectors are CSS, with `>>>` where a selector steps into an element's open shadow root:
 * `onboarding-banner >>> [part="title"]`. Puppeteer reads `>>>` as its deep combinator; Playwright's
 * CSS pierces open shadow roots by itself, so for it `>>>` is a plain descendant combinator.
 */
export type Selector = string;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface EnginePage {
  /**
   * Uncaught errors and console errors the page reported, failed resource loads left out. WebKit's driver cannot see
   * the console: there they are what ERROR_COLLECTOR saw, on pages that carry it.
   */
  errors(): Promise<string[]>;
  goto(url: string): Promise<void>;
  evaluate<R>(fn: () => R | Promise<R>): Promise<R>;
  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
  /** Waits until `fn(arg)` is truthy in the page. */
  waitForFunction<A>(fn: (arg: A) => unknown, arg?: A, timeout?: number): Promise<void>;
  /** Waits until the first match is visible. */
  waitFor(selector: Selector, timeout?: number): Promise<void>;
  /** A real click at the first match, once it is visible and enabled. */
  click(selector: Selector): Promise<void>;
  focus(selector: Selector): Promise<void>;
  /** Types into whatever has focus, key by key. */
  type(text: string): Promise<void>;
  /** Presses one key (`Enter`, `Escape`, `Tab`, `ArrowRight`, …). */
  press(key: string): Promise<void>;
  /** The first match's text, or null when nothing matches. */
  text(selector: Selector): Promise<string | null>;
  /** The first match's attribute, or null when nothing matches or it has none. */
  attribute(selector: Selector, name: string): Promise<string | null>;
  count(selector: Selector): Promise<number>;
  /** The first match's box in the viewport, or null. */
  box(selector: Selector): Promise<Box | null>;
  close(): Promise<void>;
}

export interface Engine {
  name: EngineName;
  /** The browser's product and version, as its driver reports it. */
  version: string;
  /** A page in a browser context of its own: a visitor with its own storage and cookies. */
  newPage(): Promise<EnginePage>;
  close(): Promise<void>;
}

/** A page's first script, for WebKit: it keeps the page's uncaught errors and console errors where the driver can read them. */
export const ERROR_COLLECTOR = `<script>
  window.onboardingTestErrors = [];
  addEventListener('error', (event) => onboardingTestErrors.push(String(event.message)));
  addEventListener('unhandledrejection', (event) => onboardingTestErrors.push(String(event.reason)));
  const consoleError = console.error;
  console.error = (...args) => { onboardingTestErrors.push(args.map(String).join(' ')); consoleError.apply(console, args); };
</script>`;

const VIEWPORT = { width: 1280, height: 720 };
const ACTION_TIMEOUT = 8000;
const isNoise = (text: string) => text.startsWith('Failed to load resource');

/** Makes sure the engine's browser is installed (where the machine allows), for a project's global setup. */
export function ensureEngine(name: EngineName): void {
  if (name === 'firefox') ensureFirefox();
  else if (name === 'webkit') ensureWebKit();
  else ensureChromium();
}

export function launchEngine(name: EngineName): Promise<Engine> {
  if (name === 'webkit') return launchWebKit();
  return name === 'firefox' ? launchFirefoxEngine() : launchChromiumEngine();
}

async function launchChromiumEngine(): Promise<Engine> {
  const browser = await chromium.launch({ executablePath: ensureChromium(), headless: true, args: CHROMIUM_ARGS });
  return {
    name: 'chromium',
    version: `chromium/${browser.version()}`,
    async newPage() {
      const context = await browser.newContext({ viewport: VIEWPORT });
      const page = await context.newPage();
      page.setDefaultTimeout(ACTION_TIMEOUT);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error' && !isNoise(message.text())) errors.push(message.text());
      });
      const locate = (selector: Selector) => page.locator(selector.replace(/\s*>>>\s*/g, ' ')).first();
      const ifAny = async <R>(
        selector: Selector,
        read: (l: ReturnType<typeof locate>) => Promise<R>,
      ): Promise<R | null> => {
        const found = locate(selector);
        return (await found.count()) > 0 ? read(found) : null;
      };
      return {
        errors: async () => errors,
        goto: async (url) => void (await page.goto(url)),
        evaluate: (fn: (arg: unknown) => unknown, arg?: unknown) => page.evaluate(fn, arg),
        waitForFunction: async (fn, arg, timeout = ACTION_TIMEOUT) =>
          void (await page.waitForFunction(fn as (arg: unknown) => unknown, arg, { timeout })),
        waitFor: (selector, timeout) => locate(selector).waitFor({ state: 'visible', timeout }),
        click: (selector) => locate(selector).click(),
        focus: (selector) => locate(selector).focus(),
        type: (text) => page.keyboard.type(text),
        press: (key) => page.keyboard.press(key),
        text: (selector) => ifAny(selector, (l) => l.textContent()),
        attribute: (selector, name) => ifAny(selector, (l) => l.getAttribute(name)),
        count: (selector) => page.locator(selector.replace(/\s*>>>\s*/g, ' ')).count(),
        box: (selector) => ifAny(selector, (l) => l.boundingBox()),
        close: () => context.close(),
      };
    },
    close: () => browser.close(),
  };
}

async function launchFirefoxEngine(): Promise<Engine> {
  const browser: PuppeteerBrowser = await launchFirefox();
  return {
    name: 'firefox',
    version: await browser.version(),
    async newPage() {
      const context = await browser.createBrowserContext();
      const page: PuppeteerPage = await context.newPage();
      await page.setViewport(VIEWPORT);
      page.setDefaultTimeout(ACTION_TIMEOUT);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error instanceof Error ? error.message : String(error)));
      page.on('console', (message) => {
        if (message.type() === 'error' && !isNoise(message.text())) errors.push(message.text());
      });
      const ifAny = async <R>(selector: Selector, read: (element: Element) => R): Promise<Awaited<R> | null> => {
        const handle = await page.$(selector);
        if (!handle) return null;
        try {
          // puppeteer's evaluate is typed by the function's own result, which this generic wrapper cannot name.
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
          return (await handle.evaluate(read)) as Awaited<R>;
        } finally {
          await handle.dispose();
        }
      };
      return {
        errors: async () => errors,
        goto: async (url) => void (await page.goto(url)),
        evaluate: (fn: (arg: unknown) => unknown, arg?: unknown) => page.evaluate(fn, arg),
        waitForFunction: async (fn, arg, timeout = ACTION_TIMEOUT) =>
          void (await page.waitForFunction(fn as (arg: unknown) => unknown, { timeout, polling: 50 }, arg)),
        waitFor: async (selector, timeout = ACTION_TIMEOUT) =>
          void (await page.waitForSelector(selector, { visible: true, timeout })),
        click: (selector) => page.locator(selector).click(),
        focus: (selector) => page.focus(selector),
        type: (text) => page.keyboard.type(text),
        press: (key) => page.keyboard.press(key as Parameters<PuppeteerPage['keyboard']['press']>[0]),
        text: (selector) => ifAny(selector, (element) => element.textContent),
        attribute: async (selector, name) => {
          const handle = await page.$(selector);
          if (!handle) return null;
          try {
            return await handle.evaluate((element, attribute) => element.getAttribute(attribute), name);
          } finally {
            await handle.dispose();
          }
        },
        count: async (selector) => (await page.$$(selector)).length,
        box: async (selector) => {
          const handle = await page.$(selector);
          if (!handle) return null;
          try {
            return await handle.evaluate((element) => {
              const { x, y, width, height } = element.getBoundingClientRect();
              return { x, y, width, height };
            });
          } finally {
            await handle.dispose();
          }
        },
        close: () => context.close(),
      };
    },
    close: () => browser.close(),
  };
}
