// The live preview's bookmarklet: the selector picker's whole code as a `javascript:` address, which an author drags
// to the bookmarks bar and clicks on a page of their own app. Nothing is fetched: it works wherever the app runs.

/**
 * `code` (dist/onboarding-picker.js) as a `javascript:` address. A browser percent-decodes the address before it runs
 * it, and drops line breaks and tabs from it, so `%`, control characters and non-ASCII text are percent-encoded; the
 * address ends in `void 0`, so the page stays as it is.
 */
export function bookmarkletHref(code: string): string {
  const body = code.replace(/\n\/\/# sourceMappingURL=\S*\s*$/, '').trim();
  return `javascript:${body.replace(/[%\0-\x1f\x7f-\u{10ffff}]/gu, (c) => encodeURIComponent(c))};void 0`;
}

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The link the preview page offers, or a note to build when the picker is not built. */
export function bookmarkletLink(code: string | undefined): string {
  if (code === undefined) return '<span class="bookmarklet missing">The picker is not built: run npm run build.</span>';
  return `<a id="bookmarklet" class="bookmarklet" href="${escapeAttribute(bookmarkletHref(code))}">Pick a selector</a>`;
}
