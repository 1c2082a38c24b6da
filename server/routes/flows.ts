// GET /v1/public/flows?offset=&limit=: the organisation's flow definitions (ACTIVE ones for a public key), paged (default 100, at most 1000), with an ETag.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Flow, FlowsResponse } from '../../src/api/wire.js';
import type { AppDeps } from './deps.js';
import { HttpProblem } from '../shared/problem.js';
import { idSchema } from '../http/schemas.js';

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

function pageParam(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  if (typeof value !== 'string' || !/^\d{1,16}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new HttpProblem(400, `query field "${name}" must be a whole number from ${min} to ${max}`, name);
  }
  return Number(value);
}

/** `If-None-Match` may list several tags, weak ones included, or be `*`. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || value.replace(/^W\//, '') === etag;
  });
}

/**
 * Whether the request may see the flow: a DRAFT or ARCHIVED flow's content reaches no client, so a public key (the
 * key in a page) sees ACTIVE flows only; a private key sees every flow of the organisation.
 */
const visibleTo = (request: FastifyRequest, flow: Flow) => flow.status === 'ACTIVE' || request.apiScope === 'private';

export function registerFlowRoutes(app: FastifyInstance, deps: AppDeps): void {
  // One flow by slug (older clients read flows one at a time); the same record as in the listing.
  app.get<{ Params: { slug: string } }>(
    '/v1/public/flows/:slug',
    { schema: { params: { type: 'object', required: ['slug'], properties: { slug: idSchema } } } },
    async (request) => {
      const entry = deps.catalog.get(request.params.slug);
      if (!entry || !visibleTo(request, entry.flow))
        throw new HttpProblem(404, `There is no flow with slug "${request.params.slug}".`, 'slug');
      const flow: Flow = entry.flow;
      return flow;
    },
  );

  app.get<{ Querystring: { offset?: string; limit?: string } }>('/v1/public/flows', async (request, reply) => {
    const offset = pageParam('offset', request.query.offset, 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = pageParam('limit', request.query.limit, DEFAULT_PAGE, 1, MAX_PAGE);
    const all = deps.catalog.list().flatMap((entry) => (visibleTo(request, entry.flow) ? [entry.flow] : []));
    const data = all.slice(offset, offset + limit);
    const body: FlowsResponse = { data, offset, limit: data.length };
    const text = JSON.stringify(body);
    const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
    reply.header('ETag', etag).header('Cache-Control', 'no-cache');
    if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.type('application/json').send(text);
  });
}
