// dist/onboarding-forward.js: init's `forward` option (forward.ts), loaded beside the script tag's file only on pages that ask for it.
import { forwardEvents } from './forward.js';
import { FORWARD_CHUNK } from './forwarding.js';

(globalThis as Record<symbol, unknown>)[FORWARD_CHUNK] = forwardEvents;
