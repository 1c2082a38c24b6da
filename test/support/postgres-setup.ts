// Global setup of the service suite on PostgreSQL: a throwaway cluster of Debian's server on a loopback port, for the whole run.
import type { TestProject } from 'vitest/node';
import { FAST_UNSAFE_SETTINGS, findPostgresBin, startPostgresCluster } from '../../scripts/postgres-cluster.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL server for this run: each test service gets a fresh database on it. */
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  if (!findPostgresBin()) {
    // Nothing is skipped: without a server this project cannot say anything, so it fails and says what to do.
    throw new Error(
      'The PostgreSQL project needs the PostgreSQL server binaries (Debian: `apt-get install -y postgresql`; .ci/run installs them), or PG_BIN pointing at their folder.',
    );
  }
  const cluster = await startPostgresCluster({ settings: FAST_UNSAFE_SETTINGS });
  project.provide('postgresUrl', cluster.url);
  return () => cluster.stop();
}
