// Registers the custom elements once and starts auto-mount; importing a component class alone registers nothing.
import { OnboardingAnnouncement } from './announcement/announcement.component.js';
import { OnboardingBanner } from './banner/banner.component.js';
import { OnboardingCard } from './card/card.component.js';
import { OnboardingChecklist } from './checklist/checklist.component.js';
import { OnboardingCollection } from './collection/collection.component.js';
import { OnboardingFlow } from './flow/flow.component.js';
import { OnboardingForm } from './form/form.component.js';
import type { OnboardingHint } from './hint/hint.component.js';
import type { OnboardingTooltip } from './hint/tooltip.component.js';
import { OnboardingSurvey } from './survey/survey.component.js';
import type { OnboardingTour } from './tour/tour.component.js';
import { defineElements } from './define.js';

/**
 * Every element but those pointing at page elements (tour, hint, tooltip: they bring floating-ui), which the ESM build
 * adds itself. The script tag loads each on demand (chunks/load-chunks.ts); it
 * does not import this module.
 */
export const ELEMENTS: Record<string, CustomElementConstructor> = {
  'onboarding-announcement': OnboardingAnnouncement,
  'onboarding-banner': OnboardingBanner,
  'onboarding-card': OnboardingCard,
  'onboarding-checklist': OnboardingChecklist,
  'onboarding-collection': OnboardingCollection,
  'onboarding-flow': OnboardingFlow,
  'onboarding-form': OnboardingForm,
  'onboarding-survey': OnboardingSurvey,
};

/**
 * Defines the elements (skipping names already defined) and, for the page's own registry, starts auto-mount and
 * applies the `nonce` option (see define.ts).
 */
export function registerElements(registry: CustomElementRegistry | undefined = globalThis.customElements, elements = ELEMENTS): void {
  defineElements(registry, elements);
}

declare global {
  interface HTMLElementTagNameMap {
    'onboarding-announcement': OnboardingAnnouncement;
    'onboarding-banner': OnboardingBanner;
    'onboarding-card': OnboardingCard;
    'onboarding-checklist': OnboardingChecklist;
    'onboarding-collection': OnboardingCollection;
    'onboarding-flow': OnboardingFlow;
    'onboarding-form': OnboardingForm;
    'onboarding-hint': OnboardingHint;
    'onboarding-survey': OnboardingSurvey;
    'onboarding-tooltip': OnboardingTooltip;
    'onboarding-tour': OnboardingTour;
  }
}
