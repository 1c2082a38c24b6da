// Entry of dist/onboarding-hint.js, loaded on demand by the script tag: defines <onboarding-hint> and <onboarding-tooltip>, on the script's own Lit and stores.
import { OnboardingHint } from './hint.component.js';
import { OnboardingTooltip } from './tooltip.component.js';

if (!customElements.get('onboarding-hint')) customElements.define('onboarding-hint', OnboardingHint);
if (!customElements.get('onboarding-tooltip')) customElements.define('onboarding-tooltip', OnboardingTooltip);
