// What the flow schema cannot say about the fields of FORM and SURVEY steps: unique ids, labels, choices, nps points, patterns, and types the page draws.
import { FORM_FIELD_TYPES } from '../../src/api/wire.js';
import { closest, distance, type PathSegment } from './schema.js';

/** Reports a problem, or a warning, at `segments` (or at `key` in the mapping there). */
export type Report = (segments: PathSegment[], message: string, key?: string) => void;

const DRAWN: readonly string[] = FORM_FIELD_TYPES;

/**
 * Checks the fields of one step at `where`: problems go to `add`, and a field type no element of ours draws to `warn`
 * (the page draws it, through a Frigade `fieldTypes` entry or a custom element, so it is not a mistake).
 */
export function checkStepFields(step: Record<string, unknown>, where: PathSegment[], add: Report, warn: Report): void {
  if (!Array.isArray(step.fields)) return;
  const fields = step.fields;
  // A step's only field is named by the step's title, as Frigade's NPS survey names its score and its comment.
  const titled = fields.length === 1 && typeof step.title === 'string' && step.title.trim() !== '';
  const ids = new Map<string, number>();
  for (const [index, field] of fields.entries()) {
    if (!isObject(field)) continue;
    const at: PathSegment[] = [...where, 'fields', index];
    if (typeof field.id === 'string') {
      const first = ids.get(field.id);
      if (first !== undefined)
        add([...at, 'id'], `duplicate field id "${field.id}" in this step (also fields[${first}])`);
      else ids.set(field.id, index);
    }
    checkPattern(field.pattern, [...at, 'pattern'], add);
    const type = field.type;
    if (typeof type !== 'string' || type === '') continue;
    if (!DRAWN.includes(type)) {
      // The nearest type first (`textara` is a textarea, not a text), then what `closest` guesses for a key.
      const nearest = [...DRAWN].sort((a, b) => distance(type.toLowerCase(), a) - distance(type.toLowerCase(), b))[0];
      const guess =
        distance(type.toLowerCase(), nearest) <= Math.min(2, Math.floor(nearest.length / 3))
          ? nearest
          : closest(type, [...DRAWN]);
      warn(
        [...at, 'type'],
        `"${type}" is not a field type our elements draw${guess ? ` (did you mean "${guess}"?)` : ''}: it is drawn by your own code through a Frigade \`fieldTypes\` entry or a custom element, and its answer is stored like any other`,
      );
      continue;
    }
    if ((type === 'select' || type === 'radio') && !hasItems(field.options)) {
      add([...at, 'type'], `a ${type} field needs options: a list of { value, label }`);
    }
    if (type === 'nps') checkNpsPoints(field.options, [...at, 'options'], add);
    else if (field.label === undefined && !titled) {
      add(
        at,
        `a ${type} field needs a label, so that screen readers can name it (only an nps field, or a step's only field, which the step's title names, may go without)`,
        'label',
      );
    }
  }
}

/** An nps scale's points (a field's `options`, or a survey's `props.options`): whole numbers from 0 to 10, as numbers or text. */
export function checkNpsPoints(options: unknown, where: PathSegment[], add: Report): void {
  if (!Array.isArray(options)) return;
  for (const [index, option] of options.entries()) {
    if (!isObject(option)) continue;
    const { value } = option;
    const point =
      typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
    if (!(Number.isInteger(point) && point >= 0 && point <= 10)) {
      add(
        [...where, index, 'value'],
        `an nps scale's points are whole numbers from 0 to 10, got ${JSON.stringify(value)}`,
      );
    }
  }
}

/** `pattern`, alone or as `{ value, message }`: a regular expression the form can use. */
function checkPattern(rule: unknown, where: PathSegment[], add: Report): void {
  const [pattern, at] = isObject(rule) ? [rule.value, [...where, 'value']] : [rule, where];
  if (typeof pattern !== 'string') return;
  const problem = patternProblem(pattern);
  if (problem) add(at, problem);
}

/**
 * Why `pattern` is not a regular expression the form can use, or undefined when it is. Frigade's `/…/` form is read
 * without its slashes; the whole value must match, and the expression is read in Unicode mode, as the HTML `pattern`
 * attribute reads it.
 */
export function patternProblem(pattern: string): string | undefined {
  const source =
    pattern.length >= 2 && pattern.startsWith('/') && pattern.endsWith('/') ? pattern.slice(1, -1) : pattern;
  try {
    new RegExp(`^(?:${source})$`, 'u');
    return undefined;
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(
      /^Invalid regular expression: \/.*\/\w*: /s,
      '',
    );
    let unicodeOnly = false;
    try {
      new RegExp(source);
      unicodeOnly = true;
    } catch {
      // Not a regular expression in any mode.
    }
    const why = unicodeOnly
      ? ' (patterns are read in Unicode mode, as the HTML pattern attribute reads them, where \\- or \\@ outside [ ], or a lone { or ], is not allowed)'
      : '';
    return `${JSON.stringify(pattern)} is not a regular expression: ${reason}${why}`;
  }
}

function hasItems(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
