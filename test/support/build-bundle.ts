// Global setup for suites that load dist/: rebuilds the script and the service so they never test a stale build.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['esbuild.config.mjs'], { stdio: 'inherit' });
}
