// Finds Debian's Chromium (installing it where the machine allows) and launches it through playwright-core.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { ensureBrowser, findBrowser, type BrowserPackage } from './debian-browser.js';

const CHROMIUM: BrowserPackage = {
  label: 'Chromium',
  debianPackage: 'chromium',
  pathVariable: 'CHROME_PATH',
  candidates: ['/usr/bin/chromium', '/usr/bin/chromium-browser'],
};

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const findChromium = (): string | undefined => findBrowser(CHROMIUM);

/** Returns a Chromium path; on Debian as root it installs the `chromium` package when none is found. */
export const ensureChromium = (): string => ensureBrowser(CHROMIUM);

export interface LaunchedBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh headless Chromium with its own profile directory, removed on close. */
export async function launchChromium(): Promise<LaunchedBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'onboarding-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: ensureChromium(),
    headless: true,
    args: CHROMIUM_ARGS,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
