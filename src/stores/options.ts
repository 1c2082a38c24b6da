// Page-level options of the elements, set through Onboarding.init: auto-mount, the CSP nonce, translated strings and the locale.
import { atom } from 'nanostores';

export interface ElementOptions {
  /**
   * Mount eligible ANNOUNCEMENT, TOUR and SURVEY flows without markup: `true` for all, `false` for none,
   * or a list of slugs. @default true
   */
  autoMount: boolean | string[];
  /** Nonce for the `<style>` elements used where constructable stylesheets are missing (strict CSP). */
  nonce?: string;
  /** Overrides of the built-in strings (Close, Next, Back, "Step {n} of {m}", …). */
  strings?: Record<string, string>;
  /** The resolved locale (core/locale.ts); the elements take their direction and number format from it. */
  locale?: string;
  /** The built-in strings in that locale, once its chunk loaded; `strings` overrides them. */
  localeStrings?: Record<string, string>;
}

export const $elementOptions = atom<ElementOptions>({ autoMount: true });

/** Takes init's element options; an option init leaves out keeps its value. */
export function takeElementOptions({ autoMount, nonce, strings }: Partial<ElementOptions>): void {
  $elementOptions.set({
    ...$elementOptions.get(),
    ...(autoMount !== undefined ? { autoMount } : {}),
    ...(nonce !== undefined ? { nonce } : {}),
    ...(strings ? { strings } : {}),
  });
}
