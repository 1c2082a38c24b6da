// Script-tag entry: sets window.Onboarding, starts auto-mount and the elements' chunks (each loaded on demand), initialises from
// the tag's data attributes, and replays what the async snippet queued.
import { onboarding } from './sdk.js';
import { startElements } from './components/start.js';
import { loadElementsOnDemand, loadStringsOnDemand } from './components/chunks/load-chunks.js';
import { $elementOptions } from './stores/options.js';
import { reportError } from './core/errors.js';
import { drainSnippet, isSnippetStub } from './core/snippet.js';
import { currentScript } from './page/document.js';

declare global {
  interface Window {
    Onboarding: typeof onboarding;
  }
}

// The tag's attributes and address are trusted (keys, API, where the chunks come from): read past the page's markup.
const script = currentScript();
// Our own copy or the snippet's stub is a property of the window itself; `<div id="Onboarding">` only looks like one.
const existing: unknown = Object.getOwnPropertyDescriptor(window, 'Onboarding')?.value;

// The script included twice: the first copy keeps running, the second does nothing.
if (!existing || isSnippetStub(existing)) {
  window.Onboarding = onboarding;
  // Starting the elements reads the tag's nonce, which the chunks' scripts get. Both run before init, so the chunk of
  // an element already in the markup starts downloading before the first state read.
  startElements();
  loadElementsOnDemand(script?.src, () => $elementOptions.get().nonce);
  loadStringsOnDemand(script?.src, () => $elementOptions.get().nonce);
  const publicKey = script?.dataset.publicKey;
  const apiUrl = script?.dataset.apiUrl;
  if (publicKey || apiUrl) {
    try {
      // data-locale is init's locale: the first read is in it, not in the browser's language then again in it.
      void onboarding.init({ publicKey: publicKey ?? '', apiUrl: apiUrl ?? '', locale: script.dataset.locale });
    } catch (error) {
      // A tag with a missing attribute is misuse, but throwing from a script tag helps nobody: warn instead.
      reportError('init-failed', error);
    }
  }
  if (isSnippetStub(existing)) drainSnippet(existing, onboarding);
}
