// POST /v1/public/users: upsert a user (properties merge, events append) and answer with their flow states.
import type { FastifyInstance } from 'fastify';
import type { UserUpsertRequest, UserUpsertResponse } from '../../src/api/wire.js';
import type { AppDeps } from '../app.js';
import { eventsSchema, idSchema, propertiesSchema } from '../http/schemas.js';
import { upsertUser } from '../state/users.js';
import { readFlowStates } from '../state/read.js';

export function registerUserRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post<{ Body: UserUpsertRequest }>(
    '/v1/public/users',
    {
      schema: {
        body: {
          type: 'object',
          required: ['userId'],
          properties: {
            userId: idSchema,
            properties: propertiesSchema(deps.limits),
            events: eventsSchema(deps.limits),
            bootstrapFlowStates: { type: 'boolean' },
            linkGuestId: idSchema,
          },
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const guestLinked = await deps.db.transaction((tx) => upsertUser(tx, body));
      const response: UserUpsertResponse = {
        userId: body.userId,
        guestLinked,
        flowStates: await readFlowStates(deps.db, deps.catalog, body.userId),
      };
      return reply.code(201).send(response);
    },
  );
}
