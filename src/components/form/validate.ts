// Field validation for <onboarding-form>: required, pattern, length, range and email, with translatable messages.
import type { FormField } from '../../api/wire.js';
import type { OnboardingStrings } from '../shared/strings.js';

export type FieldValue = string | boolean | string[];

type Translate = (key: keyof OnboardingStrings, values?: Record<string, string | number>) => string;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function isEmpty(value: FieldValue | undefined): boolean {
  return value === undefined || value === false || value === '' || (Array.isArray(value) && value.length === 0);
}

/** The first problem with `value`, as a message (the field's own `message` wins), or '' when it is valid. */
export function validateField(field: FormField, value: FieldValue | undefined, t: Translate): string {
  const own = (fallback: string) => (typeof field.message === 'string' && field.message ? field.message : fallback);
  if (isEmpty(value)) return field.required ? own(t('required')) : '';
  if (typeof value !== 'string') return '';
  if (field.type === 'email' && !EMAIL.test(value)) return own(t('invalid'));
  if (field.type === 'number') {
    const number = Number(value);
    if (!Number.isFinite(number)) return own(t('invalid'));
    if (typeof field.min === 'number' && number < field.min) return own(t('tooSmall', { n: field.min }));
    if (typeof field.max === 'number' && number > field.max) return own(t('tooLarge', { n: field.max }));
  }
  if (typeof field.minLength === 'number' && value.length < field.minLength) return own(t('tooShort', { n: field.minLength }));
  if (typeof field.maxLength === 'number' && value.length > field.maxLength) return own(t('tooLong', { n: field.maxLength }));
  if (typeof field.pattern === 'string' && field.pattern) {
    let pattern: RegExp | undefined;
    try {
      pattern = new RegExp(`^(?:${field.pattern})$`, 'u');
    } catch {
      // A pattern that does not compile is the definition's mistake; it does not block the user.
    }
    if (pattern && !pattern.test(value)) return own(t('invalid'));
  }
  return '';
}

/** The value sent as step data: numbers as numbers, everything else as entered. */
export function fieldData(field: FormField, value: FieldValue | undefined): unknown {
  if (field.type === 'number' && typeof value === 'string' && value !== '') return Number(value);
  if (value === undefined) return field.type === 'checkbox' ? (field.options?.length ? [] : false) : '';
  return value;
}
