// Built-in strings of <onboarding-resource-center>, in English (in its chunk, not the script tag's file).
import type { OnboardingStrings } from '../shared/strings.js';

export const RESOURCE_CENTER_STRINGS: Partial<OnboardingStrings> = {
  search: 'Search',
  noResults: 'No results',
  unread: '{n} unread',
  stateNew: 'New',
  stateInProgress: 'In progress',
  stateDone: 'Done',
};
