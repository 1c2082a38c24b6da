// Built-in strings of <onboarding-hint> and <onboarding-tooltip>, in English (in the hint's chunk, not the script tag's file).
import type { OnboardingStrings } from '../shared/strings.js';

export const HINT_STRINGS: Partial<OnboardingStrings> = {
  hint: 'Hint: {title}',
  gotIt: 'Got it',
};
