// GET /v1/public/flows: the organisation's flow definitions, paged, with an ETag.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { FlowsResponse } from '../../src/api/wire.js';
import type { AppDeps } from '../app.js';
import { HttpProblem } from '../http/problem.js';

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

function pageParam(name: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max) {
    throw new HttpProblem(400, `query field "${name}" must be a whole number from 0 to ${max}`, name);
  }
  return Number(value);
}

export function registerFlowRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Querystring: { offset?: string; limit?: string } }>('/v1/public/flows', async (request, reply) => {
    const offset = pageParam('offset', request.query.offset, 0, Number.MAX_SAFE_INTEGER);
    const limit = pageParam('limit', request.query.limit, DEFAULT_PAGE, MAX_PAGE);
    const all = deps.catalog.list().map((entry) => entry.flow);
    const data = all.slice(offset, offset + limit);
    const body: FlowsResponse = { data, offset, limit: data.length };
    const text = JSON.stringify(body);
    const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
    reply.header('ETag', etag).header('Cache-Control', 'no-cache');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type('application/json').send(text);
  });
}
