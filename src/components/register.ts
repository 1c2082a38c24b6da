// Registers the custom elements once and starts auto-mount; importing a component class alone registers nothing.
import { $elementOptions } from '../stores/options.js';
import { OnboardingAnnouncement } from './announcement/announcement.component.js';
import { OnboardingBanner } from './banner/banner.component.js';
import { OnboardingCard } from './card/card.component.js';
import { OnboardingChecklist } from './checklist/checklist.component.js';
import { OnboardingFlow } from './flow/flow.component.js';
import { OnboardingForm } from './form/form.component.js';
import { OnboardingSurvey } from './survey/survey.component.js';
import type { OnboardingTour } from './tour/tour.component.js';
import { startAutoMount } from './shared/auto-mount.js';

/** Every element but the tour, which the script tag loads on demand (tour/load-tour.ts) and the ESM build adds itself. */
export const ELEMENTS: Record<string, CustomElementConstructor> = {
  'onboarding-announcement': OnboardingAnnouncement,
  'onboarding-banner': OnboardingBanner,
  'onboarding-card': OnboardingCard,
  'onboarding-checklist': OnboardingChecklist,
  'onboarding-flow': OnboardingFlow,
  'onboarding-form': OnboardingForm,
  'onboarding-survey': OnboardingSurvey,
};

let autoMountStarted = false;

/** Options on the script tag itself: its `nonce` (or `data-nonce`) and `data-auto-mount` ("false" or slugs, comma-separated). */
function readScriptTag(): void {
  const script = document.currentScript as HTMLScriptElement | null;
  if (!script) return;
  const nonce = script.nonce || script.dataset.nonce;
  const auto = script.dataset.autoMount?.trim();
  const autoMount = auto === undefined || auto === '' || auto === 'true' ? undefined : auto === 'false' ? false : auto.split(/[\s,]+/).filter(Boolean);
  if (!nonce && autoMount === undefined) return;
  $elementOptions.set({ ...$elementOptions.get(), ...(nonce ? { nonce } : {}), ...(autoMount !== undefined ? { autoMount } : {}) });
}

/**
 * Defines the elements (skipping names already defined) and, for the page's own registry, starts auto-mount and
 * applies the `nonce` option to the `<style>` fallback Lit uses where constructable stylesheets are missing.
 * Called while the script tag runs, it also reads the tag's `nonce` and `data-auto-mount`; the nonce has to be
 * known before the elements first render, which for elements already in the markup is now.
 */
export function registerElements(registry: CustomElementRegistry | undefined = globalThis.customElements, elements = ELEMENTS): void {
  if (!registry) return;
  if (registry === globalThis.customElements && !autoMountStarted && typeof document !== 'undefined') {
    autoMountStarted = true;
    readScriptTag();
    $elementOptions.subscribe(({ nonce }) => {
      if (nonce) (globalThis as { litNonce?: string }).litNonce = nonce;
    });
    startAutoMount(document);
  }
  for (const [name, element] of Object.entries(elements)) {
    if (!registry.get(name)) registry.define(name, element);
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'onboarding-announcement': OnboardingAnnouncement;
    'onboarding-banner': OnboardingBanner;
    'onboarding-card': OnboardingCard;
    'onboarding-checklist': OnboardingChecklist;
    'onboarding-flow': OnboardingFlow;
    'onboarding-form': OnboardingForm;
    'onboarding-survey': OnboardingSurvey;
    'onboarding-tour': OnboardingTour;
  }
}
