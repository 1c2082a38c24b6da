// Finds Debian's Chromium (installing it where the machine allows) and launches it through playwright-core.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function findChromium(): string | undefined {
  const fromEnv = process.env.CHROME_PATH;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  return CANDIDATES.find((path) => existsSync(path));
}

/** Returns a Chromium path; on Debian as root it installs the `chromium` package when none is found. */
export function ensureChromium(): string {
  const found = findChromium();
  if (found) return found;
  if (process.env.CHROME_PATH) {
    throw new Error(`CHROME_PATH is set to ${process.env.CHROME_PATH}, but no file is there. Point it at a Chromium or Chrome binary.`);
  }
  const canInstall = existsSync('/etc/debian_version') && process.getuid?.() === 0;
  if (!canInstall) {
    throw new Error(
      'The browser tests need Chromium. Install it (Debian/Ubuntu: `sudo apt-get install -y chromium`) ' +
        'or set CHROME_PATH to a Chromium or Chrome binary, then run `npm test` again.',
    );
  }
  process.stderr.write('Chromium not found: installing it with apt-get (Debian package "chromium")…\n');
  execFileSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('apt-get', ['install', '-y', 'chromium'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  const installed = findChromium();
  if (!installed) throw new Error('apt-get installed "chromium", but no binary is at /usr/bin/chromium.');
  return installed;
}

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
