// Built-in strings of the elements, in English by default; a page translates them globally or per element.
import { $elementOptions, type ElementOptions } from '../../stores/options.js';

export interface OnboardingStrings {
  close: string;
  next: string;
  back: string;
  done: string;
  submit: string;
  skip: string;
  /** Tour and announcement counter; `{n}` and `{m}` are replaced. */
  stepOf: string;
  /** Checklist progress; `{n}` and `{m}` are replaced. */
  progress: string;
  completed: string;
  /** Title of a finished checklist. */
  allDone: string;
  skipped: string;
  locked: string;
  blocked: string;
  required: string;
  invalid: string;
  tooShort: string;
  tooLong: string;
  tooSmall: string;
  tooLarge: string;
  npsLow: string;
  npsHigh: string;
  /** Accessible name of rating choice `{n}` out of `{m}`. */
  rating: string;
  /** Accessible name of a hint's beacon; `{title}` is the step's title. */
  hint: string;
  /** The button of a hint whose step has none. */
  gotIt: string;
  /** The resource centre's search field. */
  search: string;
  /** A resource centre search that found nothing. */
  noResults: string;
  /** Accessible name of the resource centre's badge; `{n}` is the count. */
  unread: string;
  /** A flow in the resource centre the user has not started, and an unread announcement. */
  stateNew: string;
  /** A flow in the resource centre the user has started and not finished. */
  stateInProgress: string;
  /** A flow in the resource centre the user has completed. */
  stateDone: string;
}

/**
 * The built-in strings of the elements in the script tag's own file. The form's, the survey's and the hint's own
 * (form.strings.ts, survey.strings.ts, hint.strings.ts,
 * resource-center.strings.ts) come with them; DEFAULT_STRINGS in default-strings.ts holds all of them.
 */
export const BASE_STRINGS: Partial<OnboardingStrings> = {
  close: 'Close',
  next: 'Next',
  back: 'Back',
  done: 'Done',
  stepOf: 'Step {n} of {m}',
  progress: '{n} of {m}',
  completed: 'Completed',
  allDone: 'All done',
  skipped: 'Skipped',
  locked: 'Locked',
  blocked: 'Not available yet',
};

/**
 * A built-in string: the page's override (the `strings` option of init, or setStrings), else the locale's (its strings
 * chunk), else English; undefined when it is an element's own English one.
 */
export const pageString = (options: ElementOptions, key: keyof OnboardingStrings): string | undefined =>
  options.strings?.[key] ?? options.localeStrings?.[key] ?? BASE_STRINGS[key];

/** Translates built-in strings for every element on the page, e.g. `setStrings({ next: 'Weiter' })`. */
export function setStrings(strings: Partial<OnboardingStrings>): void {
  const options = $elementOptions.get();
  $elementOptions.set({ ...options, strings: { ...options.strings, ...(strings as Record<string, string>) } });
}

/**
 * The number format of the last locale a number was written in, kept: making one takes longer than formatting. It is
 * made only when a number is: Chromium's first `Intl.NumberFormat` of a page costs some 20 ms (its locale data), which
 * a page whose strings hold no number (a banner's Close) never pays.
 */
let numbers: Intl.NumberFormat | undefined;
let numbersLocale: string | undefined;

/** Fills `{name}` placeholders in a built-in string; numbers as `locale` writes them. */
export function format(template: string, values: Record<string, string | number> = {}, locale?: string): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => {
    const value = values[key];
    if (value === undefined) return whole;
    if (typeof value !== 'number' || !locale) return String(value);
    if (numbersLocale !== locale) numbers = new Intl.NumberFormat((numbersLocale = locale));
    return numbers!.format(value);
  });
}
