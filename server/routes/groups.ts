// POST /v1/public/groups: upsert a group and, with userId, add that user to it; answers 201 {}. Also the older POST /v1/public/userGroups.
import type { FastifyInstance } from 'fastify';
import type { GroupUpsertRequest, GroupUpsertResponse, UserGroupRequest } from '../../src/api/wire.js';
import { nowOf, type AppDeps } from './deps.js';
import { runIdempotent } from '../http/idempotency.js';
import { userInBody } from '../http/identity.js';
import { eventsSchema, idSchema, propertiesSchema, userHashSchema } from '../http/schemas.js';
import { upsertGroup } from '../state/groups.js';

export function registerGroupRoutes(app: FastifyInstance, deps: AppDeps): void {
  const upsert = (
    request: Parameters<typeof runIdempotent>[1],
    reply: Parameters<typeof runIdempotent>[2],
    body: GroupUpsertRequest,
  ) =>
    runIdempotent(deps.db, request, reply, body.userId ?? null, async (tx) => {
      await upsertGroup(tx, body, deps.limits, nowOf(deps));
      const response: GroupUpsertResponse = {};
      return { status: 201, body: response };
    });

  app.post<{ Body: GroupUpsertRequest }>(
    '/v1/public/groups',
    {
      config: { namesUser: userInBody },
      schema: {
        body: {
          type: 'object',
          required: ['groupId'],
          additionalProperties: false,
          properties: {
            groupId: idSchema,
            userId: idSchema,
            userHash: userHashSchema,
            properties: propertiesSchema(deps.limits),
            events: eventsSchema(deps.limits),
          },
        },
      },
    },
    async (request, reply) => {
      const { userHash: _hash, ...body } = request.body as GroupUpsertRequest & { userHash?: string };
      return upsert(request, reply, body);
    },
  );

  // The older spelling of the same upsert, kept for clients written against it.
  app.post<{ Body: UserGroupRequest }>(
    '/v1/public/userGroups',
    {
      config: {
        namesUser: (request) => {
          const body = (request.body ?? {}) as { foreignUserId?: string; userHash?: string };
          return { userId: body.foreignUserId, userHash: body.userHash };
        },
      },
      schema: {
        body: {
          type: 'object',
          required: ['foreignUserId', 'foreignUserGroupId'],
          additionalProperties: false,
          properties: {
            foreignUserId: idSchema,
            foreignUserGroupId: idSchema,
            userHash: userHashSchema,
            properties: propertiesSchema(deps.limits),
            events: eventsSchema(deps.limits),
          },
        },
      },
    },
    async (request, reply) => {
      const { foreignUserId, foreignUserGroupId, properties, events } = request.body;
      // userHash was checked before the handler; it is not part of the upsert.
      return upsert(request, reply, { groupId: foreignUserGroupId, userId: foreignUserId, properties, events });
    },
  );
}
