// Entry of dist/onboarding-card.js, loaded on demand by the script tag: defines <onboarding-card> on the script's own Lit and stores.
import { OnboardingCard } from './card.component.js';

if (!customElements.get('onboarding-card')) customElements.define('onboarding-card', OnboardingCard);
