// POST /v1/public/groups: upsert a group and, with userId, add that user to it; answers 201 {}.
import type { FastifyInstance } from 'fastify';
import type { GroupUpsertRequest, GroupUpsertResponse } from '../../src/api/wire.js';
import type { AppDeps } from '../app.js';
import { runIdempotent } from '../http/idempotency.js';
import { eventsSchema, idSchema, propertiesSchema } from '../http/schemas.js';
import { upsertGroup } from '../state/groups.js';

export function registerGroupRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post<{ Body: GroupUpsertRequest }>(
    '/v1/public/groups',
    {
      schema: {
        body: {
          type: 'object',
          required: ['groupId'],
          additionalProperties: false,
          properties: {
            groupId: idSchema,
            userId: idSchema,
            properties: propertiesSchema(deps.limits),
            events: eventsSchema(deps.limits),
          },
        },
      },
    },
    async (request, reply) =>
      runIdempotent(deps.db, request, reply, request.body.userId ?? null, async (tx) => {
        await upsertGroup(tx, request.body, deps.limits);
        const body: GroupUpsertResponse = {};
        return { status: 201, body };
      }),
  );
}
