// Elements in the resolved locale: the built-in strings loaded on demand, one chunk per language, under the page's overrides; right to left for Arabic and Hebrew; numbers in the locale's digits.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixture, fixtureCleanup, html } from '@open-wc/testing-helpers';
import { registerElements } from '../../src/components/register.js';
import { loadStringsOnDemand } from '../../src/components/chunks/load-chunks.js';
import { stringsFileOf } from '../../src/components/shared/locale.js';
import { format } from '../../src/components/shared/strings.js';
import { STRINGS_CHUNK } from '../../src/components/strings/define.js';
import { HASH_INDEX } from '../../src/components/chunks/hash-index.js';
import { $elementOptions } from '../../src/stores/options.js';
import { onError } from '../../src/core/errors.js';
import type { OnboardingBanner } from '../../src/components/banner/banner.component.js';
import { resetStores, seedFlow } from '../support/component-stores.js';

const SCRIPT = 'https://cdn.example/app/onboarding.js';
/** The scripts the script added to the page; kept out of the document, where happy-dom would fail to load them. */
const scripts: HTMLScriptElement[] = [];
const added = () => scripts.map((script) => script.src);
/** Runs a language's chunk, as the browser would once it loaded. */
const runChunk = (code: string, strings: Record<string, string>) =>
  (globalThis as Record<symbol, (code: string, strings: unknown) => void>)[STRINGS_CHUNK](code, strings);
const setLocale = (locale: string | undefined) => $elementOptions.set({ ...$elementOptions.get(), locale });
const closeLabel = (el: OnboardingBanner) =>
  el.shadowRoot!.querySelector('[part="close-button"]')!.getAttribute('aria-label');

beforeAll(() => {
  registerElements();
  // Each test runs the chunk itself, as the browser would once it loaded.
  vi.spyOn(document.head, 'append').mockImplementation(
    (...nodes) => void scripts.push(...(nodes as HTMLScriptElement[])),
  );
  loadStringsOnDemand(SCRIPT, () => undefined);
});
afterEach(() => {
  fixtureCleanup();
  resetStores();
});

const banner = () => seedFlow('hello', 'BANNER', { steps: [{ id: 's1', title: 'Big news' }] });

describe('the strings chunk of a locale', () => {
  it('matches the exact code, then the language; Simplified Chinese and any Portuguese have theirs, English and Traditional Chinese none', () => {
    expect(
      ['fr', 'fr-CA', 'de-AT', 'pt-PT', 'pt-BR', 'zh-CN', 'zh', 'zh-Hans-SG', 'ja-JP', 'ar-EG', 'he-IL', 'es-419'].map(
        stringsFileOf,
      ),
    ).toEqual(['fr', 'fr', 'de', 'pt-BR', 'pt-BR', 'zh-Hans', 'zh-Hans', 'zh-Hans', 'ja', 'ar', 'he', 'es']);
    expect(['en', 'en-GB', 'zh-TW', 'zh-Hant', 'ko', undefined].map(stringsFileOf)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('loads the languages’ hashes, then the language once, from beside the script, and elements redraw in it; the page’s strings override it', async () => {
    banner();
    const el = await fixture<OnboardingBanner>(html`<onboarding-banner flow="hello"></onboarding-banner>`);
    expect(closeLabel(el)).toBe('Close');
    setLocale('fr-CA');
    setLocale('fr');
    // First the hashes (checked by the script's own), then the language's chunk, checked by its hash from there.
    expect(added()).toEqual(['https://cdn.example/app/onboarding-hashes.js']);
    const hash = 'a'.repeat(64);
    (globalThis as Record<symbol, unknown>)[HASH_INDEX] = { 'onboarding-strings-fr': hash };
    scripts[0].onload!(new Event('load'));
    expect(added()).toEqual([
      'https://cdn.example/app/onboarding-hashes.js',
      'https://cdn.example/app/onboarding-strings-fr.js',
    ]);
    expect(scripts[1].integrity).toBe(`sha384-${hash}`);
    await import('../../src/components/strings/fr.js');
    await el.updateComplete;
    expect(closeLabel(el)).toBe('Fermer');
    $elementOptions.set({ ...$elementOptions.get(), strings: { close: 'Fermer la bannière' } });
    await el.updateComplete;
    expect(closeLabel(el)).toBe('Fermer la bannière');
  });

  it('goes back to English for a locale with no strings, and loads nothing for it', async () => {
    banner();
    setLocale('de');
    runChunk('de', { close: 'Schließen' });
    const el = await fixture<OnboardingBanner>(html`<onboarding-banner flow="hello"></onboarding-banner>`);
    expect(closeLabel(el)).toBe('Schließen');
    const before = added().length;
    setLocale('ko');
    await el.updateComplete;
    expect(closeLabel(el)).toBe('Close');
    expect(added()).toHaveLength(before);
  });

  it('reports strings-failed when the chunk did not run', async () => {
    const codes: string[] = [];
    const stop = onError((_error, code) => codes.push(code));
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    setLocale('ja');
    expect(added().at(-1)).toBe('https://cdn.example/app/onboarding-strings-ja.js');
    scripts.at(-1)!.onerror!(new Event('error'));
    stop();
    expect(codes).toEqual(['strings-failed']);
  });
});

describe('direction and numbers', () => {
  it('sets dir="rtl" on each element for Arabic and Hebrew, and takes it away for another locale', async () => {
    banner();
    const el = await fixture<OnboardingBanner>(html`<onboarding-banner flow="hello"></onboarding-banner>`);
    expect(el.hasAttribute('dir')).toBe(false);
    setLocale('he-IL');
    await el.updateComplete;
    expect(el.getAttribute('dir')).toBe('rtl');
    setLocale('ar');
    await el.updateComplete;
    expect(el.getAttribute('dir')).toBe('rtl');
    setLocale('fr');
    await el.updateComplete;
    expect(el.hasAttribute('dir')).toBe(false);
  });

  it('leaves a dir the page set alone in other locales', async () => {
    banner();
    setLocale('de');
    const el = await fixture<OnboardingBanner>(html`<onboarding-banner flow="hello" dir="ltr"></onboarding-banner>`);
    await el.updateComplete;
    expect(el.getAttribute('dir')).toBe('ltr');
  });

  it('writes numbers in built-in strings as the locale does', () => {
    expect(format('Step {n} of {m}', { n: 2, m: 5 })).toBe('Step 2 of 5');
    expect(format('{n} sur {m}', { n: 1200, m: 5 }, 'fr')).toBe(`${new Intl.NumberFormat('fr').format(1200)} sur 5`);
    expect(format('الخطوة {n} من {m}', { n: 2, m: 5 }, 'ar-EG')).toBe('الخطوة ٢ من ٥');
  });

  it('makes a number format only for a string that holds a number, and once per locale', () => {
    // A browser's first number format loads its locale data (some 20 ms in Chromium): a banner's Close must not pay it.
    const Real = Intl.NumberFormat;
    let made = 0;
    Intl.NumberFormat = class extends Real {
      constructor(...args: ConstructorParameters<typeof Real>) {
        super(...args);
        made++;
      }
    } as typeof Real;
    try {
      expect(format('Close', {}, 'sv')).toBe('Close');
      expect(format('{name} is here', { name: 'Ada' }, 'sv')).toBe('Ada is here');
      expect(made).toBe(0);
      expect(format('{n} av {m}', { n: 1200, m: 5 }, 'sv')).toBe(`${new Real('sv').format(1200)} av 5`);
      expect(format('Steg {n}', { n: 3 }, 'sv')).toBe('Steg 3');
      expect(made).toBe(1);
    } finally {
      Intl.NumberFormat = Real;
    }
  });
});
