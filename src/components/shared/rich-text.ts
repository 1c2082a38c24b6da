// Safe rich text: parses a small tag subset into a tree and rebuilds it with Lit, so flow text can never run script.
import { html, nothing, type TemplateResult } from 'lit';
import { safeUrl } from '../../api/url.js';

/**
 * The rich-text subset flow titles and bodies may use:
 * `<b> <strong> <i> <em> <u> <s> <code> <br> <p> <ul> <ol> <li>` without attributes, and `<a href>` whose
 * address is http(s), mailto, tel, relative or a fragment. Entities `&amp; &lt; &gt; &quot; &#39; &nbsp;` and
 * numeric ones are decoded. Anything else, attributes included, is shown as plain text or dropped.
 * `${name}` is replaced by a user property, as text, after parsing, so a value can never become markup;
 * `${name|fallback}` shows `fallback` (plain text) when the property is missing or empty.
 */
export const RICH_TAGS = ['b', 'strong', 'i', 'em', 'u', 's', 'code', 'br', 'p', 'ul', 'ol', 'li', 'a'] as const;
type RichTag = (typeof RICH_TAGS)[number];

export type RichNode = string | { tag: RichTag; href?: string; children: RichNode[] };

export type Variables = Record<string, unknown>;

const TAG = /<(\/?)([a-zA-Z]+)((?:\s+[a-zA-Z-]+(?:\s*=\s*(?:"[^"<>]*"|'[^'<>]*'|[^\s"'<>=`]+))?)*)\s*\/?>/g;
const HREF = /\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>=`]+))/i;
const VARIABLE = /\$\{\s*([A-Za-z_][\w.-]{0,63})\s*(?:\|\s*([^{}]{0,200}?)\s*)?\}/g;
const ENTITY = /&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|amp|lt|gt|quot|apos|#39|nbsp);/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const VOID = new Set<string>(['br']);
/** Bounds nesting so a hostile definition cannot make rendering recurse without limit. */
const MAX_DEPTH = 16;

export function decodeEntities(text: string): string {
  return text.replace(ENTITY, (whole, name: string) => {
    const key = name.toLowerCase();
    if (key in NAMED) return NAMED[key];
    const code = key.startsWith('#x') ? parseInt(key.slice(2), 16) : parseInt(key.slice(1), 10);
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
  });
}

/** Replaces `${name}` (dotted paths allowed) with the variable's text; a missing or empty one becomes its `|fallback`, or nothing. */
export function substitute(text: string, variables: Variables, encode?: (value: string) => string): string {
  if (!text.includes('${')) return text;
  return text.replace(VARIABLE, (_whole, path: string, fallback: string | undefined) => {
    let value: unknown = variables;
    for (const key of path.split('.')) {
      value =
        value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, key)
          ? (value as Variables)[key]
          : undefined;
    }
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- no object is left here
    const known = value === undefined || value === null || typeof value === 'object' ? '' : String(value);
    const textValue = known || fallback || '';
    return encode ? encode(textValue) : textValue;
  });
}

/** Plain text with variables substituted and entities decoded; tags stay literal. */
export function plainText(source: unknown, variables: Variables = {}): string {
  return typeof source === 'string' ? substitute(decodeEntities(source), variables) : '';
}

/** Parses `source` into a tree of allow-listed nodes; variables are substituted into text and link addresses only. */
export function parseRichText(source: unknown, variables: Variables = {}): RichNode[] {
  if (typeof source !== 'string' || !source) return [];
  const root: RichNode[] = [];
  const stack: Array<{ tag: RichTag; children: RichNode[] }> = [];
  const current = () => (stack.length ? stack[stack.length - 1].children : root);
  const pushText = (raw: string) => {
    const text = substitute(decodeEntities(raw), variables);
    if (!text) return;
    const children = current();
    const last = children[children.length - 1];
    if (typeof last === 'string') children[children.length - 1] = last + text;
    else children.push(text);
  };
  let index = 0;
  for (const match of source.matchAll(TAG)) {
    const [whole, closing, rawName, attributes] = match;
    const name = rawName.toLowerCase() as RichTag;
    pushText(source.slice(index, match.index));
    index = match.index + whole.length;
    if (!RICH_TAGS.includes(name)) {
      pushText(whole);
      continue;
    }
    if (closing) {
      const at = stack.map((entry) => entry.tag).lastIndexOf(name);
      if (at >= 0) stack.length = at;
      continue;
    }
    const node: { tag: RichTag; href?: string; children: RichNode[] } = { tag: name, children: [] };
    if (name === 'a') {
      const href = HREF.exec(attributes ?? '');
      const raw = href ? (href[1] ?? href[2] ?? href[3] ?? '') : '';
      const url = safeUrl(substitute(decodeEntities(raw), variables, encodeURIComponent));
      if (url) node.href = url;
    }
    current().push(node);
    if (!VOID.has(name) && stack.length < MAX_DEPTH) stack.push(node);
  }
  pushText(source.slice(index));
  return root;
}

function renderNodes(nodes: RichNode[]): unknown[] {
  return nodes.map(renderNode);
}

function renderNode(node: RichNode): TemplateResult | string {
  if (typeof node === 'string') return node;
  const c = renderNodes(node.children);
  // One static template per tag: elements are never built from strings, so no attribute or tag can be injected.
  switch (node.tag) {
    case 'b':
      return html`<b>${c}</b>`;
    case 'strong':
      return html`<strong>${c}</strong>`;
    case 'i':
      return html`<i>${c}</i>`;
    case 'em':
      return html`<em>${c}</em>`;
    case 'u':
      return html`<u>${c}</u>`;
    case 's':
      return html`<s>${c}</s>`;
    case 'code':
      return html`<code>${c}</code>`;
    case 'br':
      return html`<br />`;
    case 'p':
      return html`<p>${c}</p>`;
    case 'ul':
      return html`<ul>
        ${c}
      </ul>`;
    case 'ol':
      return html`<ol>
        ${c}
      </ol>`;
    case 'li':
      return html`<li>${c}</li>`;
    case 'a':
      return node.href
        ? html`<a part="link" href=${node.href} target="_blank" rel="noopener noreferrer nofollow">${c}</a>`
        : html`<span>${c}</span>`;
  }
}

/** Renders `source` as safe rich text, or `nothing` when it is empty. */
export function richText(source: unknown, variables: Variables = {}): unknown {
  const nodes = parseRichText(source, variables);
  return nodes.length ? renderNodes(nodes) : nothing;
}
