// Global setup for suites that load dist/: rebuilds the script and the service so they never test a stale build, once per run.
import { execFileSync } from 'node:child_process';

/** Set once the build ran in this process: every project that loads dist/ names this setup, and one build serves them all. */
const BUILT = 'ONBOARDING_TEST_BUILT';

export default function setup(): void {
  if (process.env[BUILT]) return;
  execFileSync(process.execPath, ['esbuild.config.mjs'], { stdio: 'inherit' });
  process.env[BUILT] = '1';
}
