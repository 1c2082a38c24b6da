// Entry of dist/onboarding-collection.js, loaded on demand by the script tag: defines <onboarding-collection> on the script's own Lit and stores.
import { OnboardingCollection } from './collection.component.js';

if (!customElements.get('onboarding-collection')) customElements.define('onboarding-collection', OnboardingCollection);
