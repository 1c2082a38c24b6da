// Benchmark-only route (ONBOARDING_BENCH_ROUTES=1): the ceiling of a request on this database, one indexed primary-key SELECT.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.js';
import { idSchema } from '../http/schemas.js';

export function registerBenchRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Querystring: { userId: string } }>(
    '/v1/public/bench/ceiling',
    { schema: { querystring: { type: 'object', required: ['userId'], properties: { userId: idSchema } } } },
    async (request) => {
      const rows = await deps.db.query('SELECT id FROM users WHERE id = $1', [request.query.userId]);
      return { found: rows.length > 0 };
    },
  );
}
