// A flow file's text for translators: every text field by a stable key, its source and one locale's translation, and writing translations back with comments and order kept.
import { isMap, parse, parseDocument } from 'yaml';
import { textSlots, valueAt } from './translations.js';

/** One text field of a flow: where it is, what it says, and what a locale says instead. */
export interface TextUnit {
  /** `<slug>/<path in the translation>`, as `welcome/steps/intro/fields/email/label`; segments are escaped with {@link keySegment}. */
  key: string;
  /** The path of the field in `translations.<locale>`, unescaped. */
  path: string[];
  source: string;
  /** The locale's current text, when it has one. */
  target?: string;
}

/** A key segment: a step id or a choice value may hold `/`, so `%` and `/` are percent-escaped. */
export function keySegment(segment: string): string {
  return segment.replace(/%/g, '%25').replace(/\//g, '%2F');
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Every text field of a flow file's content that needs translation, in file order, with `locale`'s translation where it
 * has one. Links (`uri`) are not text and are left to the flow's author. Throws when the text is not a flow file.
 */
export function textUnits(text: string, locale: string): { slug: string; units: TextUnit[] } {
  const flow: unknown = parse(text);
  if (!isNode(flow) || typeof flow.slug !== 'string' || !isNode(flow.data))
    throw new Error('not a flow file: it needs a slug and data');
  const slug = flow.slug;
  const translations = isNode(flow.translations) ? flow.translations[locale] : undefined;
  // The places the flow checks and the service translate (textSlots), each keyed by its path in the translation.
  const units = textSlots(flow.data).map(({ key, text: source }): TextUnit => {
    const path = key.map(String);
    const target = valueAt(translations, path);
    return {
      key: [slug, ...path].map(keySegment).join('/'),
      path,
      source,
      ...(typeof target === 'string' && target !== '' ? { target } : {}),
    };
  });
  return { slug, units };
}

/**
 * Writes `targets` (by path) into `translations.<locale>` of a flow file's text through the YAML document, so that its
 * comments, order and quoting stay as they were; a new `translations` goes at the end of the file.
 */
export function writeTranslations(
  text: string,
  locale: string,
  targets: Array<{ path: string[]; target: string }>,
): string {
  const document = parseDocument(text);
  if (!isMap(document.contents)) throw new Error('not a flow file: its top level is not a mapping');
  for (const { path, target } of targets) document.setIn(['translations', locale, ...path], target);
  // lineWidth 0: the round trip must not fold long lines the author wrote on one.
  return document.toString({ lineWidth: 0 });
}
