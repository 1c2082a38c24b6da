// dist/onboarding-watch.js: the element watcher, which the script tag loads from beside itself once a flow's start rule waits for an element.
import { WATCH_CHUNK } from './start-rules.js';
import { watchTarget } from './watch.js';

(globalThis as Record<symbol, unknown>)[WATCH_CHUNK] = watchTarget;
