// Address checks for links and media taken from flow definitions: only schemes that cannot run script pass.

const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:', 'tel:']);
const MEDIA_SCHEMES = new Set(['http:', 'https:']);
// Control characters and whitespace let "java\tscript:" slip past naive checks; browsers strip them, so do we first.
const STRIPPED = /[\u0000-\u0020\u007f-\u009f\u200b-\u200f\u2028\u2029\ufeff]/g;

function check(value: unknown, schemes: Set<string>): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (!trimmed || trimmed.length > 2048) return undefined;
  const compact = trimmed.replace(STRIPPED, '');
  // A scheme is letters followed by ":" before any "/", "?" or "#"; without one the address is relative.
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(compact);
  if (scheme) return schemes.has(scheme[1].toLowerCase() + ':') ? trimmed : undefined;
  // Protocol-relative and backslash forms are resolved by the browser to another origin's scheme; still no script.
  return trimmed;
}

/** `value` when it is a safe link address (http, https, mailto, tel, relative or #fragment), else undefined. */
export function safeUrl(value: unknown): string | undefined {
  return check(value, LINK_SCHEMES);
}

/** `value` when it is a safe image or video address (http, https or relative), else undefined. */
export function safeMediaUrl(value: unknown): string | undefined {
  return check(value, MEDIA_SCHEMES);
}

const TARGETS = new Set(['_self', '_blank', '_parent', '_top']);

/** A link target from a definition: only the four keywords, defaulting to `_self`. */
export function safeTarget(value: unknown): string {
  return typeof value === 'string' && TARGETS.has(value) ? value : '_self';
}
