// GET /v1/collections: the collections in force (collections.yaml), each with its flows in priority order; private key only.
import type { FastifyInstance } from 'fastify';
import type { CollectionsResponse } from '../../src/api/wire.js';
import type { AppDeps } from './deps.js';

/** No query field: another one is refused (400), as everywhere. */
const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;

export function registerCollectionRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/v1/collections', { schema: { querystring: noQuery } }, async (): Promise<CollectionsResponse> => {
    const version = deps.catalog.current();
    return {
      collections: version.collections.map((collection) => ({
        id: collection.id,
        type: collection.type,
        coolOff: collection.coolOff,
        coolOffSeconds: collection.coolOffMs / 1000,
        allowedComponents: collection.allowedComponents,
        flows: collection.flows.map((slug) => {
          // The last good collections stay in force when a flow file goes, so a slug may name no flow now.
          const flow = version.bySlug.get(slug)?.flow;
          return { slug, name: flow?.name ?? null, type: flow?.type ?? null, status: flow?.status ?? null };
        }),
      })),
    };
  });
}
