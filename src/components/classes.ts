// The element classes, one export each, by the names the table of elements gives them (elements.ts); importing them registers nothing.
export { OnboardingAnnouncement } from './announcement/announcement.component.js';
export { OnboardingBanner } from './banner/banner.component.js';
export { OnboardingCard } from './card/card.component.js';
export { OnboardingChecklist } from './checklist/checklist.component.js';
export { OnboardingCollection } from './collection/collection.component.js';
export { OnboardingFlow } from './flow/flow.component.js';
export { OnboardingForm } from './form/form.component.js';
export { OnboardingHint } from './hint/hint.component.js';
export { OnboardingResourceCenter } from './resource-center/resource-center.component.js';
export { OnboardingSurvey } from './survey/survey.component.js';
export { OnboardingTooltip } from './hint/tooltip.component.js';
export { OnboardingTour } from './tour/tour.component.js';
