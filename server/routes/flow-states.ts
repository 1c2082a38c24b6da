// /v1/public/flowStates: read one user's state in every flow (an unknown user reads as new and is not created), and write a transition.
import type { FastifyInstance } from 'fastify';
import { ACTION_TYPES, type FlowStatesQuery, type FlowStateWriteRequest, type FlowStateWriteResponse } from '../../src/api/wire.js';
import type { AppDeps } from '../app.js';
import { runIdempotent } from '../http/idempotency.js';
import { HttpProblem } from '../http/problem.js';
import { idSchema } from '../http/schemas.js';
import { readFlowStates } from '../state/read.js';
import { applyTransition } from '../state/transitions.js';

export function registerFlowStateRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Querystring: FlowStatesQuery }>(
    '/v1/public/flowStates',
    {
      schema: {
        querystring: {
          type: 'object',
          required: ['userId'],
          properties: { userId: idSchema, groupId: idSchema },
        },
      },
    },
    async (request) => readFlowStates(deps.db, deps.catalog, request.query.userId, request.query.groupId),
  );

  app.post<{ Body: FlowStateWriteRequest }>(
    '/v1/public/flowStates',
    {
      schema: {
        body: {
          type: 'object',
          required: ['userId', 'flowSlug', 'stepId', 'actionType'],
          additionalProperties: false,
          properties: {
            userId: idSchema,
            groupId: idSchema,
            flowSlug: idSchema,
            // Empty is allowed for flow-level actions; step actions need a step of the flow.
            stepId: { ...idSchema, minLength: 0 },
            actionType: { type: 'string', enum: [...ACTION_TYPES] },
            data: {},
            createdAt: { type: 'string', format: 'date-time', maxLength: 64 },
          },
        },
      },
    },
    async (request, reply) => {
      checkDataSize(request.body.data, deps.limits.dataBytes);
      const { userId, groupId } = request.body;
      return runIdempotent(
        deps.db,
        request,
        reply,
        userId,
        async (tx) => {
          const body: FlowStateWriteResponse = await applyTransition(tx, deps.catalog, request.body, new Date());
          return { status: 201, body, keep: null };
        },
        // A replay answers with the user's state as it is now.
        (tx) => readFlowStates(tx, deps.catalog, userId, groupId),
      );
    },
  );
}

/** A transition's `data` is kept with every later state answer, so its size is capped. */
function checkDataSize(data: unknown, limit: number): void {
  if (data === undefined) return;
  const bytes = Buffer.byteLength(JSON.stringify(data));
  if (bytes > limit) {
    throw new HttpProblem(400, `body field "data" is ${bytes} bytes as JSON; a transition's data may be at most ${limit} bytes`, 'data');
  }
}
