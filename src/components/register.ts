// Registers every custom element once; importing a component class alone registers nothing.
import { OnboardingAnnouncement } from './announcement/announcement.component.js';
import { OnboardingBanner } from './banner/banner.component.js';
import { OnboardingCard } from './card/card.component.js';
import { OnboardingChecklist } from './checklist/checklist.component.js';

const ELEMENTS: Record<string, CustomElementConstructor> = {
  'onboarding-announcement': OnboardingAnnouncement,
  'onboarding-banner': OnboardingBanner,
  'onboarding-card': OnboardingCard,
  'onboarding-checklist': OnboardingChecklist,
};

export function registerElements(registry: CustomElementRegistry | undefined = globalThis.customElements): void {
  if (!registry) return;
  for (const [name, element] of Object.entries(ELEMENTS)) {
    if (!registry.get(name)) registry.define(name, element);
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'onboarding-announcement': OnboardingAnnouncement;
    'onboarding-banner': OnboardingBanner;
    'onboarding-card': OnboardingCard;
    'onboarding-checklist': OnboardingChecklist;
  }
}
