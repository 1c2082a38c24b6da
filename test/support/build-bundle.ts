// Global setup for suites that load dist/onboarding.js: rebuilds the browser bundle so they never test a stale one.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['esbuild.config.mjs', '--only=browser'], { stdio: 'inherit' });
}
