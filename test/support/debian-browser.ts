// Finds a browser's binary, or installs its Debian package where the machine allows (Debian, as root).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface BrowserPackage {
  /** The name the messages use: "Chromium", "Firefox ESR". */
  label: string;
  /** The Debian package that provides it. */
  debianPackage: string;
  /** An environment variable that, when set, names the binary instead. */
  pathVariable: string;
  /** Where the package puts the binary, in order of preference. */
  candidates: string[];
}

/** The binary: from the environment variable when set, else the first candidate that exists. */
export function findBrowser(browser: BrowserPackage): string | undefined {
  const fromEnv = process.env[browser.pathVariable];
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  return browser.candidates.find((path) => existsSync(path));
}

/** Returns the binary; on Debian as root it installs the package when none is found. */
export function ensureBrowser(browser: BrowserPackage): string {
  const found = findBrowser(browser);
  if (found) return found;
  const { label, debianPackage, pathVariable } = browser;
  if (process.env[pathVariable]) {
    throw new Error(
      `${pathVariable} is set to ${process.env[pathVariable]}, but no file is there. Point it at a ${label} binary.`,
    );
  }
  const canInstall = existsSync('/etc/debian_version') && process.getuid?.() === 0;
  if (!canInstall) {
    throw new Error(
      `The browser tests need ${label}. Install it (Debian/Ubuntu: \`sudo apt-get install -y ${debianPackage}\`) ` +
        `or set ${pathVariable} to a ${label} binary, then run \`npm test\` again.`,
    );
  }
  process.stderr.write(`${label} not found: installing it with apt-get (Debian package "${debianPackage}")…\n`);
  execFileSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('apt-get', ['install', '-y', debianPackage], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  const installed = findBrowser(browser);
  if (!installed)
    throw new Error(`apt-get installed "${debianPackage}", but no binary is at ${browser.candidates.join(' or ')}.`);
  return installed;
}
