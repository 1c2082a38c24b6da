// Test projects: unit and component tests in happy-dom, service tests over loopback HTTP, browser tests in real Chromium, the journeys also in Firefox and WebKit, and checks of the repository's own files.
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/** The journeys on one more engine. */
const engineProject = (engine: 'firefox' | 'webkit'): TestProjectInlineConfiguration => ({
  extends: true,
  test: {
    name: engine,
    include: ['test/engines/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['test/support/engines-setup.ts', 'test/support/build-bundle.ts'],
    provide: { engine },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

/** Suites of the script and its elements in happy-dom, each a folder of test/. */
const domProject = (name: string, folder: string): TestProjectInlineConfiguration => ({
  extends: true,
  test: {
    name,
    include: [`test/${folder}/**/*.test.ts`],
    environment: 'happy-dom',
    setupFiles: ['test/support/dom-setup.ts'],
  },
});

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Service and browser suites start real servers; keep concurrency modest on a 2-core machine.
    maxWorkers: 2,
    // What a test waits for through expect.poll lands over real sockets and storage: on two loaded cores, a write can
    // take seconds, so a poll gives up after 5 s, not vitest's 1 s.
    expect: { poll: { timeout: 5_000 } },
    projects: [
      domProject('unit', 'unit'),
      {
        extends: true,
        // Checks of the repository itself, with no server of their own: the package's files, the Dockerfile, the direction of
        // imports, the flow schema and the docs' examples and links, the wire types against the service's schemas.
        test: {
          name: 'repo',
          include: ['test/repo/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/support/build-bundle.ts'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      // The script's core in happy-dom against the real service on loopback.
      domProject('script', 'script'),
      domProject('components', 'components'),
      {
        extends: true,
        test: {
          name: 'service',
          include: ['test/server/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/support/build-bundle.ts'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          // The same service suite on a real PostgreSQL server, started by the global setup. The files left out test
          // what only the embedded store has (the data-directory lock, restarts on a directory, PGlite's statements, its
          // queue's age, its maintenance), the CLI's processes (its MCP server's too), or what no database changes (the
          // transition plan, the translations files, the turn queue, and webhooks' signing and retries over loopback,
          // whose outbox on PostgreSQL test/postgres/ tests with several instances). The repository's own checks are in
          // test/repo/, a project of their own.
          name: 'service-postgres',
          include: ['test/server/**/*.test.ts', 'test/postgres/**/*.test.ts'],
          exclude: [
            'test/server/cli.test.ts',
            'test/server/maintenance.test.ts',
            'test/server/mcp.test.ts',
            'test/server/persistence.test.ts',
            'test/server/pglite-statements.test.ts',
            'test/server/transition-plan.test.ts',
            'test/server/queue-age.test.ts',
            'test/server/translations-cli.test.ts',
            'test/server/xliff-tools.test.ts',
            'test/server/turn-queue.test.ts',
            'test/server/webhooks.test.ts',
          ],
          environment: 'node',
          globalSetup: ['test/support/build-bundle.ts', 'test/support/postgres-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts', 'test/engines/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/support/chromium-setup.ts', 'test/support/build-bundle.ts'],
          provide: { engine: 'chromium' },
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      // The journeys of test/engines/ again in Firefox ESR (driven over WebDriver BiDi) and in WebKitGTK's MiniBrowser
      // (through WebKitWebDriver under an Xvfb display of its own). Only those: the rest of the browser suite stays on
      // Chromium, which keeps `npm test` within its time on two cores.
      engineProject('firefox'),
      engineProject('webkit'),
      {
        extends: true,
        test: {
          name: 'budget',
          include: ['test/budget/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/support/build-bundle.ts'],
        },
      },
    ],
  },
});
