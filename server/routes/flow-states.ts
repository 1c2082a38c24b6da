// /v1/public/flowStates: read one user's state in every flow (GET, or POST without actionType) and write a transition (POST).
import type { FastifyInstance } from 'fastify';
import {
  ACTION_TYPES,
  type FlowStatesQuery,
  type FlowStatesReadRequest,
  type FlowStateWriteRequest,
} from '../../src/api/wire.js';
import { nowOf, type AppDeps } from './deps.js';
import { runIdempotent } from '../http/idempotency.js';
import { HttpProblem } from '../shared/problem.js';
import { userInBody } from '../http/identity.js';
import {
  contentQuerySchema,
  idSchema,
  knownVersionsSchema,
  localeSchema,
  transitionProperties,
  userHashSchema,
} from '../http/schemas.js';
import { stateAnswerModes, type StateQuery } from '../http/state-query.js';
import { readFlowStatesJson } from '../state/read.js';
import { applyTransitionJson } from '../state/transitions.js';

/** Fields only a write carries: a body with any of them and no actionType is a write missing its action. */
const WRITE_FIELDS = ['flowSlug', 'stepId', 'data', 'createdAt'] as const;

export function registerFlowStateRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Querystring: FlowStatesQuery }>(
    '/v1/public/flowStates',
    {
      config: { namesUser: userInBody },
      schema: {
        querystring: {
          type: 'object',
          required: ['userId'],
          properties: {
            userId: idSchema,
            groupId: idSchema,
            userHash: userHashSchema,
            ...contentQuerySchema.properties,
          },
        },
      },
    },
    async (request) =>
      readFlowStatesJson(deps.db, deps.catalog, request.query.userId, request.query.groupId, {
        ...stateAnswerModes(request),
        now: nowOf(deps),
      }),
  );

  app.post<{
    Body: Partial<FlowStateWriteRequest> & FlowStatesReadRequest & { userHash?: string };
    Querystring: StateQuery;
  }>(
    '/v1/public/flowStates',
    {
      // Without actionType it is a read, which the per-user write limit does not count.
      config: {
        namesUser: userInBody,
        isWrite: (request) => (request.body as { actionType?: string } | undefined)?.actionType !== undefined,
      },
      schema: {
        querystring: contentQuerySchema,
        body: {
          type: 'object',
          required: ['userId'],
          additionalProperties: false,
          properties: {
            ...transitionProperties(ACTION_TYPES),
            knownVersions: knownVersionsSchema,
            locale: localeSchema,
          },
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      // The body's locale (a read's) wins over the query's.
      const modes = stateAnswerModes({
        headers: request.headers,
        query: { ...request.query, ...(body.locale === undefined ? {} : { locale: body.locale }) },
      });
      if (body.actionType === undefined) {
        // No actionType: a read, answered like the GET, unless the body carries what only a write has.
        const writeField = WRITE_FIELDS.find((field) => body[field] !== undefined);
        if (writeField) throw new HttpProblem(400, 'body field "actionType" is required', 'actionType');
        const states = await readFlowStatesJson(deps.db, deps.catalog, body.userId, body.groupId, {
          ...modes,
          knownVersions: body.knownVersions,
          now: nowOf(deps),
        });
        return reply.code(200).send(states);
      }
      if (body.knownVersions !== undefined)
        throw new HttpProblem(
          400,
          'body field "knownVersions" is only taken by a read (no actionType)',
          'knownVersions',
        );
      if (body.flowSlug === undefined) throw new HttpProblem(400, 'body field "flowSlug" is required', 'flowSlug');
      const write = body as FlowStateWriteRequest;
      checkDataSize(write.data, deps.limits.dataBytes);
      return runIdempotent(
        deps.db,
        request,
        reply,
        write.userId,
        async (tx) => ({
          status: 201,
          body: await applyTransitionJson(tx, deps.catalog, write, nowOf(deps), modes),
          keep: null,
        }),
        // A replay answers with the user's state as it is now.
        (tx) => readFlowStatesJson(tx, deps.catalog, write.userId, write.groupId, { ...modes, now: nowOf(deps) }),
      );
    },
  );
}

/** A transition's `data` is kept with every later state answer, so its size is capped. */
function checkDataSize(data: unknown, limit: number): void {
  if (data === undefined) return;
  const bytes = Buffer.byteLength(JSON.stringify(data));
  if (bytes > limit) {
    throw new HttpProblem(
      400,
      `body field "data" is ${bytes} bytes as JSON; a transition's data may be at most ${limit} bytes`,
      'data',
    );
  }
}
