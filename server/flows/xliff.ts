// XLIFF 2.0 for the translator's round trip: writes one <file> per flow file, and reads back the subset it writes with a strict XML parser that names the line of every fault.
import { TRANSLATION_FILE_LIMITS } from './translation-limits.js';

/** One text field as XLIFF carries it: the key in `name`, an NMTOKEN form of it in `id`. */
export interface XliffUnit {
  key: string;
  source: string;
  target?: string;
  /** Lines in the XLIFF file, for reports. */
  line: number;
  targetLine?: number;
}

export interface XliffFile {
  /** The flow file's name in its folder. */
  original: string;
  line: number;
  units: XliffUnit[];
}

export interface XliffDocument {
  srcLang: string;
  trgLang: string;
  files: XliffFile[];
}

/** A fault in the XLIFF text, at its line. */
export class XliffError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

const XLIFF_NS = 'urn:oasis:names:tc:xliff:document:2.0';

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/\r/g, '&#13;');
}

/**
 * An NMTOKEN for `id` (XLIFF 2.0 requires one, and `/` is not allowed in it): `/` becomes `.`, and every character but
 * letters, digits and `-` becomes `_` and its code in hex, so that two keys never share an id.
 */
export function unitId(key: string): string {
  return key.replace(/[^A-Za-z0-9-]/gu, (char) => (char === '/' ? '.' : `_${char.codePointAt(0)!.toString(16)}_`));
}

/** The XLIFF 2.0 text of `files`; a unit without a translation has no <target>. */
export function writeXliff(document: { srcLang: string; trgLang: string; files: Array<{ original: string; units: Array<{ key: string; source: string; target?: string }> }> }): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<xliff xmlns="${XLIFF_NS}" version="2.0" srcLang="${escapeXml(document.srcLang)}" trgLang="${escapeXml(document.trgLang)}">`,
  ];
  for (const file of document.files) {
    lines.push(`  <file id="${unitId(file.original)}" original="${escapeXml(file.original)}">`);
    for (const unit of file.units) {
      lines.push(
        `    <unit id="${unitId(unit.key)}" name="${escapeXml(unit.key)}">`,
        `      <segment${unit.target === undefined ? '' : ' state="translated"'}>`,
        `        <source>${escapeXml(unit.source)}</source>`,
        ...(unit.target === undefined ? [] : [`        <target>${escapeXml(unit.target)}</target>`]),
        '      </segment>',
        '    </unit>',
      );
    }
    lines.push('  </file>');
  }
  lines.push('</xliff>', '');
  return lines.join('\n');
}

/** An element of the parsed tree. */
interface Element {
  name: string;
  attributes: Map<string, string>;
  children: Array<Element | string>;
  line: number;
}

const NAME = /[A-Za-z_:][\w.:-]*/y;
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** How deep and how many elements a parse takes before it refuses the text. */
export interface XmlLimits {
  depth: number;
  elements: number;
}

/**
 * Parses well-formed XML without a DOCTYPE (no entity declarations, so no entity expansion): elements, attributes,
 * text, character and the five predefined entity references, CDATA, comments and processing instructions. Anything
 * else is refused with its line, and so is an element past `limits`: the parse recurses once a level, and keeps the
 * whole tree.
 */
export function parseXml(text: string, limits: XmlLimits = TRANSLATION_FILE_LIMITS): Element {
  let at = 0;
  let line = 1;
  let depth = 0;
  let count = 0;
  const fail = (message: string): never => {
    throw new XliffError(line, message);
  };
  const advance = (to: number) => {
    for (let index = at; index < to; index++) if (text.charCodeAt(index) === 10) line++;
    at = to;
  };
  /** Resolves the references in `raw`, which starts on the current line; a fault names the line it is on. */
  const decode = (raw: string): string => {
    const failAt = (offset: number, message: string): never => {
      throw new XliffError(line + (raw.slice(0, offset).match(/\n/g)?.length ?? 0), message);
    };
    const lt = raw.indexOf('<');
    if (lt >= 0) failAt(lt, '"<" in an attribute value');
    return raw.replace(/&([^;&\s]*);?/g, (match, name: string, offset: number) => {
      if (!match.endsWith(';')) failAt(offset, `"&" that starts no entity reference: write &amp;`);
      if (name in ENTITIES) return ENTITIES[name]!;
      const code = /^#x([0-9a-f]+)$/i.test(name) ? parseInt(name.slice(2), 16) : /^#[0-9]+$/.test(name) ? parseInt(name.slice(1), 10) : NaN;
      if (!Number.isNaN(code) && code <= 0x10ffff && code !== 0) return String.fromCodePoint(code);
      return failAt(offset, `unknown entity &${name};`);
    });
  };
  const readName = (): string => {
    NAME.lastIndex = at;
    const match = NAME.exec(text);
    if (!match) fail(`expected a name, got ${JSON.stringify(text.slice(at, at + 10) || 'the end of the file')}`);
    advance(at + match![0].length);
    return match![0];
  };
  const skipSpace = () => {
    while (at < text.length && /\s/.test(text[at]!)) advance(at + 1);
  };
  const skipTo = (end: string, what: string) => {
    const found = text.indexOf(end, at);
    if (found < 0) fail(`${what} that never ends`);
    advance(found + end.length);
  };
  /** Comments and processing instructions, anywhere they are allowed. */
  const skipMisc = (): boolean => {
    if (text.startsWith('<!--', at)) {
      skipTo('-->', 'a comment');
      return true;
    }
    if (text.startsWith('<?', at)) {
      skipTo('?>', 'a processing instruction');
      return true;
    }
    if (text.startsWith('<!', at) && !text.startsWith('<![CDATA[', at)) fail('a DOCTYPE or declaration: XLIFF needs none, and it is refused');
    return false;
  };
  const readElement = (): Element => {
    const start = line;
    advance(at + 1);
    const name = readName();
    if (++depth > limits.depth) fail(`<${name}> is nested ${depth} deep, deeper than the ${limits.depth} levels a translations file may have`);
    if (++count > limits.elements) fail(`<${name}> is element ${count.toLocaleString('en')}, more than the ${limits.elements.toLocaleString('en')} a translations file may have`);
    const attributes = new Map<string, string>();
    for (;;) {
      const before = at;
      skipSpace();
      if (text.startsWith('/>', at)) {
        advance(at + 2);
        depth--;
        return { name, attributes, children: [], line: start };
      }
      if (text[at] === '>') {
        advance(at + 1);
        break;
      }
      if (at === before) fail(`expected a space, ">" or "/>" in <${name}>`);
      const attribute = readName();
      skipSpace();
      if (text[at] !== '=') fail(`attribute ${attribute} of <${name}> has no value`);
      advance(at + 1);
      skipSpace();
      const quote = text[at];
      if (quote !== '"' && quote !== "'") fail(`the value of ${attribute} is not in quotes`);
      const end = text.indexOf(quote!, at + 1);
      if (end < 0) fail(`the value of ${attribute} never ends`);
      const value = decode(text.slice(at + 1, end));
      advance(end + 1);
      if (attributes.has(attribute)) fail(`attribute ${attribute} twice in <${name}>`);
      attributes.set(attribute, value);
    }
    const children: Array<Element | string> = [];
    for (;;) {
      if (at >= text.length) fail(`<${name}> (line ${start}) is never closed`);
      if (text.startsWith('</', at)) {
        advance(at + 2);
        const closing = readName();
        if (closing !== name) fail(`</${closing}> closes <${name}> (line ${start})`);
        skipSpace();
        if (text[at] !== '>') fail(`expected ">" after </${closing}`);
        advance(at + 1);
        depth--;
        return { name, attributes, children, line: start };
      }
      if (text.startsWith('<![CDATA[', at)) {
        const end = text.indexOf(']]>', at);
        if (end < 0) fail('a CDATA section that never ends');
        children.push(text.slice(at + 9, end));
        advance(end + 3);
      } else if (skipMisc()) {
        continue;
      } else if (text[at] === '<') {
        children.push(readElement());
      } else {
        const end = text.indexOf('<', at);
        const raw = text.slice(at, end < 0 ? text.length : end);
        if (raw.includes(']]>')) fail('"]]>" in text');
        const decoded = decode(raw.replace(/\r\n?/g, '\n'));
        children.push(decoded);
        advance(at + raw.length);
      }
    }
  };
  if (text.charCodeAt(0) === 0xfeff) at = 1;
  let root: Element | undefined;
  for (;;) {
    skipSpace();
    if (at >= text.length) break;
    if (skipMisc()) continue;
    if (text[at] !== '<') fail('text outside the root element');
    if (root) fail('a second root element');
    root = readElement();
  }
  if (!root) fail('no root element: the file is empty');
  return root!;
}

const elements = (element: Element, name?: string) => element.children.filter((child): child is Element => typeof child !== 'string' && (name === undefined || child.name === name));

/** The text of <source> or <target>; inline codes are not in what we write, so they are refused. */
function textOf(element: Element): string {
  return element.children
    .map((child) => {
      if (typeof child === 'string') return child;
      throw new XliffError(child.line, `<${child.name}> inside <${element.name}>: write variables and markup as text, as the export does`);
    })
    .join('');
}

/** Reads XLIFF 2.0 text into its files and units; throws {@link XliffError} on anything malformed or past `limits`. */
export function readXliff(text: string, limits?: XmlLimits): XliffDocument {
  const root = parseXml(text, limits);
  const required = (element: Element, attribute: string): string => {
    const value = element.attributes.get(attribute);
    if (value === undefined || value === '') throw new XliffError(element.line, `<${element.name}> needs ${attribute}`);
    return value;
  };
  if (root.name !== 'xliff') throw new XliffError(root.line, `the root is <${root.name}>, not <xliff>`);
  if (root.attributes.get('version') !== '2.0') throw new XliffError(root.line, `XLIFF version ${root.attributes.get('version') ?? '(none)'}: only 2.0 is read`);
  const document: XliffDocument = { srcLang: required(root, 'srcLang'), trgLang: required(root, 'trgLang'), files: [] };
  for (const file of elements(root, 'file')) {
    const units: XliffUnit[] = [];
    for (const unit of elements(file, 'unit')) {
      const key = unit.attributes.get('name') ?? required(unit, 'id');
      let source = '';
      let target = '';
      let translated = true;
      let targetLine: number | undefined;
      // A tool may split a unit into segments: the unit's text is theirs joined, ignorables (spacing) included, and it
      // is translated only when every segment is.
      for (const part of elements(unit).filter((child) => child.name === 'segment' || child.name === 'ignorable')) {
        const sources = elements(part, 'source');
        const targets = elements(part, 'target');
        if (sources.length !== 1) throw new XliffError(part.line, `<${part.name}> needs one <source>`);
        if (targets.length > 1) throw new XliffError(targets[1]!.line, `<${part.name}> has more than one <target>`);
        const partSource = textOf(sources[0]!);
        source += partSource;
        if (targets[0]) {
          target += textOf(targets[0]);
          targetLine ??= targets[0].line;
        } else if (part.name === 'ignorable') target += partSource;
        else translated = false;
      }
      translated &&= targetLine !== undefined;
      units.push({ key, source, line: unit.line, ...(translated ? { target, targetLine } : {}) });
    }
    document.files.push({ original: required(file, 'original'), line: file.line, units });
  }
  return document;
}
