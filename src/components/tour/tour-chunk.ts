// Entry of dist/onboarding-tour.js, loaded on demand by the script tag: defines <onboarding-tour> with floating-ui, on the script's own Lit and stores.
import { OnboardingTour } from './tour.component.js';

if (!customElements.get('onboarding-tour')) customElements.define('onboarding-tour', OnboardingTour);
