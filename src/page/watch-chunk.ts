// dist/onboarding-watch.js: the start rules and their element watcher, which the script tag loads from beside itself once a flow has a start rule; the stores are the script's (chunk-host.ts).
import { WATCH_CHUNK } from './rules.js';
import { watchStartRules } from './start-rules.js';

(globalThis as Record<symbol, unknown>)[WATCH_CHUNK] = watchStartRules;
