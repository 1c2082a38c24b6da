// Built-in strings of <onboarding-form>, in English: its fields' (Submit, the validation messages, the scale's ends), in the form's chunk, not the script tag's file.
import type { OnboardingStrings } from '../shared/strings.js';
import { FIELD_STRINGS } from '../fields/fields.strings.js';

export const FORM_STRINGS: Partial<OnboardingStrings> = FIELD_STRINGS;
