// Entry of dist/onboarding-survey.js, loaded on demand by the script tag: defines <onboarding-survey> on the script's own Lit and stores.
import { OnboardingSurvey } from './survey.component.js';

if (!customElements.get('onboarding-survey')) customElements.define('onboarding-survey', OnboardingSurvey);
