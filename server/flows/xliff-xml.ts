// The strict XML parser under the XLIFF reader: saxes, namespaces resolved, into a tree of elements and text; no DOCTYPE,
// bounded depth and element count, and every fault an XliffError that names its line.
import { SaxesParser } from 'saxes';

/** A fault in the XLIFF text, at its line. */
export class XliffError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

/** An element of the parsed tree: its local name and namespace, its attributes that have no prefix, and its first line. */
export interface Element {
  name: string;
  uri: string;
  attributes: Map<string, string>;
  children: Array<Element | string>;
  line: number;
}

/** A character XML does not allow, in the text or an attribute of `element`. */
interface CharacterFault {
  element: Element;
  line: number;
  code: number;
}

/** How deep and how many elements a parse takes before it refuses the text. */
export interface XmlLimits {
  depth: number;
  elements: number;
}

const isXmlChar = (code: number) =>
  code === 0x9 ||
  code === 0xa ||
  code === 0xd ||
  (code >= 0x20 && code <= 0xd7ff) ||
  (code >= 0xe000 && code <= 0xfffd) ||
  (code >= 0x10000 && code <= 0x10ffff);

/** `U+0001`: how a report names a character it cannot print. */
export const codePointName = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** The line `offset` is on, counting line breaks as XML does (`\r\n`, `\r` and `\n` are one each). */
const lineAt = (text: string, offset: number) => 1 + (text.slice(0, offset).match(/\r\n?|\n/g)?.length ?? 0);

/** Anything that may be an entity or character reference: what follows "&" up to ";", with no space or markup. */
const REFERENCE = /&[^\s&<>"';]+;/y;

/** The first "&" in `text` from `from` to `to` that starts no reference, or -1. */
function bareAmpersand(text: string, from: number, to: number): number {
  for (let at = text.indexOf('&', from); at >= 0 && at < to; at = text.indexOf('&', at + 1)) {
    REFERENCE.lastIndex = at;
    if (!REFERENCE.test(text)) return at;
  }
  return -1;
}

/**
 * Parses `text` with saxes, namespaces resolved, into a tree of its elements and text (CDATA as text; comments and
 * processing instructions dropped). A DOCTYPE is refused, so no entity is ever declared or expanded; an element past
 * `limits` is refused as it opens. Every fault is an {@link XliffError} at its line but a character XML does not allow
 * (a NUL, an unpaired surrogate), which is kept with its element: the reader refuses the unit whose target holds it, and
 * the rest of the file goes on.
 */
export function parseXml(text: string, limits: XmlLimits): { root: Element; faults: CharacterFault[] } {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: Element[] = [];
  const faults: CharacterFault[] = [];
  let root: Element | undefined;
  let count = 0;
  let closing = false;
  // Where the last event ended. A "&" that starts no reference is after it: the parser reads on to the next ";" for
  // the reference's end, wherever that is, and reports its fault there.
  let settled = 0;
  const settle = () => {
    settled = parser.position;
  };
  parser.on('opentagstart', (tag) => {
    const line = parser.line;
    if (stack.length + 1 > limits.depth)
      throw new XliffError(
        line,
        `<${tag.name}> is nested ${stack.length + 1} deep, deeper than the ${limits.depth} levels a translations file may have`,
      );
    if (++count > limits.elements)
      throw new XliffError(
        line,
        `<${tag.name}> is element ${count.toLocaleString('en')}, more than the ${limits.elements.toLocaleString('en')} a translations file may have`,
      );
    // Named and placed now, so that a fault in its attributes is its own; its namespace is known once they are read.
    const element: Element = { name: tag.name, uri: '', attributes: new Map(), children: [], line };
    if (stack.length) stack.at(-1)!.children.push(element);
    else root = element;
    stack.push(element);
    settle();
  });
  parser.on('opentag', (tag) => {
    const element = stack.at(-1)!;
    element.name = tag.local;
    element.uri = tag.uri;
    for (const attribute of Object.values(tag.attributes))
      if (attribute.uri === '') element.attributes.set(attribute.local, attribute.value);
    settle();
  });
  // The element a close tag last ended: when the next one closes what is not open, the parser has just popped it.
  let closed: Element | undefined;
  parser.on('closetag', () => {
    closed = stack.pop();
    settle();
  });
  const addText = (value: string) => {
    stack.at(-1)?.children.push(value);
    settle();
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('comment', settle);
  parser.on('processinginstruction', settle);
  parser.on('xmldecl', settle);
  parser.on('doctype', () => {
    throw new XliffError(parser.line, 'a DOCTYPE: XLIFF needs none, and it is refused');
  });
  parser.on('error', (error) => {
    const at = parser.position;
    const message = error.message.replace(/^\d+:\d+: /, '').replace(/\.$/, '');
    if (message === 'disallowed character' || message === 'malformed character entity') {
      const reference = /^&#(x[0-9a-f]+|[0-9]+);$/i.exec(text.slice(text.lastIndexOf('&', at - 1), at))?.[1];
      const code =
        message === 'disallowed character'
          ? text.codePointAt(at - 1)
          : reference && parseInt(reference.replace(/^x/i, '0x'));
      const element = stack.at(-1);
      // The parser goes on past these, keeping the character (or the reference as written) in the text.
      if (element && typeof code === 'number' && code <= 0x10ffff && !isXmlChar(code)) {
        faults.push({ element, line: parser.line, code });
        return;
      }
    }
    if (closing || message === 'disallowed character in entity name' || message === 'empty entity name') {
      const bare = bareAmpersand(text, settled, at);
      if (bare >= 0) throw new XliffError(lineAt(text, bare), '"&" that starts no entity reference: write &amp;');
    }
    if (message === 'unexpected close tag' && closed) {
      const name = /^<\/([^\s>]*)/.exec(text.slice(text.lastIndexOf('</', at - 1)))?.[1];
      throw new XliffError(parser.line, `</${name}> closes <${closed.name}> (line ${closed.line})`);
    }
    // The parser's own words, with what they are about when it is at hand.
    if (message === 'undefined entity')
      throw new XliffError(
        parser.line,
        `unknown entity ${text.slice(text.lastIndexOf('&', at - 1), at)}: XML has &lt; &gt; &amp; &quot; &apos; and character references such as &#233;`,
      );
    if (message === 'malformed character entity')
      throw new XliffError(
        parser.line,
        `malformed character reference ${text.slice(text.lastIndexOf('&', at - 1), at)}`,
      );
    if (message === 'disallowed character' && at > 0)
      throw new XliffError(
        parser.line,
        `disallowed character ${JSON.stringify(String.fromCodePoint(text.codePointAt(at - 1)!))}`,
      );
    throw new XliffError(parser.line, message);
  });
  parser.write(text);
  closing = true;
  parser.close();
  return { root: root!, faults };
}

/** The text of <source> or <target>; inline codes are not in what we write, so they are refused. */
export function textOf(element: Element): string {
  return element.children
    .map((child) => {
      if (typeof child === 'string') return child;
      throw new XliffError(
        child.line,
        `<${child.name}> inside <${element.name}>: write variables and markup as text, as the export does`,
      );
    })
    .join('');
}
