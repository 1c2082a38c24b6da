// PostHog's step content as our rich text: its HTML (or its editor's JSON) cut down to the safe subset flow text allows, with a leading heading as the title and what was dropped listed.
import { safeUrl } from '../../src/api/url.js';

/** The tags flow text keeps (src/components/shared/rich-text.ts, RICH_TAGS; a test holds the two equal). */
export const KEPT_TAGS = ['b', 'strong', 'i', 'em', 'u', 's', 'code', 'br', 'p', 'ul', 'ol', 'li', 'a'] as const;
/** Tags that mean one of ours. */
const SAME_AS: Record<string, string> = { del: 's', strike: 's', ins: 'u' };
/** Elements whose content is not text to show: dropped with everything inside them. */
const CONTENT_FREE = new Set(['script', 'style', 'template', 'noscript', 'head', 'title', 'svg', 'math', 'object']);
/** Elements that are content in themselves (media): none has a place in flow text. */
const MEDIA = new Set(['img', 'video', 'iframe', 'embed', 'audio', 'source', 'picture', 'canvas', 'track']);
const HEADING = /^h[1-6]$/;
const TAG = /<!--[\s\S]*?(?:-->|$)|<(\/?)([A-Za-z][A-Za-z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
const ATTRIBUTE = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;
/** Bounds the work on hostile input: a step's content is a few hundred bytes. */
const MAX_TAGS = 10_000;

/** One step's content, in our terms. */
export interface StepContent {
  /** The text of a heading that opened the content: the step's title. */
  title?: string;
  /** The rest, as rich text. */
  text?: string;
  /** The first image, for the step's `imageUri` and `imageAlt`. */
  image?: { uri: string; alt?: string };
  /** The first video file, for the step's `videoUri`. */
  video?: string;
  /** Markup dropped with its text kept (a tag, an attribute): listed, nothing lost to the reader. */
  dropped: string[];
  /** Content dropped with what it showed (a second image, an embedded frame, a script): someone must decide. */
  lost: string[];
}

/** PostHog's editor JSON (TipTap's `JSONContent`), as posthog-js declares it. */
export interface JsonContent {
  type?: string;
  attrs?: Record<string, unknown>;
  content?: JsonContent[];
  marks?: Array<{ type: string; attrs?: Record<string, unknown> }>;
  text?: string;
}

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, '&quot;');

/** TipTap's JSON as HTML, as posthog-js draws it when a step has no `contentHtml` (its links and images too). */
export function tipTapToHtml(node: unknown, depth = 0): string {
  if (typeof node === 'string') return escapeText(node);
  if (!node || typeof node !== 'object' || depth > 64) return '';
  const { type, attrs, content, marks, text } = node as JsonContent;
  if (type === 'text') {
    let html = escapeText(typeof text === 'string' ? text : '');
    for (const mark of Array.isArray(marks) ? marks : []) {
      const tag = { bold: 'strong', italic: 'em', underline: 'u', strike: 's', code: 'code' }[mark?.type];
      if (tag) html = `<${tag}>${html}</${tag}>`;
      else if (mark?.type === 'link' && typeof mark.attrs?.href === 'string')
        html = `<a href="${escapeAttribute(mark.attrs.href)}">${html}</a>`;
    }
    return html;
  }
  const inner = (Array.isArray(content) ? content : []).map((child) => tipTapToHtml(child, depth + 1)).join('');
  const level = typeof attrs?.level === 'number' && attrs.level >= 1 && attrs.level <= 6 ? attrs.level : 1;
  const source = typeof attrs?.src === 'string' ? attrs.src : '';
  const alt = typeof attrs?.alt === 'string' ? ` alt="${escapeAttribute(attrs.alt)}"` : '';
  switch (type) {
    case 'paragraph':
      return `<p>${inner}</p>`;
    case 'heading':
      return `<h${level}>${inner}</h${level}>`;
    case 'bulletList':
      return `<ul>${inner}</ul>`;
    case 'orderedList':
      return `<ol>${inner}</ol>`;
    case 'listItem':
      return `<li>${inner}</li>`;
    case 'hardBreak':
      return '<br>';
    case 'image':
      return source ? `<img src="${escapeAttribute(source)}"${alt}>` : '';
    default:
      return inner;
  }
}

/** The attributes of a tag, by lower-case name. */
function attributesOf(source: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const [, name, double, single, bare] of source.matchAll(ATTRIBUTE))
    attributes.set(name.toLowerCase(), double ?? single ?? bare ?? '');
  return attributes;
}

/** Decodes the entities an attribute's value may hold (`&amp;` in a link), for checking and writing it again. */
function decodeAttribute(text: string): string {
  return text.replace(/&(amp|quot|#39|apos|lt|gt);/g, (_whole, name: string) =>
    name === 'amp' ? '&' : name === 'quot' ? '"' : name === 'lt' ? '<' : name === 'gt' ? '>' : "'",
  );
}

/** An image or video address the elements load: http, https or relative. */
function mediaAddress(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const address = decodeAttribute(text).trim();
  return /^https?:\/\//i.test(address) || /^\/(?!\/)/.test(address) ? address : undefined;
}

/**
 * PostHog's step HTML in the rich-text subset. A heading that opens it becomes the title; a later heading is bold text
 * in a paragraph; `<del>`, `<strike>` and `<ins>` are `<s>` and `<u>`. The first image and the first video file go to
 * the step's media. Any other tag is dropped with its text kept, and any attribute but a link's `href` is dropped, each
 * listed in `dropped`; media beyond those and content that is not text (scripts, frames) are listed in `lost`.
 */
export function postHogContent(html: string): StepContent {
  const dropped = new Set<string>();
  const lost: string[] = [];
  const result: StepContent = { dropped: [], lost };
  let out = '';
  let title: string | undefined;
  /** Where the heading that opened the content started in `out`, while it is open. */
  let titleStart: number | undefined;
  let heading: string | undefined;
  /** The content-free element being skipped, and how deep. */
  let skipping: { tag: string; depth: number } | undefined;
  let seenContent = false;
  let index = 0;
  let count = 0;

  const text = (raw: string) => {
    if (skipping) return;
    if (raw.trim()) seenContent = true;
    out += raw.replace(/</g, '&lt;');
  };

  for (const match of html.matchAll(TAG)) {
    if (++count > MAX_TAGS) break;
    text(html.slice(index, match.index));
    index = match.index + match[0].length;
    if (match[0].startsWith('<!--')) continue;
    const [, closing, rawName, rawAttributes] = match;
    const name = rawName.toLowerCase();
    if (skipping) {
      if (name === skipping.tag) skipping.depth += closing ? -1 : 1;
      if (skipping.depth === 0) skipping = undefined;
      continue;
    }
    if (CONTENT_FREE.has(name)) {
      if (!closing && !rawAttributes.trimEnd().endsWith('/')) skipping = { tag: name, depth: 1 };
      if (!closing) lost.push(`<${name}> and its content`);
      continue;
    }
    const attributes = attributesOf(rawAttributes);
    if (MEDIA.has(name)) {
      if (closing) continue;
      const source = attributes.get('src');
      const address = mediaAddress(source);
      if (name === 'img' && address && !result.image) {
        const alt = attributes.get('alt');
        result.image = { uri: address, ...(alt ? { alt: decodeAttribute(alt) } : {}) };
        seenContent = true;
      } else if ((name === 'video' || name === 'source') && address && !result.video) {
        result.video = address;
        seenContent = true;
      } else if (name !== 'source' || !result.video) {
        lost.push(source ? `<${name} src="${decodeAttribute(source)}">` : `<${name}>`);
      }
      continue;
    }
    if (HEADING.test(name)) {
      if (!closing && !seenContent && title === undefined && titleStart === undefined) {
        titleStart = out.length;
        heading = name;
        continue;
      }
      if (closing && heading === name && titleStart !== undefined) {
        title = out.slice(titleStart).trim();
        out = out.slice(0, titleStart);
        titleStart = undefined;
        heading = undefined;
        continue;
      }
      out += closing ? '</b></p>' : '<p><b>';
      seenContent = true;
      continue;
    }
    const tag = SAME_AS[name] ?? name;
    if (!(KEPT_TAGS as readonly string[]).includes(tag)) {
      dropped.add(`<${name}>`);
      continue;
    }
    if (closing) {
      if (tag !== 'br') out += `</${tag}>`;
      continue;
    }
    let kept = '';
    for (const [attribute, value] of attributes) {
      if (tag === 'a' && attribute === 'href') {
        const href = decodeAttribute(value).trim();
        if (safeUrl(href)) kept = ` href="${escapeAttribute(href)}"`;
        else dropped.add(`the link ${JSON.stringify(href)} (not http, https, mailto, tel, relative or #fragment)`);
      } else if (!(tag === 'a' && (attribute === 'target' || attribute === 'rel'))) {
        dropped.add(`${attribute}="…" on <${name}>`);
      }
    }
    if (tag !== 'br' && tag !== 'p' && tag !== 'ul' && tag !== 'ol' && tag !== 'li') seenContent = true;
    out += `<${tag}${kept}>`;
  }
  text(html.slice(index));
  if (titleStart !== undefined) {
    // A heading never closed: its text is the title all the same.
    title = out.slice(titleStart).trim();
    out = out.slice(0, titleStart);
  }

  let body = out
    .replace(/<p>\s*<\/p>/g, '')
    .replace(/<li>\s*<\/li>/g, '')
    .trim();
  // One paragraph alone reads the same without its <p>.
  const single = /^<p>((?:(?!<\/?p>)[\s\S])*)<\/p>$/.exec(body);
  if (single) body = single[1].trim();
  if (title) result.title = title;
  if (body) result.text = body;
  result.dropped = [...dropped];
  return result;
}
