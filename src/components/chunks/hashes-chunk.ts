// dist/onboarding-hashes.js: the SHA-384 of each file beside the script that few pages load (each language's strings, forwarding, debug()), loaded before the first of them (checked against its own hash in the script), so the script carries one hash for them all.
import { HASH_INDEX } from './hash-index.js';
import { INDEX_INTEGRITY } from './index-integrity.js';

(globalThis as Record<symbol, unknown>)[HASH_INDEX] = INDEX_INTEGRITY;
