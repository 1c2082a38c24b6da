// Built-in strings of <onboarding-survey>, in English: its fields' (Submit, the validation messages, the NPS scale's ends), Skip and the rating choices' names.
import type { OnboardingStrings } from '../shared/strings.js';
import { FIELD_STRINGS } from '../fields/fields.strings.js';

export const SURVEY_STRINGS: Partial<OnboardingStrings> = {
  ...FIELD_STRINGS,
  skip: 'Skip',
  rating: '{n} of {m}',
};
