// Entry of dist/onboarding-flow.js, loaded on demand by the script tag: defines <onboarding-flow> on the script's own Lit and stores.
import { OnboardingFlow } from './flow.component.js';

if (!customElements.get('onboarding-flow')) customElements.define('onboarding-flow', OnboardingFlow);
