// GET /v1/public/flowStates: one user's state in every flow; an unknown user reads as new and is not created.
import type { FastifyInstance } from 'fastify';
import type { FlowStatesQuery } from '../../src/api/wire.js';
import type { AppDeps } from '../app.js';
import { idSchema } from '../http/schemas.js';
import { readFlowStates } from '../state/read.js';

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
}
