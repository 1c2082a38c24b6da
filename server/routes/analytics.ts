// /v1/analytics/…: flows, one flow's funnel, survey and goal, its answers (JSON pages or a CSV stream), and the experiments with their participants; private key only.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AnalyticsResponsesResponse } from '../../src/api/wire.js';
import type { AppDeps } from './deps.js';
import { HttpProblem } from '../shared/problem.js';
import { idSchema } from '../http/schemas.js';
import { answersCsv } from '../analytics/answers-csv.js';
import { answersPage, decodeCursor, encodeCursor } from '../analytics/answers-report.js';
import { flowReport } from '../analytics/flow-report.js';
import { flowsReport } from '../analytics/flows-report.js';
import { experimentReport, experimentsReport, participantsCsv } from '../analytics/goal-reports.js';
import { parseWindow, windowQueryProperties } from '../analytics/window.js';

/** Answers per page of the responses endpoint. */
export const DEFAULT_ANSWERS_PAGE = 100;
export const MAX_ANSWERS_PAGE = 1000;

type WindowQuery = { from?: string; to?: string; version?: string; locale?: string };
type ResponsesQuery = WindowQuery & { stepId?: string; limit?: string; cursor?: string };

const windowQuery = { type: 'object', additionalProperties: false, properties: windowQueryProperties } as const;
const slugParams = { type: 'object', required: ['slug'], properties: { slug: idSchema } } as const;
const experimentParams = { type: 'object', required: ['id'], properties: { id: idSchema } } as const;
const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;

/** Whether the client asked for CSV (`Accept: text/csv`, alone or in a list). */
const wantsCsv = (accept: string | undefined) =>
  (accept ?? '').split(',').some((part) => part.trim().toLowerCase().startsWith('text/csv'));

/** Reports hold users' answers: never kept by a browser or a proxy. */
const onSend = async (_request: unknown, reply: FastifyReply) => {
  reply.header('Cache-Control', 'no-store');
};

/**
 * Streams CSV lines as a download named `name` (characters unsafe in a file name replaced). The first chunk (the
 * header) is read before answering, so an unknown flow or experiment is still a 404 problem.
 */
async function sendCsv(reply: FastifyReply, lines: AsyncGenerator<string>, name: string): Promise<FastifyReply> {
  const first = await lines.next();
  reply
    .type('text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${name.replace(/[^\w.-]/g, '_')}"`);
  return reply.send(
    Readable.from(
      (async function* () {
        if (!first.done) yield first.value;
        yield* lines;
      })(),
    ),
  );
}

export function registerAnalyticsRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Querystring: WindowQuery }>(
    '/v1/analytics/flows',
    { onSend, schema: { querystring: windowQuery } },
    async (request) => flowsReport(deps.db, deps.catalog, parseWindow(request.query)),
  );

  app.get<{ Params: { slug: string }; Querystring: WindowQuery }>(
    '/v1/analytics/flows/:slug',
    { onSend, schema: { params: slugParams, querystring: windowQuery } },
    async (request) => flowReport(deps.db, deps.catalog, request.params.slug, parseWindow(request.query)),
  );

  app.get('/v1/analytics/experiments', { onSend, schema: { querystring: noQuery } }, async () =>
    experimentsReport(deps.db, deps.catalog),
  );

  app.get<{ Params: { id: string } }>(
    '/v1/analytics/experiments/:id',
    { onSend, schema: { params: experimentParams, querystring: noQuery } },
    async (request) => experimentReport(deps.db, deps.catalog, request.params.id),
  );

  app.get<{ Params: { id: string } }>(
    '/v1/analytics/experiments/:id/participants.csv',
    { onSend, schema: { params: experimentParams, querystring: noQuery } },
    async (request, reply) => {
      const { id } = request.params;
      return sendCsv(reply, participantsCsv(deps.db, deps.catalog, id), `${id}-participants.csv`);
    },
  );

  app.get<{ Params: { slug: string }; Querystring: ResponsesQuery }>(
    '/v1/analytics/flows/:slug/responses',
    {
      onSend,
      schema: {
        params: slugParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            ...windowQueryProperties,
            stepId: idSchema,
            limit: { type: 'string', maxLength: 16 },
            cursor: { type: 'string', maxLength: 2048 },
          },
        },
      },
    },
    async (request, reply) => {
      const { slug } = request.params;
      const window = parseWindow(request.query);
      const { stepId } = request.query;
      if (wantsCsv(request.headers.accept)) {
        const name = `${slug}-answers-${window.days[0]}-to-${window.days.at(-1)}.csv`;
        return sendCsv(reply, answersCsv(deps.db, deps.catalog, slug, window, stepId), name);
      }
      const limitText = request.query.limit;
      if (
        limitText !== undefined &&
        (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_ANSWERS_PAGE)
      ) {
        throw new HttpProblem(400, `query field "limit" must be a whole number from 1 to ${MAX_ANSWERS_PAGE}`, 'limit');
      }
      const cursor = request.query.cursor === undefined ? undefined : decodeCursor(request.query.cursor);
      const { rows, next } = await answersPage(deps.db, deps.catalog, slug, window, {
        stepId,
        limit: limitText === undefined ? DEFAULT_ANSWERS_PAGE : Number(limitText),
        cursor,
      });
      const body: AnalyticsResponsesResponse = {
        from: window.from.toISOString(),
        to: window.to.toISOString(),
        version: window.version,
        locale: window.locale,
        data: rows,
        nextCursor: next ? encodeCursor(next) : null,
      };
      return body;
    },
  );
}
