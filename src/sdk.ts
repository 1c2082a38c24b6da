// The shared SDK instance: the ESM build exports it as `onboarding`, the script-tag build sets it as `window.Onboarding`.
import { Onboarding } from './core/onboarding.js';

export const onboarding = new Onboarding();
