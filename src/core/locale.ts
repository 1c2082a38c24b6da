// Which language the flows are read in: init's or setLocale's code, else the user property `locale`, else the browser's.
import type { Properties } from '../api/wire.js';
import { reportError } from './errors.js';

/** Each refused value, so a bad code is reported once however often it is resolved again. */
const refused = new Set<unknown>();

/** `code` as a canonical BCP 47 tag (`fr-ca` → `fr-CA`); undefined, reported once as `bad-value`, when it is none. */
function canonical(code: unknown, source: string): string | undefined {
  try {
    if (typeof code === 'string') return Intl.getCanonicalLocales(code)[0];
  } catch {
    // A malformed tag: refused below.
  }
  if (!refused.has(code)) {
    refused.add(code);
    reportError('bad-value', new Error(`${source} is not a language tag like "fr-CA"; flows show their own text.`));
  }
  return undefined;
}

/**
 * The locale reads ask for: `chosen` (init's `locale` or setLocale's), else the user property `locale`, else the
 * browser's language. A bad code falls back to none (each flow's own text), not to the next source.
 */
export function resolveLocale(chosen: unknown, properties: Properties): string | undefined {
  if (chosen !== undefined) return canonical(chosen, 'The locale given to init or setLocale');
  if (properties.locale !== undefined) return canonical(properties.locale, 'The user property "locale"');
  return typeof navigator !== 'undefined' && navigator.language
    ? canonical(navigator.language, 'navigator.language')
    : undefined;
}
