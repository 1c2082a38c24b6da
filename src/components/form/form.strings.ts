// Built-in strings of <onboarding-form>, in English: Submit and the validation messages (in the form's chunk, not the script tag's file).
import type { OnboardingStrings } from '../shared/strings.js';

export const FORM_STRINGS: Partial<OnboardingStrings> = {
  submit: 'Submit',
  required: 'This field is required.',
  invalid: 'Please check this value.',
  tooShort: 'Use at least {n} characters.',
  tooLong: 'Use at most {n} characters.',
  tooSmall: 'Use {n} or more.',
  tooLarge: 'Use {n} or less.',
};
