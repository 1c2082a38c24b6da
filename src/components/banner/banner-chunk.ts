// Entry of dist/onboarding-banner.js, loaded on demand by the script tag: defines <onboarding-banner> on the script's own Lit and stores.
import { OnboardingBanner } from './banner.component.js';

if (!customElements.get('onboarding-banner')) customElements.define('onboarding-banner', OnboardingBanner);
