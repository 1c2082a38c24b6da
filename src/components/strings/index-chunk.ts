// dist/onboarding-strings.js: the SHA-384 of each language's strings chunk, loaded (checked against its own hash in the script) only on a page whose locale has one, so the script carries one hash for the eight languages.
import { STRINGS_INDEX } from './define.js';
import { STRINGS_INTEGRITY } from './strings-integrity.js';

(globalThis as Record<symbol, unknown>)[STRINGS_INDEX] = STRINGS_INTEGRITY;
