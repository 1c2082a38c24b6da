// The SHA-384 of each file the script tag loads from beside itself, by name (`onboarding-tour`, …): esbuild.config.mjs fills it in when it builds dist/onboarding.js, after the chunks.
export const INTEGRITY: Record<string, string> = {};
