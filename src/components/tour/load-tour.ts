// Loads <onboarding-tour> on demand, from the script's own base address: once a TOUR flow is open for the user, or a tour element is placed.
import { reportError } from '../../core/report.js';
import { $flows } from '../../stores/flows.js';
import { holdModal } from '../shared/modal-queue.js';
import { provideTourHost } from './tour-host.js';

const TAG = 'onboarding-tour';
/** Longest the modal slot waits for the chunk, so a chunk that never comes holds nothing up. */
const HOLD_MS = 3000;

const placed = (node: Node) => node instanceof Element && (node.localName === TAG || node.getElementsByTagName(TAG).length > 0);

/**
 * Watches for a reason to load the tour chunk (`onboarding-tour.js` beside `scriptSrc`), then adds it as a script
 * (with `nonce`, for a CSP that asks for one) once. While it loads for an open TOUR flow, the modal slot waits, so
 * the tour keeps its place before surveys. Returns a function that stops watching.
 */
export function loadTourOnDemand(scriptSrc: string | undefined, nonce: () => string | undefined): () => void {
  let observer: MutationObserver | undefined;
  let stopFlows: (() => void) | undefined;
  const stop = () => {
    observer?.disconnect();
    stopFlows?.();
    observer = stopFlows = undefined;
  };
  let loading = false;
  const load = (forFlow: boolean) => {
    if (loading) return;
    loading = true;
    stop();
    if (customElements.get(TAG)) return;
    const release = forFlow ? holdModal() : () => {};
    const timer = setTimeout(release, HOLD_MS);
    // The chunk's element claims the slot in its first update, a task after it is defined.
    void customElements.whenDefined(TAG).then(() => setTimeout(release, 0));
    try {
      provideTourHost();
      const script = document.createElement('script');
      script.src = new URL('onboarding-tour.js', scriptSrc ?? location.href).href;
      script.async = true;
      const value = nonce();
      if (value) script.nonce = value;
      script.onerror = () => {
        clearTimeout(timer);
        release();
        reportError('tour-failed', new Error(`Could not load ${script.src}; tours are not shown.`));
      };
      (document.head ?? document.documentElement).append(script);
    } catch (error) {
      release();
      reportError('tour-failed', error);
    }
  };
  const unsubscribe = $flows.subscribe((flows) => {
    for (const slug in flows) {
      const flow = flows[slug]!;
      if (flow.type === 'TOUR' && flow.isVisible && !flow.isCompleted && !flow.isSkipped) return load(true);
    }
  });
  // subscribe calls at once, and may have loaded already.
  if (loading) unsubscribe();
  else {
    stopFlows = unsubscribe;
    if (document.getElementsByTagName(TAG).length) load(false);
    else {
      observer = new MutationObserver((records) => {
        for (const record of records) for (const node of record.addedNodes) if (placed(node)) return load(false);
      });
      observer.observe(document, { childList: true, subtree: true });
    }
  }
  return stop;
}
