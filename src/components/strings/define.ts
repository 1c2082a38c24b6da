// What a language's strings chunk (onboarding-strings-<code>.js) does when it runs: hands its strings to the script that loaded it.
import type { OnboardingStrings } from '../shared/strings.js';

/** Where the script listens for a strings chunk; load-chunks.ts sets it before loading one. */
export const STRINGS_CHUNK = Symbol.for('onboarding.strings');

/** Every built-in string is required, so a language that misses one fails the type check. */
export function defineStrings(code: string, strings: OnboardingStrings): void {
  (globalThis as Record<symbol, ((code: string, strings: OnboardingStrings) => void) | undefined>)[STRINGS_CHUNK]?.(
    code,
    strings,
  );
}
