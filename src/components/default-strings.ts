// Every element's built-in strings in English, in one object: DEFAULT_STRINGS of the ESM build.
import { FORM_STRINGS } from './form/form.strings.js';
import { HINT_STRINGS } from './hint/hint.strings.js';
import { RESOURCE_CENTER_STRINGS } from './resource-center/resource-center.strings.js';
import { BASE_STRINGS, type OnboardingStrings } from './shared/strings.js';
import { SURVEY_STRINGS } from './survey/survey.strings.js';

export const DEFAULT_STRINGS = {
  ...BASE_STRINGS,
  ...FORM_STRINGS,
  ...SURVEY_STRINGS,
  ...HINT_STRINGS,
  ...RESOURCE_CENTER_STRINGS,
} as OnboardingStrings;
