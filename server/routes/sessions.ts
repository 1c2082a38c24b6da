// POST /v1/public/sessions: identify and group in one request (Frigade's SDKs use it), answered like the users upsert.
import type { FastifyInstance } from 'fastify';
import type { SessionRequest, SessionResponse } from '../../src/api/wire.js';
import { nowOf, type AppDeps } from './deps.js';
import { runIdempotent } from '../http/idempotency.js';
import { HttpProblem } from '../shared/problem.js';
import { userInBody } from '../http/identity.js';
import { contentQuerySchema, eventsSchema, idSchema, propertiesSchema, userHashSchema } from '../http/schemas.js';
import { stateAnswerModes, type StateQuery } from '../http/state-query.js';
import { upsertGroup } from '../state/groups.js';
import { identifiedJson } from '../shared/raw-json.js';
import { readFlowStatesJson } from '../state/read.js';
import { bootstrapFlowStates, upsertUser } from '../state/users.js';

export function registerSessionRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post<{ Body: SessionRequest; Querystring: StateQuery }>(
    '/v1/public/sessions',
    {
      config: { namesUser: userInBody },
      schema: {
        querystring: contentQuerySchema,
        body: {
          type: 'object',
          required: ['userId'],
          additionalProperties: false,
          properties: {
            userId: idSchema,
            userHash: userHashSchema,
            groupId: idSchema,
            userProperties: propertiesSchema(deps.limits),
            userEvents: eventsSchema(deps.limits),
            groupProperties: propertiesSchema(deps.limits),
            groupEvents: eventsSchema(deps.limits),
            linkGuestId: idSchema,
            bootstrapFlowStates: { type: 'boolean' },
          },
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const modes = stateAnswerModes(request);
      if (body.groupId === undefined && (body.groupProperties !== undefined || body.groupEvents !== undefined)) {
        const field = body.groupProperties !== undefined ? 'groupProperties' : 'groupEvents';
        throw new HttpProblem(400, `body field "${field}" needs "groupId", the group it belongs to`, field);
      }
      return runIdempotent(
        deps.db,
        request,
        reply,
        body.userId,
        async (tx) => {
          // One transaction: the user (guest link, properties, events), then the group with the user as a member.
          const now = nowOf(deps);
          const { userId, guestLinked } = await upsertUser(
            tx,
            deps.catalog,
            {
              userId: body.userId,
              properties: body.userProperties,
              events: body.userEvents,
              linkGuestId: body.linkGuestId,
            },
            now,
            deps.limits,
          );
          if (body.groupId !== undefined) {
            await upsertGroup(
              tx,
              { groupId: body.groupId, userId, properties: body.groupProperties, events: body.groupEvents },
              deps.limits,
              now,
            );
          }
          if (body.bootstrapFlowStates) await bootstrapFlowStates(tx, deps.catalog, userId, now, body.groupId);
          const states = await readFlowStatesJson(tx, deps.catalog, userId, body.groupId, {
            ...modes,
            now: nowOf(deps),
          });
          return { status: 201, body: identifiedJson(userId, guestLinked, states), keep: { userId, guestLinked } };
        },
        async (tx, kept) => {
          const { userId, guestLinked } = kept as Omit<SessionResponse, 'flowStates'>;
          return identifiedJson(
            userId,
            guestLinked,
            await readFlowStatesJson(tx, deps.catalog, userId, body.groupId, { ...modes, now: nowOf(deps) }),
          );
        },
      );
    },
  );
}
