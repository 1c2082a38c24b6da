// A flow's translations: each overlay checked against the source text it names, the text a locale lacks, and one locale laid over the source.
import type { FlowTranslation } from '../../src/api/wire.js';
import type { Report } from './fields.js';
import { closest, formatPath, type PathSegment } from './schema.js';

/** A locale code as flow files write it: a language, then optionally a script and a region (`fr`, `fr-CA`, `zh-Hans`, `es-419`); as in wire.ts. */
export const LOCALE_CODE = /^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$/;

/**
 * `raw` as a locale code flow files use (`fr_ca` → `fr-CA`, `ZH-hans` → `zh-Hans`); undefined when it is not one, which
 * a read takes as no locale at all (the source text).
 */
export function canonicalLocale(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw.length > 35) return undefined;
  const parts = raw.trim().split(/[-_]/);
  const code = parts
    .map((part, index) =>
      index === 0
        ? part.toLowerCase()
        : part.length === 4
          ? part.charAt(0).toUpperCase() + part.slice(1).toLowerCase()
          : part.toUpperCase(),
    )
    .join('-');
  return LOCALE_CODE.test(code) ? code : undefined;
}

/**
 * The translations a read in `locale` lays over the source, least specific first so the exact one wins field by field:
 * the base language's (`fr` for `fr-CA`) and the exact locale's, each when the flow has it. Empty: the source alone.
 */
export function localeChain(
  locale: string | undefined,
  available: Readonly<Record<string, unknown>> | undefined,
): string[] {
  if (!locale || !available) return [];
  const parts = locale.split('-');
  const codes = parts.map((_, index) => parts.slice(0, index + 1).join('-'));
  return codes.filter((code) => Object.hasOwn(available, code));
}

/** The text options of props a translation may carry. */
const PROPS_TEXT = ['doneTitle', 'doneSubtitle', 'lowLabel', 'highLabel', 'positiveLabel', 'negativeLabel'] as const;
const STEP_TEXT = ['title', 'subtitle', 'imageAlt'] as const;
const BUTTONS = ['primaryButton', 'secondaryButton'] as const;
const FIELD_TEXT = ['label', 'placeholder', 'message', 'positiveLabel', 'negativeLabel'] as const;
/** The text of a resource centre's block; a `links` block's link titles are keyed by their place in the list. */
const BLOCK_TEXT = ['title', 'text', 'placeholder'] as const;

/**
 * One translatable place of a flow: where its text is in the translation (`steps.welcome.fields.email.label`), where
 * the source text is in `data` (`steps[0].fields[1].label`), and that text.
 */
export interface TextSlot {
  key: PathSegment[];
  source: PathSegment[];
  text: string;
}

/** Every place of `data` that holds text to translate, in the order of the file. */
export function textSlots(data: unknown): TextSlot[] {
  const slots: TextSlot[] = [];
  if (!isObject(data)) return slots;
  const add = (key: PathSegment[], source: PathSegment[], text: unknown) => {
    if (typeof text === 'string' && text.trim() !== '') slots.push({ key, source, text });
  };
  add(['title'], ['title'], data.title);
  add(['subtitle'], ['subtitle'], data.subtitle);
  if (isObject(data.props)) for (const name of PROPS_TEXT) add(['props', name], ['props', name], data.props[name]);
  if (isObject(data.launcher)) add(['launcher', 'label'], ['launcher', 'label'], data.launcher.label);
  for (const [index, block] of (Array.isArray(data.blocks) ? data.blocks : []).entries()) {
    if (!isObject(block) || typeof block.id !== 'string') continue;
    const key: PathSegment[] = ['blocks', block.id];
    const at: PathSegment[] = ['blocks', index];
    for (const name of BLOCK_TEXT) add([...key, name], [...at, name], block[name]);
    for (const [i, link] of (Array.isArray(block.links) ? block.links : []).entries())
      if (isObject(link)) add([...key, 'links', String(i)], [...at, 'links', i, 'title'], link.title);
  }
  const steps = Array.isArray(data.steps) ? data.steps : [];
  for (const [index, step] of steps.entries()) {
    if (!isObject(step) || typeof step.id !== 'string') continue;
    const key: PathSegment[] = ['steps', step.id];
    const at: PathSegment[] = ['steps', index];
    for (const name of STEP_TEXT) add([...key, name], [...at, name], step[name]);
    for (const name of BUTTONS) {
      const button = step[name];
      if (isObject(button)) add([...key, name, 'title'], [...at, name, 'title'], button.title);
    }
    if (isObject(step.props))
      for (const name of PROPS_TEXT) add([...key, 'props', name], [...at, 'props', name], step.props[name]);
    for (const [i, option] of choices(step.options))
      add([...key, 'options', String(option.value)], [...at, 'options', i, 'label'], option.label);
    const fields = Array.isArray(step.fields) ? step.fields : [];
    for (const [f, field] of fields.entries()) {
      if (!isObject(field) || typeof field.id !== 'string') continue;
      const fieldKey: PathSegment[] = [...key, 'fields', field.id];
      for (const name of FIELD_TEXT) add([...fieldKey, name], [...at, 'fields', f, name], field[name]);
      for (const [i, option] of choices(field.options))
        add([...fieldKey, 'options', String(option.value)], [...at, 'fields', f, 'options', i, 'label'], option.label);
    }
  }
  return slots;
}

/** The same variable syntax as the elements read (src/components/shared/rich-text.ts); only the name must survive. */
const VARIABLE = /\$\{\s*([A-Za-z_][\w.-]{0,63})\s*(?:\|\s*([^{}]{0,200}?)\s*)?\}/g;

/** The names of the `${variable}`s in a text, each once; a fallback (`${firstName|there}`) is words, which a translation translates. */
function variableNames(text: string): string[] {
  return [...new Set([...text.matchAll(VARIABLE)].map((match) => match[1]))];
}

/** The `${variables}` of `source`, by name, that `translation` drops: a translation must keep every one. */
export function droppedVariables(source: string, translation: string): string[] {
  const kept = new Set(variableNames(translation));
  return variableNames(source).filter((name) => !kept.has(name));
}

/**
 * Checks `file.translations` against `file.data`: every step, field and choice an overlay names exists, and every
 * translated text keeps the `${variables}` of its source. The schema checks the rest (keys, locale codes, links).
 */
export function checkTranslations(file: Record<string, unknown>, add: Report): void {
  const { translations, data } = file;
  if (!isObject(translations) || !isObject(data)) return;
  const steps = new Map<string, Record<string, unknown>>();
  for (const step of Array.isArray(data.steps) ? data.steps : [])
    if (isObject(step) && typeof step.id === 'string') steps.set(step.id, step);
  const slots = new Map(textSlots(data).map((slot) => [slot.key.join('\0'), slot]));
  for (const [locale, translation] of Object.entries(translations)) {
    if (!isObject(translation)) continue;
    const at: PathSegment[] = ['translations', locale];
    if (isObject(translation.steps)) {
      for (const [id, overlay] of Object.entries(translation.steps)) {
        const step = steps.get(id);
        if (!step) {
          add([...at, 'steps'], unknownName('step id', id, [...steps.keys()]), id);
          continue;
        }
        if (!isObject(overlay)) continue;
        const where: PathSegment[] = [...at, 'steps', id];
        checkChoices(overlay.options, step.options, [...where, 'options'], add);
        if (!isObject(overlay.fields)) continue;
        const fields = new Map<string, Record<string, unknown>>();
        for (const field of Array.isArray(step.fields) ? step.fields : [])
          if (isObject(field) && typeof field.id === 'string') fields.set(field.id, field);
        for (const [fieldId, fieldOverlay] of Object.entries(overlay.fields)) {
          const field = fields.get(fieldId);
          if (!field)
            add([...where, 'fields'], unknownName('field id', fieldId, [...fields.keys()], `step "${id}"`), fieldId);
          else if (isObject(fieldOverlay))
            checkChoices(fieldOverlay.options, field.options, [...where, 'fields', fieldId, 'options'], add);
        }
      }
    }
    if (isObject(translation.blocks)) checkBlockOverlays(translation.blocks, data.blocks, [...at, 'blocks'], add);
    // Every translated text against its source: the variables it must keep.
    walkText(translation, [], (key, text) => {
      const slot = slots.get(key.join('\0'));
      if (!slot) return;
      const dropped = droppedVariables(slot.text, text);
      if (dropped.length) {
        add(
          [...at, ...key],
          `drops ${dropped.map((name) => `\${${name}}`).join(', ')} of the source text (data.${formatPath(slot.source)}); keep every variable`,
        );
      }
    });
  }
}

/**
 * The text a locale lacks: every place of `data` with text that `translation` leaves out, as paths in the
 * translation (`steps.welcome.title`) with where the source text is.
 */
export function missingText(data: unknown, translation: FlowTranslation | undefined): TextSlot[] {
  return textSlots(data).filter((slot) => typeof valueAt(translation, slot.key) !== 'string');
}

/**
 * `data` with each of `overlays` laid over it in turn, so a later one wins field by field (base language, then the
 * exact locale). `data` is not changed; a copy is returned.
 */
export function applyTranslations<T>(data: T, overlays: readonly FlowTranslation[]): T {
  if (!overlays.length || !isObject(data)) return data;
  const out = structuredClone(data) as Record<string, unknown>;
  const slots = textSlots(out);
  // The button links: not text to translate, but a page may differ by language.
  const links: TextSlot[] = [];
  const steps = Array.isArray(out.steps) ? out.steps : [];
  for (const [index, step] of steps.entries()) {
    if (!isObject(step) || typeof step.id !== 'string') continue;
    for (const name of BUTTONS)
      if (isObject(step[name]))
        links.push({ key: ['steps', step.id, name, 'uri'], source: ['steps', index, name, 'uri'], text: '' });
  }
  for (const overlay of overlays) {
    for (const slot of [...slots, ...links]) {
      const text = valueAt(overlay, slot.key);
      if (typeof text === 'string') setAt(out, slot.source, text);
    }
  }
  return out as T;
}

/** Every block a translation names exists, and every link it names by place is in that block's `links`. */
function checkBlockOverlays(
  overlays: Record<string, unknown>,
  blocks: unknown,
  where: PathSegment[],
  add: Report,
): void {
  const byId = new Map<string, Record<string, unknown>>();
  for (const block of Array.isArray(blocks) ? blocks : [])
    if (isObject(block) && typeof block.id === 'string') byId.set(block.id, block);
  for (const [id, overlay] of Object.entries(overlays)) {
    const block = byId.get(id);
    if (!block) {
      add(where, unknownName('block id', id, [...byId.keys()]), id);
      continue;
    }
    if (!isObject(overlay) || !isObject(overlay.links)) continue;
    const count = Array.isArray(block.links) ? block.links.length : 0;
    for (const place of Object.keys(overlay.links)) {
      if (Number(place) < count) continue;
      add(
        [...where, id, 'links'],
        `no link ${place} in block "${id}": links are named by their place in its links, from 0${count ? ` to ${count - 1}` : ' (it has none)'}`,
        place,
      );
    }
  }
}

function checkChoices(overlay: unknown, options: unknown, where: PathSegment[], add: Report): void {
  if (!isObject(overlay)) return;
  const values = choices(options).map(([, option]) => String(option.value));
  for (const value of Object.keys(overlay))
    if (!values.includes(value)) add(where, unknownName('choice value', value, values), value);
}

function unknownName(what: string, name: string, known: string[], where = 'the flow'): string {
  const guess = closest(name, known);
  return `no ${what} "${name}" in ${where}${guess ? ` (did you mean "${guess}"?)` : ''}; ${known.length ? `expected one of ${known.join(', ')}` : 'there is none'}`;
}

function choices(options: unknown): Array<[number, { value: string | number; label: unknown }]> {
  if (!Array.isArray(options)) return [];
  return [...(options as unknown[]).entries()].filter(
    (entry): entry is [number, { value: string | number; label: unknown }] => {
      const option = entry[1];
      return isObject(option) && (typeof option.value === 'string' || typeof option.value === 'number');
    },
  );
}

function walkText(value: unknown, key: PathSegment[], visit: (key: PathSegment[], text: string) => void): void {
  if (typeof value === 'string') visit(key, value);
  else if (isObject(value)) for (const [name, inner] of Object.entries(value)) walkText(inner, [...key, name], visit);
}

/** The value at `key` in `value`, when every segment on the way is an own key of an object. */
export function valueAt(value: unknown, key: readonly PathSegment[]): unknown {
  let current = value;
  for (const segment of key) {
    if (!isObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

function setAt(value: Record<string, unknown>, path: readonly PathSegment[], text: string): void {
  let current: unknown = value;
  for (const segment of path.slice(0, -1)) current = (current as Record<PathSegment, unknown>)[segment];
  if (isObject(current) || Array.isArray(current)) (current as Record<PathSegment, unknown>)[path.at(-1)!] = text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
