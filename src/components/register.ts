// Registers every custom element once; importing a component class alone registers nothing.
import { OnboardingBanner } from './banner/banner.component.js';

const ELEMENTS: Record<string, CustomElementConstructor> = {
  'onboarding-banner': OnboardingBanner,
};

export function registerElements(registry: CustomElementRegistry | undefined = globalThis.customElements): void {
  if (!registry) return;
  for (const [name, element] of Object.entries(ELEMENTS)) {
    if (!registry.get(name)) registry.define(name, element);
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'onboarding-banner': OnboardingBanner;
  }
}
