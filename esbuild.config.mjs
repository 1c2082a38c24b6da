// Build: the script-tag IIFE, the ESM build for bundlers, the service's runnable build and the dashboard, all with source maps.
// Usage: node esbuild.config.mjs [--only=browser|server|dashboard]
import { copyFileSync, mkdirSync } from 'node:fs';
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
  /** dist/server.mjs: the reference service; npm dependencies stay external. */
  server: {
    entryPoints: ['server/main.ts'],
    outfile: 'dist/server.mjs',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  },
  /** dist/dashboard/: the analytics dashboard the service serves at /dashboard (a module script, its page and stylesheet). */
  dashboard: {
    ...browserShared,
    entryPoints: ['src/dashboard/main.ts'],
    outfile: 'dist/dashboard/dashboard.js',
    format: 'esm',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
  },
};

const selected =
  only === 'browser' ? [builds.iife, builds.esm] : only === 'server' ? [builds.server] : only === 'dashboard' ? [builds.dashboard] : Object.values(builds);
await Promise.all(selected.map((options) => build(options)));
if (selected.includes(builds.dashboard)) {
  mkdirSync('dist/dashboard', { recursive: true });
  for (const file of ['index.html', 'dashboard.css']) copyFileSync(`src/dashboard/${file}`, `dist/dashboard/${file}`);
}
