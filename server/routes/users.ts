// Users: POST /v1/public/users (upsert, answered with flow states), and with a private key GET /v1/users?foreignId= (export),
// GET /v1/users/{userId}/explain (why each flow is or is not shown) and DELETE (hard delete).
import type { FastifyInstance } from 'fastify';
import type {
  DeleteUserQuery,
  ExplainQuery,
  ExplainResponse,
  UserRecord,
  UserUpsertRequest,
  UserUpsertResponse,
} from '../../src/api/wire.js';
import { nowOf, type AppDeps } from './deps.js';
import { runIdempotent } from '../http/idempotency.js';
import { HttpProblem } from '../shared/problem.js';
import { contentQuerySchema, eventsSchema, idSchema, propertiesSchema, userHashSchema } from '../http/schemas.js';
import { stateAnswerModes, type StateQuery } from '../http/state-query.js';
import { identifiedJson } from '../shared/raw-json.js';
import { readFlowStatesJson } from '../state/read.js';
import { deleteUser, readUserRecord, upsertUser } from '../state/users.js';
import { explainUser } from '../state/explain.js';

/** The older alias `foreignId` names the user as `userId` does; both may be sent only when they agree. */
function userIdOf(body: Partial<UserUpsertRequest> & { foreignId?: string }): string {
  if (body.userId !== undefined && body.foreignId !== undefined && body.userId !== body.foreignId) {
    throw new HttpProblem(
      400,
      'body fields "userId" and "foreignId" name different users; send one of them',
      'foreignId',
    );
  }
  const userId = body.userId ?? body.foreignId;
  if (userId === undefined) throw new HttpProblem(400, 'body field "userId" is required', 'userId');
  return userId;
}

export function registerUserRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post<{ Body: Partial<UserUpsertRequest> & { foreignId?: string; userHash?: string }; Querystring: StateQuery }>(
    '/v1/public/users',
    {
      // The older alias names the user as well.
      config: {
        namesUser: (request) => {
          const body = (request.body ?? {}) as { userId?: string; foreignId?: string; userHash?: string };
          return { userId: body.userId ?? body.foreignId, userHash: body.userHash };
        },
      },
      schema: {
        querystring: contentQuerySchema,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            userId: idSchema,
            foreignId: idSchema,
            userHash: userHashSchema,
            properties: propertiesSchema(deps.limits),
            events: eventsSchema(deps.limits),
            bootstrapFlowStates: { type: 'boolean' },
            linkGuestId: idSchema,
          },
        },
      },
    },
    async (request, reply) => {
      const { foreignId: _alias, userHash: _hash, ...rest } = request.body;
      const body: UserUpsertRequest = { ...rest, userId: userIdOf(request.body) };
      const modes = stateAnswerModes(request);
      return runIdempotent(
        deps.db,
        request,
        reply,
        body.userId,
        async (tx) => {
          const { userId, guestLinked } = await upsertUser(tx, deps.catalog, body, nowOf(deps), deps.limits);
          const states = await readFlowStatesJson(tx, deps.catalog, userId, undefined, { ...modes, now: nowOf(deps) });
          return { status: 201, body: identifiedJson(userId, guestLinked, states), keep: { userId, guestLinked } };
        },
        // A replay answers with the user's state as it is now.
        async (tx, kept) => {
          const { userId, guestLinked } = kept as Omit<UserUpsertResponse, 'flowStates'>;
          return identifiedJson(
            userId,
            guestLinked,
            await readFlowStatesJson(tx, deps.catalog, userId, undefined, { ...modes, now: nowOf(deps) }),
          );
        },
      );
    },
  );

  // Another query field is refused (400), as on every private path.
  const foreignIdQuery = {
    querystring: {
      type: 'object',
      required: ['foreignId'],
      additionalProperties: false,
      properties: { foreignId: idSchema },
    },
  } as const;

  app.get<{ Querystring: DeleteUserQuery }>('/v1/users', { schema: foreignIdQuery }, async (request) => {
    const { foreignId } = request.query;
    const record: UserRecord | undefined = await readUserRecord(deps.db, foreignId);
    if (!record) throw new HttpProblem(404, `There is no user "${foreignId}".`, 'foreignId');
    return record;
  });

  app.get<{ Params: { userId: string }; Querystring: ExplainQuery }>(
    '/v1/users/:userId/explain',
    {
      schema: {
        params: { type: 'object', required: ['userId'], properties: { userId: idSchema } },
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { flowSlug: { type: 'string', minLength: 1, maxLength: 128 }, groupId: idSchema },
        },
      },
    },
    async (request): Promise<ExplainResponse> =>
      explainUser(deps.db, deps.catalog, request.params.userId, {
        flowSlug: request.query.flowSlug,
        groupId: request.query.groupId,
        now: nowOf(deps),
      }),
  );

  app.delete<{ Querystring: DeleteUserQuery }>('/v1/users', { schema: foreignIdQuery }, async (request, reply) => {
    const { foreignId } = request.query;
    const deleted = await deps.db.transaction((tx) => deleteUser(tx, foreignId));
    if (!deleted) throw new HttpProblem(404, `There is no user "${foreignId}".`, 'foreignId');
    return reply.code(204).send();
  });
}
