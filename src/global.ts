// Script-tag entry: sets window.Onboarding, registers the elements (the tour on demand), initialises from the tag's
// data attributes, and replays what the async snippet queued.
import { onboarding } from './sdk.js';
import { registerElements } from './components/register.js';
import { loadTourOnDemand } from './components/tour/load-tour.js';
import { $elementOptions } from './stores/options.js';
import { reportError } from './core/report.js';
import { drainSnippet, isSnippetStub } from './core/snippet.js';

declare global {
  interface Window {
    Onboarding: typeof onboarding;
  }
}

const script = document.currentScript as HTMLScriptElement | null;
const existing: unknown = window.Onboarding;

// The script included twice: the first copy keeps running, the second does nothing.
if (!existing || isSnippetStub(existing)) {
  window.Onboarding = onboarding;
  registerElements();
  loadTourOnDemand(script?.src, () => $elementOptions.get().nonce);
  const publicKey = script?.dataset.publicKey;
  const apiUrl = script?.dataset.apiUrl;
  if (publicKey || apiUrl) {
    try {
      void onboarding.init({ publicKey: publicKey ?? '', apiUrl: apiUrl ?? '' });
    } catch (error) {
      // A tag with a missing attribute is misuse, but throwing from a script tag helps nobody: warn instead.
      reportError('init-failed', error);
    }
  }
  if (isSnippetStub(existing)) drainSnippet(existing, onboarding);
}
