// XLIFF for the translator's round trip: writes 2.0, one <file> per flow file, and reads back 2.0 and 1.2 as tools write them, through a strict XML parser whose every fault names its line.
import { SaxesParser } from 'saxes';
import { TRANSLATION_FILE_LIMITS } from './translation-limits.js';

/** One text field as XLIFF carries it: the key in `name` (`resname` in 1.2), an NMTOKEN form of it in `id`. */
export interface XliffUnit {
  /** The unit's `name` (or `resname`), else its `id`: a key (`welcome/title`) or its {@link unitId} (`welcome.title`). */
  key: string;
  source: string;
  target?: string;
  /** Lines in the XLIFF file, for reports. */
  line: number;
  targetLine?: number;
  /** A character XML does not allow in the target (a NUL, an unpaired surrogate, a control character), and its line. */
  fault?: { line: number; code: number };
}

export interface XliffFile {
  /** The flow file's name in its folder, as the export writes it; a tool may drop it, or write a name of its own. */
  original?: string;
  line: number;
  units: XliffUnit[];
}

export interface XliffDocument {
  version: '2.0' | '1.2';
  srcLang: string;
  trgLang: string;
  /** Where the target locale is written: `trgLang` of <xliff> in 2.0, `target-language` of each <file> in 1.2. */
  trgLangAt: { line: number; attribute: 'trgLang' | 'target-language' };
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
const XLIFF_12_NS = 'urn:oasis:names:tc:xliff:document:1.2';

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


/** An element of the parsed tree: its local name and namespace, its attributes that have no prefix, and its first line. */
interface Element {
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
  code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);

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
function parseXml(text: string, limits: XmlLimits): { root: Element; faults: CharacterFault[] } {
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
    if (stack.length + 1 > limits.depth) throw new XliffError(line, `<${tag.name}> is nested ${stack.length + 1} deep, deeper than the ${limits.depth} levels a translations file may have`);
    if (++count > limits.elements) throw new XliffError(line, `<${tag.name}> is element ${count.toLocaleString('en')}, more than the ${limits.elements.toLocaleString('en')} a translations file may have`);
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
    for (const attribute of Object.values(tag.attributes)) if (attribute.uri === '') element.attributes.set(attribute.local, attribute.value);
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
      const code = message === 'disallowed character' ? text.codePointAt(at - 1) : reference && parseInt(reference.replace(/^x/i, '0x'));
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
    if (message === 'undefined entity') throw new XliffError(parser.line, `unknown entity ${text.slice(text.lastIndexOf('&', at - 1), at)}: XML has &lt; &gt; &amp; &quot; &apos; and character references such as &#233;`);
    if (message === 'malformed character entity') throw new XliffError(parser.line, `malformed character reference ${text.slice(text.lastIndexOf('&', at - 1), at)}`);
    if (message === 'disallowed character' && at > 0) throw new XliffError(parser.line, `disallowed character ${JSON.stringify(String.fromCodePoint(text.codePointAt(at - 1)!))}`);
    throw new XliffError(parser.line, message);
  });
  parser.write(text);
  closing = true;
  parser.close();
  return { root: root!, faults };
}

/** The text of <source> or <target>; inline codes are not in what we write, so they are refused. */
function textOf(element: Element): string {
  return element.children
    .map((child) => {
      if (typeof child === 'string') return child;
      throw new XliffError(child.line, `<${child.name}> inside <${element.name}>: write variables and markup as text, as the export does`);
    })
    .join('');
}

/**
 * Reads XLIFF 2.0 or 1.2 into its files and units; throws {@link XliffError} on anything malformed or past `limits`.
 * Units may sit in <group>s, nested or not; elements of other namespaces (a tool's metadata) are passed over. A
 * target whose `state` says it is not translated yet (2.0's `initial` on its <segment>; 1.2's `new` or
 * `needs-translation` on the <target>) is not a translation: tools fill such targets with a copy of the source.
 */
/** XLIFF 1.2's states of a target that holds no translation yet. */
const UNTRANSLATED_12 = new Set(['new', 'needs-translation']);

export function readXliff(text: string, limits: XmlLimits = TRANSLATION_FILE_LIMITS): XliffDocument {
  const { root, faults } = parseXml(text, limits);
  const required = (element: Element, attribute: string): string => {
    const value = element.attributes.get(attribute);
    if (value === undefined || value === '') throw new XliffError(element.line, `<${element.name}> needs ${attribute}`);
    return value;
  };
  if (root.name !== 'xliff') throw new XliffError(root.line, `the root is <${root.name}>, not <xliff>`);
  const version = root.attributes.get('version');
  if (version !== '2.0' && version !== '1.2') throw new XliffError(root.line, `XLIFF version ${version ?? '(none)'}: 2.0 and 1.2 are read`);
  const namespace = version === '2.0' ? XLIFF_NS : XLIFF_12_NS;
  if (root.uri !== '' && root.uri !== namespace) throw new XliffError(root.line, `XLIFF ${version} in the namespace ${root.uri}, not ${namespace}`);
  const elements = (element: Element, name?: string) =>
    element.children.filter((child): child is Element => typeof child !== 'string' && child.uri === root.uri && (name === undefined || child.name === name));
  /** The units of a <file> or <body>, in their <group>s too. */
  const unitsIn = (container: Element, name: string, read: (unit: Element) => XliffUnit): XliffUnit[] =>
    elements(container).flatMap((child) => (child.name === name ? [read(child)] : child.name === 'group' ? unitsIn(child, name, read) : []));
  // The targets read, so that a character fault is told apart: in a target it refuses the unit, elsewhere the file.
  const targets = new Set<Element>();
  const readTarget = (target: Element) => {
    targets.add(target);
    return textOf(target);
  };
  const faultIn = (found: Element[]) => faults.find((fault) => found.includes(fault.element));

  let document: XliffDocument;
  if (version === '2.0') {
    document = {
      version,
      srcLang: required(root, 'srcLang'),
      trgLang: required(root, 'trgLang'),
      trgLangAt: { line: root.line, attribute: 'trgLang' },
      files: [],
    };
    const readUnit = (unit: Element): XliffUnit => {
      const key = unit.attributes.get('name') || required(unit, 'id');
      let source = '';
      let target = '';
      let translated = true;
      let targetLine: number | undefined;
      const found: Element[] = [];
      // A tool may split a unit into segments: the unit's text is theirs joined, ignorables (spacing) included, and it
      // is translated only when every segment is.
      for (const part of elements(unit).filter((child) => child.name === 'segment' || child.name === 'ignorable')) {
        const sources = elements(part, 'source');
        const partTargets = elements(part, 'target');
        if (sources.length !== 1) throw new XliffError(part.line, `<${part.name}> needs one <source>`);
        if (partTargets.length > 1) throw new XliffError(partTargets[1].line, `<${part.name}> has more than one <target>`);
        const partSource = textOf(sources[0]);
        source += partSource;
        if (part.name === 'segment' && part.attributes.get('state') === 'initial') translated = false;
        if (partTargets[0]) {
          found.push(partTargets[0]);
          target += readTarget(partTargets[0]);
          targetLine ??= partTargets[0].line;
        } else if (part.name === 'ignorable') target += partSource;
        else translated = false;
      }
      translated &&= targetLine !== undefined;
      const fault = faultIn(found);
      return { key, source, line: unit.line, ...(translated ? { target, targetLine } : {}), ...(fault ? { fault: { line: fault.line, code: fault.code } } : {}) };
    };
    for (const file of elements(root, 'file')) {
      const original = file.attributes.get('original');
      document.files.push({ ...(original ? { original } : {}), line: file.line, units: unitsIn(file, 'unit', readUnit) });
    }
  } else {
    const files = elements(root, 'file');
    if (!files.length) throw new XliffError(root.line, 'XLIFF 1.2 with no <file>: no target-language to read');
    const first = files[0];
    document = {
      version,
      srcLang: required(first, 'source-language'),
      trgLang: required(first, 'target-language'),
      trgLangAt: { line: first.line, attribute: 'target-language' },
      files: [],
    };
    const readUnit = (unit: Element): XliffUnit => {
      const key = unit.attributes.get('resname') || required(unit, 'id');
      const sources = elements(unit, 'source');
      const unitTargets = elements(unit, 'target');
      if (sources.length !== 1) throw new XliffError(unit.line, `<${unit.name}> needs one <source>`);
      if (unitTargets.length > 1) throw new XliffError(unitTargets[1].line, `<${unit.name}> has more than one <target>`);
      const source = textOf(sources[0]);
      const given = unitTargets[0];
      const target = given && !UNTRANSLATED_12.has(given.attributes.get('state') ?? '') ? given : undefined;
      const fault = faultIn(unitTargets);
      return {
        key,
        source,
        line: unit.line,
        ...(target ? { target: readTarget(target), targetLine: target.line } : {}),
        ...(fault ? { fault: { line: fault.line, code: fault.code } } : {}),
      };
    };
    for (const file of files) {
      // One locale a translations file: each <file> of 1.2 names its own, so they must agree.
      const locale = required(file, 'target-language');
      if (locale !== document.trgLang) throw new XliffError(file.line, `<file> is in target-language "${locale}", and the first <file> (line ${first.line}) in "${document.trgLang}": a translations file holds one locale`);
      const bodies = elements(file, 'body');
      if (bodies.length !== 1) throw new XliffError(file.line, '<file> needs one <body>');
      const original = file.attributes.get('original');
      document.files.push({ ...(original ? { original } : {}), line: file.line, units: unitsIn(bodies[0], 'trans-unit', readUnit) });
    }
  }
  const stray = faults.find((fault) => !targets.has(fault.element));
  if (stray) throw new XliffError(stray.line, `${codePointName(stray.code)} in <${stray.element.name}>: a character XML does not allow`);
  return document;
}
