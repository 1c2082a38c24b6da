// Entry of dist/onboarding-checklist.js, loaded on demand by the script tag: defines <onboarding-checklist> on the script's own Lit and stores.
import { OnboardingChecklist } from './checklist.component.js';

if (!customElements.get('onboarding-checklist')) customElements.define('onboarding-checklist', OnboardingChecklist);
