// A flow file's text for translators: every text field by a stable key, its source and one locale's translation, and writing translations back with comments and order kept.
import { isMap, parse, parseDocument } from 'yaml';

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

/** The text options of `props`, on the flow and on a step (PropsTranslation in src/api/wire.ts). */
const PROPS_TEXT = ['doneTitle', 'doneSubtitle', 'lowLabel', 'highLabel', 'positiveLabel', 'negativeLabel'] as const;
/** The text of a field (FieldTranslation), its options apart. */
const FIELD_TEXT = ['label', 'placeholder', 'message', 'positiveLabel', 'negativeLabel'] as const;
/** The same variable syntax as the elements read (src/components/shared/rich-text.ts); only the name must survive. */
const VARIABLE = /\$\{\s*([A-Za-z_][\w.-]{0,63})\s*(?:\|\s*([^{}]{0,200}?)\s*)?\}/g;

/** A key segment: a step id or a choice value may hold `/`, so `%` and `/` are percent-escaped. */
export function keySegment(segment: string): string {
  return segment.replace(/%/g, '%25').replace(/\//g, '%2F');
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
/** A choice's value as a translation keys it: survey choices by text, nps points by number. */
const choiceKey = (value: unknown): string | undefined => (typeof value === 'string' && value !== '') || typeof value === 'number' ? String(value) : undefined;

/**
 * Every text field of a flow file's content that needs translation, in file order, with `locale`'s translation where it
 * has one. Links (`uri`) are not text and are left to the flow's author. Throws when the text is not a flow file.
 */
export function textUnits(text: string, locale: string): { slug: string; units: TextUnit[] } {
  const flow: unknown = parse(text);
  if (!isNode(flow) || typeof flow.slug !== 'string' || !isNode(flow.data)) throw new Error('not a flow file: it needs a slug and data');
  const slug = flow.slug;
  const translations = isNode(flow.translations) ? flow.translations[locale] : undefined;
  const units: TextUnit[] = [];
  const add = (path: string[], source: unknown) => {
    if (!isText(source)) return;
    let target: unknown = translations;
    for (const segment of path) target = isNode(target) ? target[segment] : undefined;
    units.push({ key: [slug, ...path].map(keySegment).join('/'), path, source, ...(typeof target === 'string' && target !== '' ? { target } : {}) });
  };
  const addProps = (props: unknown, at: string[]) => {
    if (isNode(props)) for (const name of PROPS_TEXT) add([...at, 'props', name], props[name]);
  };
  const addOptions = (options: unknown, at: string[]) => {
    if (!Array.isArray(options)) return;
    for (const option of options) {
      const value = isNode(option) ? choiceKey(option.value) : undefined;
      if (value !== undefined) add([...at, 'options', value], (option as Node).label);
    }
  };
  const data = flow.data;
  add(['title'], data.title);
  add(['subtitle'], data.subtitle);
  addProps(data.props, []);
  for (const step of Array.isArray(data.steps) ? data.steps : []) {
    if (!isNode(step) || typeof step.id !== 'string') continue;
    const at = ['steps', step.id];
    add([...at, 'title'], step.title);
    add([...at, 'subtitle'], step.subtitle);
    add([...at, 'imageAlt'], step.imageAlt);
    for (const button of ['primaryButton', 'secondaryButton']) {
      const value = step[button];
      if (isNode(value)) add([...at, button, 'title'], value.title);
    }
    addProps(step.props, at);
    addOptions(step.options, at);
    for (const field of Array.isArray(step.fields) ? step.fields : []) {
      if (!isNode(field) || typeof field.id !== 'string') continue;
      const fieldAt = [...at, 'fields', field.id];
      for (const name of FIELD_TEXT) add([...fieldAt, name], field[name]);
      addOptions(field.options, fieldAt);
    }
  }
  return { slug, units };
}

/** The names of the `${variable}`s in a text, each once; a fallback (`${firstName|there}`) is text to translate. */
export function variableNames(text: string): string[] {
  return [...new Set([...text.matchAll(VARIABLE)].map((match) => match[1]!))];
}

/**
 * Writes `targets` (by path) into `translations.<locale>` of a flow file's text through the YAML document, so that its
 * comments, order and quoting stay as they were; a new `translations` goes at the end of the file.
 */
export function writeTranslations(text: string, locale: string, targets: Array<{ path: string[]; target: string }>): string {
  const document = parseDocument(text);
  if (!isMap(document.contents)) throw new Error('not a flow file: its top level is not a mapping');
  for (const { path, target } of targets) document.setIn(['translations', locale, ...path], target);
  // lineWidth 0: the round trip must not fold long lines the author wrote on one.
  return document.toString({ lineWidth: 0 });
}
