// Users: POST /v1/public/users (upsert, answered with flow states) and DELETE /v1/users?foreignId= (private key, hard delete).
import type { FastifyInstance } from 'fastify';
import type { DeleteUserQuery, UserUpsertRequest, UserUpsertResponse } from '../../src/api/wire.js';
import type { AppDeps } from '../app.js';
import { runIdempotent } from '../http/idempotency.js';
import { HttpProblem } from '../http/problem.js';
import { eventsSchema, idSchema, propertiesSchema } from '../http/schemas.js';
import { readFlowStates } from '../state/read.js';
import { deleteUser, upsertUser } from '../state/users.js';

export function registerUserRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post<{ Body: UserUpsertRequest }>(
    '/v1/public/users',
    {
      schema: {
        body: {
          type: 'object',
          required: ['userId'],
          additionalProperties: false,
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
    async (request, reply) =>
      runIdempotent(
        deps.db,
        request,
        reply,
        request.body.userId,
        async (tx) => {
          const body = request.body;
          const guestLinked = await upsertUser(tx, deps.catalog, body, new Date(), deps.limits);
          const response: UserUpsertResponse = {
            userId: body.userId,
            guestLinked,
            flowStates: await readFlowStates(tx, deps.catalog, body.userId),
          };
          return { status: 201, body: response, keep: { userId: body.userId, guestLinked } };
        },
        // A replay answers with the user's state as it is now.
        async (tx, kept) => ({ ...(kept as Omit<UserUpsertResponse, 'flowStates'>), flowStates: await readFlowStates(tx, deps.catalog, request.body.userId) }),
      ),
  );

  app.delete<{ Querystring: DeleteUserQuery }>(
    '/v1/users',
    {
      schema: {
        querystring: {
          type: 'object',
          required: ['foreignId'],
          properties: { foreignId: idSchema },
        },
      },
    },
    async (request, reply) => {
      const { foreignId } = request.query;
      const deleted = await deps.db.transaction((tx) => deleteUser(tx, foreignId));
      if (!deleted) throw new HttpProblem(404, `There is no user "${foreignId}".`, 'foreignId');
      return reply.code(204).send();
    },
  );
}
