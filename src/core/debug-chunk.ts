// dist/onboarding-debug.js: Onboarding.debug() (debug.ts), loaded beside the script tag's file on its first call; the stores, and the slot it fills, are the script's (chunk-host.ts).
import { explainFlows } from './debug.js';
import { setDebugger } from './debugging.js';

setDebugger(async (options) => explainFlows(options));
