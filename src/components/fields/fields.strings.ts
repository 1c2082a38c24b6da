// Built-in strings of fields, in English: Submit, the validation messages and the scale's ends (the form's and the survey's strings include them).
import type { OnboardingStrings } from '../shared/strings.js';

export const FIELD_STRINGS: Partial<OnboardingStrings> = {
  submit: 'Submit',
  required: 'This field is required.',
  invalid: 'Please check this value.',
  tooShort: 'Use at least {n} characters.',
  tooLong: 'Use at most {n} characters.',
  tooSmall: 'Use {n} or more.',
  tooLarge: 'Use {n} or less.',
  npsLow: 'Not likely',
  npsHigh: 'Very likely',
};
