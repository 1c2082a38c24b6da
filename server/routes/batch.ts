// POST /v1/public/batch: several writes in one request, each applied exactly once under its own key, then one state read.
import type { FastifyInstance } from 'fastify';
import {
  ACTION_TYPES,
  BATCH_PATHS,
  type BatchRequest,
  type BatchResponse,
  type BatchResult,
  type BatchWrite,
  type GroupUpsertResponse,
} from '../../src/api/wire.js';
import { nowOf, type AppDeps } from './deps.js';
import { idempotentOnce, writeHash, type IdempotentResult, type Replay } from '../http/idempotency.js';
import { checkIdentity } from '../http/identity.js';
import { HttpProblem, problemBody, toProblem } from '../shared/problem.js';
import {
  contentQuerySchema,
  groupWriteSchema,
  idempotencyKeySchema,
  knownVersionsSchema,
  transitionWriteSchema,
  userWriteSchema,
} from '../http/schemas.js';
import { stateAnswerModes, type StateQuery } from '../http/state-query.js';
import type { Queryable } from '../storage/store.js';
import { upsertGroup } from '../state/groups.js';
import { readFlowStates } from '../state/read.js';
import { applyTransition } from '../state/transitions.js';
import { upsertUser } from '../state/users.js';

/** The most writes one batch holds. */
export const MAX_BATCH_WRITES = 100;

export function registerBatchRoutes(app: FastifyInstance, deps: AppDeps): void {
  const variant = (path: (typeof BATCH_PATHS)[number], body: object) => ({
    if: { properties: { path: { const: path } } },
    then: { properties: { body } },
  });

  app.post<{ Body: BatchRequest; Querystring: StateQuery }>(
    '/v1/public/batch',
    {
      schema: {
        querystring: contentQuerySchema,
        body: {
          type: 'object',
          required: ['writes'],
          additionalProperties: false,
          properties: {
            writes: {
              type: 'array',
              minItems: 1,
              maxItems: MAX_BATCH_WRITES,
              items: {
                type: 'object',
                required: ['path', 'idempotencyKey', 'body'],
                additionalProperties: false,
                properties: {
                  path: { type: 'string', enum: [...BATCH_PATHS] },
                  idempotencyKey: idempotencyKeySchema,
                  body: { type: 'object' },
                },
                allOf: [
                  variant('users', userWriteSchema(deps.limits)),
                  variant('groups', groupWriteSchema(deps.limits)),
                  variant('flowStates', transitionWriteSchema(ACTION_TYPES)),
                ],
              },
            },
            knownVersions: knownVersionsSchema,
          },
        },
      },
    },
    async (request, reply) => {
      const { writes, knownVersions } = request.body;
      const results: BatchResult[] = [];
      // Whether the last write's user passed the identity check: only then is their state read.
      let verified = false;
      for (const write of writes) {
        verified = false;
        try {
          // The identity check of the write's own endpoint, for each write: one batch may carry several users' writes.
          checkIdentity(deps.identity, request.apiScope!, { userId: write.body.userId, userHash: write.body.userHash });
          verified = true;
          const hash = writeHash('POST', `/v1/public/${write.path}`, write.body);
          const { work, replay } = handlers(deps, write, stateAnswerModes(request).locale);
          const outcome = await idempotentOnce(
            deps.db,
            { apiKey: request.apiKey ?? '', key: write.idempotencyKey, hash, userId: write.body.userId ?? null },
            work,
            replay,
          );
          const kept = outcome.body as { guestLinked?: boolean } | null;
          results.push({
            status: outcome.status,
            ...(outcome.replayed ? { replayed: true as const } : {}),
            ...(write.path === 'users' ? { guestLinked: kept?.guestLinked === true } : {}),
          });
        } catch (error) {
          // A refused write changed nothing (its transaction rolled back) and does not stop the others; anything
          // else fails the whole batch, and a retry with the same keys replays what was applied.
          const problem = toProblem(error as Error, deps.limits.bodyBytes);
          if (problem.status >= 500) throw error;
          results.push({ status: problem.status, problem: problemBody(problem.status, problem.detail, problem.field) });
        }
      }
      // The state of the last write's user, as that write's own endpoint would have read it.
      const last = writes[writes.length - 1];
      const response: BatchResponse = { results };
      if (verified && last.body.userId !== undefined) {
        const groupId = last.path === 'users' ? undefined : last.body.groupId;
        response.flowStates = await readFlowStates(deps.db, deps.catalog, last.body.userId, groupId, {
          ...stateAnswerModes(request),
          knownVersions,
          now: nowOf(deps),
        });
      }
      return reply.code(200).send(response);
    },
  );
}

/** What one write does, and what a replay of it answers: the same as its own endpoint, less the state (read once at the end). */
function handlers(
  deps: AppDeps,
  write: BatchWrite,
  locale: string | undefined,
): { work: (tx: Queryable) => Promise<IdempotentResult>; replay?: Replay } {
  if (write.path === 'users') {
    const { userHash: _hash, ...body } = write.body;
    return {
      // Kept as the users upsert keeps it, so a replay through either endpoint finds what it needs.
      work: async (tx) => {
        const { userId, guestLinked } = await upsertUser(tx, deps.catalog, body, nowOf(deps), deps.limits);
        const kept = { userId, guestLinked };
        return { status: 201, body: kept, keep: kept };
      },
      replay: async (_tx, kept) => kept,
    };
  }
  if (write.path === 'groups') {
    const { userHash: _hash, ...body } = write.body;
    return {
      work: async (tx) => {
        await upsertGroup(tx, body, deps.limits, nowOf(deps));
        const response: GroupUpsertResponse = {};
        return { status: 201, body: response };
      },
    };
  }
  const body = write.body;
  return {
    work: async (tx) => {
      checkDataSize(body.data, deps.limits.dataBytes);
      // The batch's locale, as the transition's own endpoint takes it: analytics tags the write with it.
      await applyTransition(tx, deps.catalog, body, nowOf(deps), { content: 'none', locale });
      return { status: 201, body: null, keep: null };
    },
    replay: async () => null,
  };
}

/** A transition's `data` is kept with every later state answer, so its size is capped (as on POST /v1/public/flowStates). */
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
