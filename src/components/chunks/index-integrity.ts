// The SHA-384 (base64) of each file beside the script that few pages load, by name (`onboarding-strings-fr`, …, `onboarding-forward`, `onboarding-debug`): esbuild.config.mjs fills it in when it builds dist/onboarding-hashes.js, after those files.
export const INDEX_INTEGRITY: Record<string, string> = {};
