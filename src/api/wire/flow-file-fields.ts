// The flow file format: buttons, choices, and the fields of form and survey steps.
import type { ButtonAction } from './common.js';

/**
 * Field types our form and survey elements draw. Any other `type` is accepted (with a `flows check` warning): it is
 * drawn by the page's own code, through a Frigade `fieldTypes` entry or a custom element, and its answer is stored
 * like any other.
 */
export const FORM_FIELD_TYPES = ['text', 'textarea', 'email', 'number', 'select', 'radio', 'checkbox', 'nps'] as const;
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];

/** A validation rule in Frigade's shape: the value alone, or the value with the message shown when it fails. */
export type ValidationRule<T> =
  | T
  | {
      /** The rule's value. */
      value: T;
      /** The message shown when the value breaks the rule. @minLength 1 */
      message: string;
    };

/** A button of a step. */
export interface FlowButton {
  /** The button's text. @minLength 1 */
  title: string;
  /** What the button does. Without it a primary button moves forward and a secondary one dismisses; `false` only follows `uri`. */
  action?: ButtonAction;
  /** A link to follow (http, https, mailto, tel, relative or #fragment); the button becomes a real link. @format link */
  uri?: string;
  /** Where the link opens: `_self`, `_blank`, `_parent` or `_top`. @default "_self" */
  target?: '_self' | '_blank' | '_parent' | '_top';
}

/** One choice of a select, radio or checkbox field, or of a single or multiple choice survey step. */
export interface ChoiceOption {
  /** What is sent when the choice is picked. */
  value: string | number;
  /** What the user sees. @minLength 1 */
  label: string;
}

/**
 * A field of a FORM or SURVEY step, in Frigade's shape; its value goes into the step's data under its `id`. The type
 * is one of ours (`text`, `textarea`, `email`, `number`, `select`, `radio`, `checkbox`, `nps`) or a name the page
 * draws itself (a Frigade `fieldTypes` entry or a custom element).
 */
export interface FormField {
  /** The key of the answer in the step's data; unique within the step. @minLength 1 */
  id: string;
  /** The kind of input: one of ours, or a name the page's own code draws (`flows check` warns). */
  type: FormFieldType | (string & {});
  /**
   * The field's label. Every type our elements draw needs one (`flows check` refuses a field without), except `nps`
   * and a step's only field: the step's title names those. @minLength 1
   */
  label?: string;
  /** Placeholder text; for a select, the text of the empty choice. */
  placeholder?: string;
  /**
   * The field must be filled in (a checkbox without options must be ticked): `true`, the message shown when it is not,
   * or `{ value, message }`. @default false
   */
  required?: string | ValidationRule<boolean>;
  /**
   * A regular expression the whole value must match, read in Unicode mode as HTML's `pattern` attribute reads it;
   * Frigade's `/…/` form is read without its slashes.
   */
  pattern?: ValidationRule<string>;
  /** Smallest number allowed (number fields). */
  min?: ValidationRule<number>;
  /** Largest number allowed (number fields). */
  max?: ValidationRule<number>;
  /** Fewest characters allowed. */
  minLength?: ValidationRule<number>;
  /** Most characters allowed. */
  maxLength?: ValidationRule<number>;
  /**
   * The choices of a select or radio field, of a checkbox group (a checkbox without options is one yes/no box), or
   * the points of an `nps` scale (whole numbers from 0 to 10, as numbers or text; 0 to 10 when absent).
   */
  options?: ChoiceOption[];
  /** A select that takes several choices (Frigade's `multiple`); its answer is a list. @default false */
  multiple?: boolean;
  /** The value the field starts with. */
  value?: string;
  /** The message shown when the value is invalid, instead of the built-in one. */
  message?: string;
  /** Label under the high end of an `nps` scale (Frigade's key). @default "Very likely" */
  positiveLabel?: string;
  /** Label under the low end of an `nps` scale (Frigade's key). @default "Not likely" */
  negativeLabel?: string;
  /** Free-form data for the code that draws the field. */
  props?: Record<string, unknown>;
}
