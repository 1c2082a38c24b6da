// Field answers for <onboarding-form> and <onboarding-survey>: the fields they draw, validation in Frigade's shapes, initial values and the data sent.
import type { FormField, FormFieldType, ValidationRule } from '../../api/wire.js';
import type { OnboardingStrings } from '../shared/strings.js';

export type FieldValue = string | boolean | string[];

type Translate = (key: keyof OnboardingStrings, values?: Record<string, string | number>) => string;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The field types our elements draw: wire.ts's FORM_FIELD_TYPES, which a chunk cannot import (wire.ts's values come
 * from the script tag's file); the Record's type keeps the two lists equal.
 */
const DRAWN: Record<FormFieldType, 1> = {
  text: 1,
  textarea: 1,
  email: 1,
  number: 1,
  select: 1,
  radio: 1,
  checkbox: 1,
  nps: 1,
};

/** Types whose answer is sent as a number (the survey's `rating` questions too). */
const NUMERIC = ['number', 'nps', 'rating'];

/** The fields of a step our elements draw, in order; a field of another type is the page's to draw, and is left out. */
export const drawnFields = (fields: unknown): FormField[] =>
  Array.isArray(fields)
    ? (fields as Array<Partial<FormField> | null>).filter(
        (field): field is FormField => typeof field?.id === 'string' && Object.hasOwn(DRAWN, field.type!),
      )
    : [];

/** Whether the field's answer is a list: a group of checkboxes, or a select with `multiple`. */
export const isList = (field: FormField): boolean =>
  (field.type === 'checkbox' && Array.isArray(field.options) && field.options.length > 0) ||
  (field.type === 'select' && field.multiple === true);

/** Whether the field must be answered: `required` is true, a message, or `{ value: true, message }`. */
export const isRequired = (field: FormField): boolean => Boolean(rule(field.required).value);

export const isEmpty = (value: FieldValue | undefined): boolean =>
  value === undefined || value === false || value === '' || (Array.isArray(value) && value.length === 0);

/** A rule's value and its own message: Frigade writes `{ value, message }` where the value alone also does. */
export function rule<T>(source: ValidationRule<T> | undefined): { value?: T; message?: string } {
  return source !== null && typeof source === 'object' && 'value' in source ? source : { value: source };
}

/**
 * A field's pattern, matching the whole value in Unicode mode as HTML's `pattern` does; Frigade's `/…/` form is read
 * without its slashes, as the flow checks read it. A pattern that does not compile is the definition's mistake; it
 * blocks nobody.
 */
function patternOf(pattern: string): RegExp | undefined {
  const source =
    pattern.length > 1 && pattern.startsWith('/') && pattern.endsWith('/') ? pattern.slice(1, -1) : pattern;
  try {
    return new RegExp(`^(?:${source})$`, 'u');
  } catch {
    return undefined;
  }
}

/**
 * The first problem with `value`, as a message, or '' when it is valid. The rule's own message (`required` as text,
 * `{ value, message }`) wins, then the field's `message`, then the built-in one.
 */
export function validateField(field: FormField, value: FieldValue | undefined, t: Translate): string {
  const own = (message: unknown, fallback: string) =>
    (typeof message === 'string' && message) || (typeof field.message === 'string' && field.message) || fallback;
  if (isEmpty(value)) {
    const required = rule(field.required);
    return required.value
      ? own(typeof required.value === 'string' ? required.value : required.message, t('required'))
      : '';
  }
  if (typeof value !== 'string') return '';
  if (field.type === 'email' && !EMAIL.test(value)) return own(undefined, t('invalid'));
  if (field.type === 'number') {
    const number = Number(value);
    const min = rule(field.min);
    const max = rule(field.max);
    if (!Number.isFinite(number)) return own(undefined, t('invalid'));
    if (typeof min.value === 'number' && number < min.value) return own(min.message, t('tooSmall', { n: min.value }));
    if (typeof max.value === 'number' && number > max.value) return own(max.message, t('tooLarge', { n: max.value }));
  }
  const minLength = rule(field.minLength);
  const maxLength = rule(field.maxLength);
  const pattern = rule(field.pattern);
  if (typeof minLength.value === 'number' && value.length < minLength.value)
    return own(minLength.message, t('tooShort', { n: minLength.value }));
  if (typeof maxLength.value === 'number' && value.length > maxLength.value)
    return own(maxLength.message, t('tooLong', { n: maxLength.value }));
  if (typeof pattern.value === 'string' && pattern.value && patternOf(pattern.value)?.test(value) === false)
    return own(pattern.message, t('invalid'));
  return '';
}

/** The answer a field starts with, from its `value`: a list field's as a list, a lone checkbox ticked by "true". */
export function initialValue(field: FormField): FieldValue | undefined {
  const value: unknown = field.value;
  if (value === undefined || value === null || value === '') return undefined;
  if (isList(field)) return (Array.isArray(value) ? value : [value]).map(String);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a form value is text, a number or a boolean
  return field.type === 'checkbox' ? String(value) === 'true' : String(value);
}

/** The value sent as step data: numbers and scale points as numbers, everything else as entered. */
export function fieldData(field: FormField, value: FieldValue | undefined): unknown {
  if (NUMERIC.includes(field.type) && typeof value === 'string' && value !== '') return Number(value);
  if (value === undefined) return isList(field) ? [] : field.type === 'checkbox' ? false : '';
  return value;
}
