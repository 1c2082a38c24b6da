// Defines elements once and, on the page's own registry, starts auto-mount; SCRIPT_ELEMENTS are those in the script tag's own file.
import { $elementOptions } from '../stores/options.js';
import { OnboardingAnnouncement } from './announcement/announcement.component.js';
import { OnboardingBanner } from './banner/banner.component.js';
import { OnboardingCard } from './card/card.component.js';
import { startAutoMount } from './shared/auto-mount.js';

/** The elements inside dist/onboarding.js; the checklist, collection, flow, form, hint, survey, tooltip and tour come from chunks beside it (chunks/load-chunks.ts). */
export const SCRIPT_ELEMENTS: Record<string, CustomElementConstructor> = {
  'onboarding-announcement': OnboardingAnnouncement,
  'onboarding-banner': OnboardingBanner,
  'onboarding-card': OnboardingCard,
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
 * Defines `elements` (skipping names already defined) and, for the page's own registry, starts auto-mount and
 * applies the `nonce` option to the `<style>` fallback Lit uses where constructable stylesheets are missing.
 * Called while the script tag runs, it also reads the tag's `nonce` and `data-auto-mount`; the nonce has to be
 * known before the elements first render, which for elements already in the markup is now.
 */
export function defineElements(registry: CustomElementRegistry | undefined, elements: Record<string, CustomElementConstructor>): void {
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
