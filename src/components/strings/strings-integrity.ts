// The SHA-384 (base64) of each language's strings chunk, by name (`onboarding-strings-fr`, …): esbuild.config.mjs fills it in when it builds dist/onboarding-strings.js, after those chunks.
export const STRINGS_INTEGRITY: Record<string, string> = {};
