// Health checks for a load balancer or an orchestrator: /healthz (the process answers) and /readyz (it can serve).
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.js';
import { HttpProblem } from '../shared/problem.js';
import { SCHEMA_VERSION, schemaVersion } from '../storage/schema.js';

export function registerHealthRoutes(app: FastifyInstance, deps: AppDeps): void {
  // No key, no rate limit, never shed: a probe must see the process as it is.
  const config = { public: true, alwaysServe: true, rateLimit: false as const, pressureHandler: () => undefined };
  app.get('/healthz', { config }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config }, async () => {
    let version: number;
    try {
      version = await schemaVersion(deps.db);
    } catch (error) {
      throw new HttpProblem(
        503,
        `The database cannot be reached: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (version < SCHEMA_VERSION)
      throw new HttpProblem(
        503,
        `The database schema is at version ${version}; this service needs ${SCHEMA_VERSION} (run npm run migrate).`,
      );
    if (!deps.catalog.loaded) throw new HttpProblem(503, 'The flow catalog has not been loaded yet.');
    return { status: 'ready', schema: version, flows: deps.catalog.list().length };
  });
}
