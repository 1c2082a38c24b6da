// The string formats of the flow schema that JSON Schema cannot say: `date-time` (a schedule's moment), `css-selector` (a target selector), `path-pattern` (a step's page), `link` (a button's address) and `resource-link` (a resource centre's link).
import { createParser } from 'css-selector-parser';
import { safeUrl } from '../../src/api/url.js';

/** What joins the parts of a target selector: each part is looked up inside the open shadow root or same-origin iframe the part before it found. */
export const SELECTOR_PART_SEPARATOR = '>>>';

// Selectors level 4 and what browsers take beyond it. Pseudo-class and pseudo-element names are not checked: new and
// vendor ones (`:open`, `::-webkit-scrollbar`) are valid in some browser. Namespace prefixes (`svg|rect`) are refused:
// querySelector cannot resolve them.
const parseSelector = createParser({ syntax: { baseSyntax: 'progressive', namespace: false } });

/** Why one CSS selector (no `>>>`) is not one; undefined when it is. */
function cssProblem(text: string): string | undefined {
  try {
    const parsed = parseSelector(text);
    // The parser stops at a ")" it did not open, as if the selector ended there: a rule appended after the text
    // shows whether all of it was read.
    const probe = parseSelector(`${text},#end-of-selector`);
    const last = probe.rules.at(-1);
    if (
      probe.rules.length !== parsed.rules.length + 1 ||
      last?.items[0]?.type !== 'Id' ||
      last.items[0].name !== 'end-of-selector'
    ) {
      return 'a ")" closes nothing';
    }
    return undefined;
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).replace(
      /^css-selector-parser parse error:\s*/,
      '',
    );
    const at = /\s*Pos: (\d+)\.?$/.exec(message);
    const reason = (at ? message.slice(0, at.index) : message).replace(/\.$/, '');
    return `${reason.charAt(0).toLowerCase()}${reason.slice(1)}${at ? ` (at character ${Number(at[1]) + 1})` : ''}`;
  }
}

/** `text` in quotes, cut at 60 characters. */
const quote = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);

/**
 * Why `text` is not a target selector, in words; undefined when it is. A target selector is CSS selectors joined by
 * `>>>` (`my-app >>> .save`, `iframe#editor >>> .toolbar`), each checked on its own.
 */
export function selectorProblem(text: string): string | undefined {
  if (text.trim() === '') return 'expected a CSS selector, got an empty string';
  const parts = text.split(SELECTOR_PART_SEPARATOR);
  for (const [index, raw] of parts.entries()) {
    const part = raw.trim();
    if (part === '') return `${quote(text)} has an empty part: ">>>" needs a selector on each side`;
    const problem = cssProblem(part);
    if (!problem) continue;
    const which = parts.length > 1 ? `${quote(part)} (part ${index + 1} of ${quote(text)})` : quote(part);
    return `${which} is not a CSS selector: ${problem}`;
  }
  return undefined;
}

const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A `:name` inside a segment: text, but what scripts before the one in src/page/pages.ts read as a parameter. */
const NAME_IN_SEGMENT = /:[A-Za-z_]\w*/g;

/**
 * Why `text` is not a page pattern, in words; undefined when it is. A page pattern is a path: it starts with `/`,
 * has no query or fragment, a segment that is exactly `:name` stands for that segment, `*`, only at the end, for one
 * or more characters of the rest of the path, and anything else for itself (the script's `pageMatches` reads it so).
 * A trailing `/` is ignored. A segment holding two `:name`s, or one and the final `*`, is refused: earlier scripts
 * made each a quantifier, side by side, and a link crafted for it could freeze a visitor's tab.
 */
export function pagePatternProblem(text: string): string | undefined {
  const subject = quote(text);
  if (!text.startsWith('/'))
    return `${subject} is not a path: a page pattern starts with "/" (such as /reports/* or /projects/:id/settings)`;
  const bad = /[?#]/.exec(text);
  if (bad) return `${subject} holds "${bad[0]}": a page pattern is a path, without query or fragment`;
  if (/[\s\u0000-\u001f\u007f]/.test(text)) return `${subject} holds white space or a control character`;
  const segments = text.slice(1).split('/');
  // A trailing "/" is ignored: "/reports/" is "/reports", and "/" has no segment.
  if (segments.at(-1) === '') segments.pop();
  const path = `/${segments.join('/')}`;
  const star = path.indexOf('*');
  if (star !== -1 && star !== path.length - 1)
    return `${subject}: "*" may only end the pattern (it matches the rest of the path)`;
  const names = new Set<string>();
  for (const [index, segment] of segments.entries()) {
    if (segment === '') return `${subject} has an empty segment ("//")`;
    if (!segment.startsWith(':')) {
      const inside = segment.match(NAME_IN_SEGMENT) ?? [];
      if (inside.length + (index === segments.length - 1 && star !== -1 ? 1 : 0) > 1) {
        return `${subject}: ":" inside a segment is text, and a parameter is a whole segment (such as /x/:id); "${segment}" is refused: earlier versions of the script read a ":name" in it as a parameter, beside another or the "*", and such a pattern can take seconds to match`;
      }
      continue;
    }
    const name = segment.slice(1);
    if (!PARAMETER_NAME.test(name)) {
      return `${subject}: a segment starting with ":" is a parameter, named with letters, digits and "_" (such as :id), not "${segment}"`;
    }
    if (names.has(name)) return `${subject} names the parameter ":${name}" twice`;
    names.add(name);
  }
  return undefined;
}

/**
 * Why `text` is not a link our elements follow, in words; undefined when it is. The elements drop any other address
 * (src/api/url.ts), so the service refuses it where the author can still see it.
 */
export function linkProblem(text: string): string | undefined {
  if (text.trim() === '' || safeUrl(text) !== undefined) return undefined;
  return `${quote(text)} is not a link the elements follow: expected http, https, mailto, tel, a relative address or a #fragment`;
}

/**
 * Why `text` is not a resource centre's link, in words; undefined when it is: an http(s) address with a host, a
 * `mailto:`, or a relative path (no scheme, and not `//host`, which leaves the site). Narrower than a button's `link`:
 * the centre's links are pages and mail, and a `tel:` or a `#fragment` there is more likely a slip than meant.
 */
export function resourceLinkProblem(text: string): string | undefined {
  const expected = 'expected an http(s) address, a mailto: address or a relative path (such as /docs or guide.html)';
  if (text.trim() === '' || /[\s\u0000-\u001f\u007f]/.test(text)) return `${quote(text)} is not a link: ${expected}`;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    if (text.startsWith('//') || text.startsWith('\\') || text.startsWith('#'))
      return `${quote(text)} is not a relative path: ${expected}`;
    return undefined;
  }
  if (scheme === 'mailto') return text.length > 'mailto:'.length ? undefined : `${quote(text)} names no address`;
  if (scheme === 'http' || scheme === 'https') {
    try {
      if (new URL(text).host) return undefined;
    } catch {
      // Reported below.
    }
    return `${quote(text)} is not an address: ${expected}`;
  }
  return `${quote(text)} is not a link a resource centre follows (${scheme}:): ${expected}`;
}

/** The formats, by the name the schema gives them, each with why a value does not fit (undefined: it fits). */
export const FLOW_FORMATS: Record<string, (text: string) => string | undefined> = {
  'date-time': dateTimeProblem,
  'css-selector': selectorProblem,
  'path-pattern': pagePatternProblem,
  link: linkProblem,
  'resource-link': resourceLinkProblem,
};

/** An ISO 8601 date-time with its offset: `2026-12-01T09:00:00+01:00`, `2026-12-01T08:00Z` (seconds and fractions optional). */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)?$/;

/** Why `text` is not a date-time with an offset, in words; undefined when it is. */
export function dateTimeProblem(text: string): string | undefined {
  const match = DATE_TIME.exec(text.trim());
  const example = 'such as 2026-12-01T09:00:00+01:00 or 2026-12-01T08:00:00Z';
  if (!match) return `${quote(text)} is not an ISO 8601 date-time; expected a date, a time and an offset, ${example}`;
  if (!match[7])
    return `${quote(text)} has no offset, so its moment depends on the server's time zone; add one, ${example}`;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0));
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59)
    return `${quote(text)} is not a real date and time`;
  return undefined;
}

/** The epoch milliseconds of a date-time that dateTimeProblem accepts. */
export const dateTimeMs = (text: string): number => Date.parse(text.trim());
