// Entry of dist/onboarding-announcement.js, loaded on demand by the script tag: defines <onboarding-announcement> on the script's own Lit and stores.
import { OnboardingAnnouncement } from './announcement.component.js';

if (!customElements.get('onboarding-announcement')) customElements.define('onboarding-announcement', OnboardingAnnouncement);
