// Built-in strings of <onboarding-survey>, in English: Submit, Skip, the NPS scale's ends and the rating choices' names.
import type { OnboardingStrings } from '../shared/strings.js';

export const SURVEY_STRINGS: Partial<OnboardingStrings> = {
  submit: 'Submit',
  skip: 'Skip',
  npsLow: 'Not likely',
  npsHigh: 'Very likely',
  rating: '{n} of {m}',
};
