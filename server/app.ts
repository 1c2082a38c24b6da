// Builds the Fastify app: CORS, auth, rate limit, body limit, compression, problem errors, and the /v1 routes.
import { constants as zlib } from 'node:zlib';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import { bearerKey, keyScope, scopeOf, type KeyScope } from './http/auth.js';
import { checkIdentity } from './http/identity.js';
import { registerRateLimits } from './http/rate-limits.js';
import { databaseGate, gatedServer, registerBackpressure } from './http/backpressure.js';
import { parseJsonBody } from './http/json-body.js';
import { AnswerBuffers, replySerializer } from './http/answer-buffers.js';
import { HttpProblem, problemBody, toProblem } from './shared/problem.js';
import { MAX_ID_LENGTH } from './http/schemas.js';
import { registerUserRoutes } from './routes/users.js';
import { registerGroupRoutes } from './routes/groups.js';
import { registerFlowStateRoutes } from './routes/flow-states.js';
import { registerFlowRoutes } from './routes/flows.js';
import { registerSessionRoutes } from './routes/sessions.js';
import { registerBatchRoutes } from './routes/batch.js';
import { registerBenchRoutes } from './routes/bench.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerScriptRoutes } from './routes/script.js';
import { registerAnalyticsRoutes } from './routes/analytics.js';
import { registerCollectionRoutes } from './routes/collections.js';
import { registerDashboardRoutes } from './routes/dashboard.js';
import type { AppDeps } from './routes/deps.js';

/** The answer headers CORS lets a page's script read, on every answer (shed ones included). */
const EXPOSED_HEADERS = ['ETag', 'Retry-After', 'Idempotent-Replayed'] as const;

/** Trusts the nearest `hops` proxies, as proxy-addr's hop count does. */
const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

export async function buildApp(
  deps: AppDeps,
  options: { logger?: boolean; trustProxy?: boolean | number | string } = {},
): Promise<FastifyInstance> {
  // Shed before Fastify sees the request: see databaseGate. Health checks' paths join alwaysServed as they are registered.
  const alwaysServed = new Set<string>();
  const gate = databaseGate(deps.db, deps.limits, { alwaysServed, exposedHeaders: EXPOSED_HEADERS });
  const app = Fastify({
    serverFactory: gatedServer(gate),
    // Only behind a proxy the operator names does X-Forwarded-For decide the visitor's address.
    trustProxy: typeof options.trustProxy === 'number' ? trustHops(options.trustProxy) : (options.trustProxy ?? false),
    logger: options.logger ? { level: 'warn' } : false,
    bodyLimit: deps.limits.bodyBytes,
    // Bodies are validated as sent: a number is not quietly turned into a string.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    return503OnClosing: true,
    // A user id in a path (`/v1/users/{userId}/explain`) may be as long as anywhere else, percent-encoded (3 characters a byte at most).
    routerOptions: { maxParamLength: 3 * MAX_ID_LENGTH },
    // Node would answer a missing Host with an empty 400; the onRequest hook below answers it with a problem.
    http: { requireHostHeader: false },
    // Malformed URLs and broken HTTP get problem bodies too, not Fastify's own JSON shape.
    frameworkErrors: (error, _request, rawReply) => {
      const problem = toProblem(error);
      const reply = rawReply as unknown as FastifyReply;
      reply.code(problem.status).type('application/problem+json').send(problemBody(problem.status, problem.detail));
    },
    clientErrorHandler: (error, socket) => {
      if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || socket.destroyed || !socket.writable)
        return socket.destroy();
      const status = (error as NodeJS.ErrnoException).code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
      const body = JSON.stringify(
        problemBody(
          status,
          status === 431
            ? 'The request line or headers are too large; send long values in a JSON body.'
            : 'The request is not valid HTTP.',
        ),
      );
      socket.end(
        `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nConnection: close\r\n` +
          `Content-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    },
  });
  // State answers arrive as ready JSON text (RawJson), joined in a reused buffer; everything else is serialised as usual.
  const answerBuffers = new AnswerBuffers();
  app.setReplySerializer(replySerializer(answerBuffers));
  // Added before compression is registered, so it sees the payload before the compressor replaces it.
  app.addHook('onSend', answerBuffers.onSend);
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  // text/plain is a CORS "simple" content type: a page may send JSON so, with no preflight. Both parse the same strict way.
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  // Node answers an unknown Expect with an empty 417 unless someone listens; this listener sends a problem.
  app.server.on('checkExpectation', (request, response) => {
    const body = JSON.stringify(
      problemBody(
        417,
        `The Expect header "${String(request.headers.expect).slice(0, 100)}" is not supported; only "100-continue" is.`,
      ),
    );
    response
      .writeHead(417, {
        'Access-Control-Allow-Origin': '*',
        'Content-Type': 'application/problem+json',
        'Content-Length': Buffer.byteLength(body),
        Connection: 'close',
      })
      .end(body);
  });

  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error as Error, deps.limits.bodyBytes);
    if (problem.status >= 500) request.log.error(error);
    for (const [name, value] of Object.entries(problem.headers ?? {})) reply.header(name, value);
    if (problem.status === 401) reply.header('WWW-Authenticate', 'Bearer');
    reply
      .code(problem.status)
      .type('application/problem+json')
      .send(problemBody(problem.status, problem.detail, problem.field));
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = ['GET', 'POST', 'DELETE'].filter((method) => app.hasRoute({ method, url: path }));
    if (allowed.length > 0) {
      reply
        .code(405)
        .header('Allow', allowed.join(', '))
        .type('application/problem+json')
        .send(problemBody(405, `${path} does not take ${request.method}; it takes ${allowed.join(', ')}.`));
      return;
    }
    reply
      .code(404)
      .type('application/problem+json')
      .send(problemBody(404, `There is no ${request.method} ${path} endpoint.`));
  });

  // Keys, not cookies, authenticate, so any origin may call.
  await app.register(cors, {
    origin: '*',
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    // Frigade's SDKs send their version and platform with every request.
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'Idempotency-Key',
      'X-Frigade-SDK-Version',
      'X-Frigade-SDK-Platform',
    ],
    exposedHeaders: [...EXPOSED_HEADERS],
    maxAge: 86400,
    strictPreflight: false,
  });

  await registerBackpressure(app, deps.limits, alwaysServed);

  app.decorateRequest('apiScope', undefined);
  app.decorateRequest('apiKey', undefined);
  app.addHook('onRequest', async (request) => {
    // RFC 9112: a server must answer 400 to an HTTP/1.1 request without a Host header.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      throw new HttpProblem(400, 'Send a Host header: HTTP/1.1 requests need one.', 'Host');
    }
    // Unknown paths go on to the 404 (or 405) answer, and public routes need no key.
    if (request.method === 'OPTIONS' || request.routeOptions.url === undefined || request.routeOptions.config.public)
      return;
    const inQuery = (request.query as Record<string, unknown> | undefined)?.publicKey;
    let scope: KeyScope;
    if (inQuery !== undefined) {
      // A page's key in the query instead of a header: the request needs no CORS preflight. Public keys only.
      if (typeof inQuery !== 'string' || !inQuery)
        throw new HttpProblem(400, 'query field "publicKey" must be one public key (pk_…).', 'publicKey');
      if (request.headers.authorization !== undefined) {
        throw new HttpProblem(
          400,
          'Send the API key once: in "Authorization: Bearer <key>" or in the "publicKey" query field, not both.',
          'publicKey',
        );
      }
      const found = keyScope(deps.keys, inQuery);
      if (found === 'private') {
        throw new HttpProblem(
          400,
          'A private key must never be in a URL, where logs and browser history keep it: send it as "Authorization: Bearer <key>", and rotate this one.',
          'publicKey',
        );
      }
      if (found === 'unknown') throw new HttpProblem(401, 'The API key is not known to this service.', 'publicKey');
      scope = found;
      request.apiKey = inQuery;
    } else {
      const found = scopeOf(deps.keys, request.headers.authorization);
      if (found === 'missing') {
        throw new HttpProblem(
          401,
          'Send an API key as "Authorization: Bearer <key>" (or a public key as the "publicKey" query field).',
        );
      }
      if (found === 'unknown') throw new HttpProblem(401, 'The API key is not known to this service.');
      scope = found;
      request.apiKey = bearerKey(request.headers.authorization);
    }
    // The matched route decides, so an encoded path cannot slip a public key past this check.
    const path = request.routeOptions.url ?? request.url.split('?')[0];
    if (scope === 'public' && !path.startsWith('/v1/public/')) {
      throw new HttpProblem(403, `${path} needs a private key; public keys reach only /v1/public/ paths.`);
    }
    request.apiScope = scope;
  });
  // After validation, so the user a route names is read from a checked body or query.
  app.addHook('preHandler', async (request) => {
    const named = request.routeOptions.config.namesUser?.(request);
    if (named && request.apiScope) checkIdentity(deps.identity, request.apiScope, named);
  });

  await registerRateLimits(app, deps.limits, deps.db, deps.exactRateLimits);

  app.addHook('preParsing', async (request) => {
    const encoding = request.headers['content-encoding'];
    if (encoding && encoding.trim().toLowerCase() !== 'identity') {
      throw new HttpProblem(415, `Send the body uncompressed; Content-Encoding "${encoding}" is not accepted.`);
    }
  });

  // State answers are the largest bodies; brotli at quality 4 and gzip at 6 cost little CPU for most of the gain.
  await app.register(compress, {
    globalCompression: true,
    // Request bodies stay uncompressed (415 otherwise, above).
    globalDecompression: false,
    encodings: ['br', 'gzip'],
    threshold: 1024,
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 6 },
  });

  registerUserRoutes(app, deps);
  registerGroupRoutes(app, deps);
  registerFlowStateRoutes(app, deps);
  registerFlowRoutes(app, deps);
  registerSessionRoutes(app, deps);
  registerBatchRoutes(app, deps);
  registerHealthRoutes(app, deps);
  registerAnalyticsRoutes(app, deps);
  registerCollectionRoutes(app, deps);
  if (deps.dashboard !== undefined) registerDashboardRoutes(app, deps.dashboard);
  registerScriptRoutes(app, deps.script);
  if (deps.benchRoutes) registerBenchRoutes(app, deps);
  return app;
}
