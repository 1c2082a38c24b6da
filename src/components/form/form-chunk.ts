// Entry of dist/onboarding-form.js, loaded on demand by the script tag: defines <onboarding-form> on the script's own Lit and stores.
import { OnboardingForm } from './form.component.js';

if (!customElements.get('onboarding-form')) customElements.define('onboarding-form', OnboardingForm);
