// Which ids, data attributes and class names of a page are likely to survive a rebuild of the app, and which a build made.

/** Attributes teams add for their own end-to-end tests, most common first: the best hooks there are. */
export const TEST_ATTRIBUTES = [
  'data-testid',
  'data-test-id',
  'data-test',
  'data-cy',
  'data-qa',
  'data-e2e',
  'data-automation-id',
];

/** Framework counters: `ember123`, `mui-7`, `headlessui-menu-button-3`, `radix-5`, `react-select-2-input`, … */
const FRAMEWORK_COUNTER =
  /^(?:ember|ext-gen|ext-comp|yui_|gwt-uid|mui|headlessui|radix|react-select|react-aria|downshift|rc-|cdk-|mat-|ng-|vue-|jsx-|svelte-|tippy-|popper-|select2-|ui-id-|uid-)[\w-]*\d/i;

/** A segment of a name that a build or a hash function wrote, not a person. */
function hashLike(segment: string): boolean {
  // Letters and digits alternating (a1b2c3, 3kd9x, 1x2y3z).
  if ((segment.match(/\d[a-z]|[a-z]\d/gi) ?? []).length >= 2) return true;
  // Random mixed case (bdfBwQ, kQTMdH): twice within four characters, which camelCase words rarely do.
  if (/[a-z][A-Z][a-z]?[A-Z]|[A-Z]{2}[a-z][A-Z]/.test(segment)) return true;
  // Five or more letters without a vowel (xkpzq).
  return /^[b-df-hj-np-tv-xz]{5,}$/i.test(segment);
}

/**
 * Whether an id or attribute value looks generated: long digit runs (counters, timestamps), React's `useId`
 * (`:r1:`, `«r1»`, `_r_1_`), framework counters, uuid-like or hex runs, and hash-like segments.
 */
export function looksGenerated(value: string): boolean {
  if (!value || value.length > 64 || value.includes('>>>')) return true;
  if (/\d{4,}/.test(value) || /[:«»]/.test(value) || /^_r_\w+_$/.test(value)) return true;
  if (FRAMEWORK_COUNTER.test(value)) return true;
  if ((value.match(/[\da-f]{8,}/gi) ?? []).some((run) => /\d/.test(run) && /[a-f]/i.test(run))) return true;
  return value.split(/[-_.:/\s]+/).some(hashLike);
}

/** data-* attributes that carry state or a library's bookkeeping, not what an element is. */
const VOLATILE_DATA =
  /^data-(?:v-|react|radix|headlessui|emotion|styled|rbd|popper|floating|(?:state|active|selected|open|expanded|checked|disabled|focus|hover|highlighted|index|key|id|uid|orientation|side|align|placement|theme|status|loading|value|variant|size|position|visible|hidden|current)(?:$|-))/;

/** A data-* attribute other than a test hook whose value names the element in words: `data-section="pricing"`. */
export function isStableData(name: string, value: string): boolean {
  return (
    name.startsWith('data-') &&
    !VOLATILE_DATA.test(name) &&
    /^[a-z][\w-]{1,39}$/i.test(value) &&
    !/^(?:true|false|on|off|null|undefined)$/i.test(value) &&
    !looksGenerated(value)
  );
}

/** Utility, state and library class prefixes: real words, but about looks or state, not about what an element is. */
const NOT_SEMANTIC =
  /^(?:flex|grid|block|inline|hidden|text|font|bg|border|rounded|shadow|ring|[mpwh][xytblrse]?|min|max|gap|space|items|justify|self|overflow|absolute|relative|fixed|sticky|top|left|right|bottom|opacity|cursor|transition|leading|tracking|truncate|col|row|sr|container|visible|invisible|active|selected|open|disabled|focus|hover|current|show|collapse|expanded|loading|is|has|js|fa|ng|css|sc|jsx|svelte|astro|emotion|chakra|tw|dark|light|clearfix|pull|fade)(?:$|[-_])/;

/**
 * A class a person named, for what the element is: lowercase words of letters only (`save-button`, `card__title`,
 * `nav--main`), 3 to 40 characters, and no utility, state or library prefix. Anything with a digit, a capital
 * letter or another character is left out: that keeps out CSS modules, emotion, styled-components and utility
 * classes at the cost of some human ones.
 */
export function isHumanClass(name: string): boolean {
  return (
    name.length >= 3 &&
    name.length <= 40 &&
    /^[a-z]{2,}(?:(?:--?|__?)[a-z]{2,})*$/.test(name) &&
    !NOT_SEMANTIC.test(name) &&
    !looksGenerated(name)
  );
}
