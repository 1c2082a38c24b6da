// XLIFF for the translator's round trip: writes 2.0, one <file> per flow file, and reads back 2.0 and 1.2 as tools write them
// (the XML itself is parsed by xliff-xml.ts).
import { TRANSLATION_FILE_LIMITS } from './translation-limits.js';
import { codePointName, parseXml, textOf, XliffError, type Element, type XmlLimits } from './xliff-xml.js';

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

const XLIFF_NS = 'urn:oasis:names:tc:xliff:document:2.0';
const XLIFF_12_NS = 'urn:oasis:names:tc:xliff:document:1.2';

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\r/g, '&#13;');
}

/**
 * An NMTOKEN for `id` (XLIFF 2.0 requires one, and `/` is not allowed in it): `/` becomes `.`, and every character but
 * letters, digits and `-` becomes `_` and its code in hex, so that two keys never share an id.
 */
export function unitId(key: string): string {
  return key.replace(/[^A-Za-z0-9-]/gu, (char) => (char === '/' ? '.' : `_${char.codePointAt(0)!.toString(16)}_`));
}

/** The XLIFF 2.0 text of `files`; a unit without a translation has no <target>. */
export function writeXliff(document: {
  srcLang: string;
  trgLang: string;
  files: Array<{ original: string; units: Array<{ key: string; source: string; target?: string }> }>;
}): string {
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

/** XLIFF 1.2's states of a target that holds no translation yet. */
const UNTRANSLATED_12 = new Set(['new', 'needs-translation']);

/**
 * Reads XLIFF 2.0 or 1.2 into its files and units; throws {@link XliffError} on anything malformed or past `limits`.
 * Units may sit in <group>s, nested or not; elements of other namespaces (a tool's metadata) are passed over. A
 * target whose `state` says it is not translated yet (2.0's `initial` on its <segment>; 1.2's `new` or
 * `needs-translation` on the <target>) is not a translation: tools fill such targets with a copy of the source.
 */
export function readXliff(text: string, limits: XmlLimits = TRANSLATION_FILE_LIMITS): XliffDocument {
  const { root, faults } = parseXml(text, limits);
  const required = (element: Element, attribute: string): string => {
    const value = element.attributes.get(attribute);
    if (value === undefined || value === '') throw new XliffError(element.line, `<${element.name}> needs ${attribute}`);
    return value;
  };
  if (root.name !== 'xliff') throw new XliffError(root.line, `the root is <${root.name}>, not <xliff>`);
  const version = root.attributes.get('version');
  if (version !== '2.0' && version !== '1.2')
    throw new XliffError(root.line, `XLIFF version ${version ?? '(none)'}: 2.0 and 1.2 are read`);
  const namespace = version === '2.0' ? XLIFF_NS : XLIFF_12_NS;
  if (root.uri !== '' && root.uri !== namespace)
    throw new XliffError(root.line, `XLIFF ${version} in the namespace ${root.uri}, not ${namespace}`);
  const elements = (element: Element, name?: string) =>
    element.children.filter(
      (child): child is Element =>
        typeof child !== 'string' && child.uri === root.uri && (name === undefined || child.name === name),
    );
  /** The units of a <file> or <body>, in their <group>s too. */
  const unitsIn = (container: Element, name: string, read: (unit: Element) => XliffUnit): XliffUnit[] =>
    elements(container).flatMap((child) =>
      child.name === name ? [read(child)] : child.name === 'group' ? unitsIn(child, name, read) : [],
    );
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
        if (partTargets.length > 1)
          throw new XliffError(partTargets[1].line, `<${part.name}> has more than one <target>`);
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
      return {
        key,
        source,
        line: unit.line,
        ...(translated ? { target, targetLine } : {}),
        ...(fault ? { fault: { line: fault.line, code: fault.code } } : {}),
      };
    };
    for (const file of elements(root, 'file')) {
      const original = file.attributes.get('original');
      document.files.push({
        ...(original ? { original } : {}),
        line: file.line,
        units: unitsIn(file, 'unit', readUnit),
      });
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
      if (unitTargets.length > 1)
        throw new XliffError(unitTargets[1].line, `<${unit.name}> has more than one <target>`);
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
      if (locale !== document.trgLang)
        throw new XliffError(
          file.line,
          `<file> is in target-language "${locale}", and the first <file> (line ${first.line}) in "${document.trgLang}": a translations file holds one locale`,
        );
      const bodies = elements(file, 'body');
      if (bodies.length !== 1) throw new XliffError(file.line, '<file> needs one <body>');
      const original = file.attributes.get('original');
      document.files.push({
        ...(original ? { original } : {}),
        line: file.line,
        units: unitsIn(bodies[0], 'trans-unit', readUnit),
      });
    }
  }
  const stray = faults.find((fault) => !targets.has(fault.element));
  if (stray)
    throw new XliffError(
      stray.line,
      `${codePointName(stray.code)} in <${stray.element.name}>: a character XML does not allow`,
    );
  return document;
}
