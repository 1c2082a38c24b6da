// Build: the script-tag IIFE, the ESM build for bundlers, and the service's runnable build, all with source maps.
// Usage: node esbuild.config.mjs [--only=browser|server]
import { build } from 'esbuild';

const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);

const browserShared = {
  bundle: true,
  sourcemap: true,
  target: 'es2021',
  tsconfig: 'tsconfig.json',
  legalComments: 'none',
  logLevel: 'warning',
};

const nodeShared = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
  banner: { js: '#!/usr/bin/env node' },
};

export const builds = {
  /** dist/onboarding.js: minified IIFE for a <script> tag; sets window.Onboarding. */
  iife: {
    ...browserShared,
    entryPoints: ['src/global.ts'],
    outfile: 'dist/onboarding.js',
    format: 'iife',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
  },
  /** dist/onboarding.mjs: ESM for bundler users; lit and nanostores stay imports so apps share one copy. */
  esm: {
    ...browserShared,
    entryPoints: ['src/index.ts'],
    outfile: 'dist/onboarding.mjs',
    format: 'esm',
    external: ['lit', 'lit/*', 'nanostores'],
  },
  /** dist/server.mjs: the reference service; npm dependencies stay external. Also the `onboarding-server` bin. */
  server: {
    entryPoints: ['server/main.ts'],
    outfile: 'dist/server.mjs',
    ...nodeShared,
  },
  /** dist/flows.mjs: `onboarding-flows check <dir>`, the flow file checker teams run in their CI. */
  flows: {
    entryPoints: ['server/flows/cli.ts'],
    outfile: 'dist/flows.mjs',
    ...nodeShared,
  },
};

const selected =
  only === 'browser' ? [builds.iife, builds.esm] : only === 'server' ? [builds.server, builds.flows] : Object.values(builds);
await Promise.all(selected.map((options) => build(options)));
