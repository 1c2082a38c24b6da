// Script-tag entry: sets window.Onboarding, registers the elements, and initialises from the tag's data attributes.
import { onboarding } from './index.js';
import { registerElements } from './components/register.js';
import { reportError } from './core/report.js';

declare global {
  interface Window {
    Onboarding: typeof onboarding;
  }
}

const script = document.currentScript as HTMLScriptElement | null;
window.Onboarding = onboarding;
registerElements();

const publicKey = script?.dataset.publicKey;
const apiUrl = script?.dataset.apiUrl;
if (publicKey && apiUrl) {
  try {
    void onboarding.init({ publicKey, apiUrl });
  } catch (error) {
    reportError('init-failed', error);
  }
}
