// Finds Debian's Firefox ESR (installing it where the machine allows) and launches it headless through puppeteer-core over WebDriver BiDi.
import puppeteer, { type Browser } from 'puppeteer-core';
import { ensureBrowser, findBrowser, type BrowserPackage } from './debian-browser.js';

const FIREFOX: BrowserPackage = {
  label: 'Firefox ESR',
  debianPackage: 'firefox-esr',
  pathVariable: 'FIREFOX_PATH',
  candidates: ['/usr/bin/firefox-esr', '/usr/bin/firefox'],
};

export const findFirefox = (): string | undefined => findBrowser(FIREFOX);

/** Returns a Firefox path; on Debian as root it installs the `firefox-esr` package when none is found. */
export const ensureFirefox = (): string => ensureBrowser(FIREFOX);

/** A fresh headless Firefox on a temporary profile (puppeteer removes it on close). */
export function launchFirefox(): Promise<Browser> {
  return puppeteer.launch({
    browser: 'firefox',
    executablePath: ensureFirefox(),
    headless: true,
    // Loopback only: no updates, telemetry or remote settings while tests run.
    extraPrefsFirefox: {
      'app.update.enabled': false,
      'datareporting.policy.dataSubmissionEnabled': false,
      'toolkit.telemetry.enabled': false,
      'network.captive-portal-service.enabled': false,
      'browser.safebrowsing.malware.enabled': false,
      'browser.safebrowsing.phishing.enabled': false,
    },
  });
}
