// Where dist/onboarding-hashes.js leaves, for the script that loaded it, the SHA-384 of each file beside the script that few pages load (index-integrity.ts).
export const HASH_INDEX = Symbol.for('onboarding.hash-index');
