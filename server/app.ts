// Builds the Fastify app: CORS, auth, rate limit, body limit, compression, problem errors, and the /v1 routes.
import { constants as zlib } from 'node:zlib';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import type { FlowCatalog } from './flows/catalog.js';
import type { Database } from './storage/database.js';
import { bearerKey, keyScope, scopeOf, type ApiKeys, type KeyScope } from './http/auth.js';
import { checkIdentity, type IdentityConfig } from './http/identity.js';
import { registerRateLimits } from './http/rate-limits.js';
import { registerBackpressure } from './http/backpressure.js';
import { parseJsonBody } from './http/json-body.js';
import { AnswerBuffers } from './http/answer-buffers.js';
import { replySerializer } from './http/raw-json.js';
import { HttpProblem, problemBody, toProblem } from './http/problem.js';
import { registerUserRoutes } from './routes/users.js';
import { registerGroupRoutes } from './routes/groups.js';
import { registerFlowStateRoutes } from './routes/flow-states.js';
import { registerFlowRoutes } from './routes/flows.js';
import { registerSessionRoutes } from './routes/sessions.js';
import { registerBatchRoutes } from './routes/batch.js';
import { registerBenchRoutes } from './routes/bench.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerScriptRoutes, type ScriptBuild } from './routes/script.js';
import { registerAnalyticsRoutes } from './routes/analytics.js';
import { registerDashboardRoutes, type DashboardBuild } from './routes/dashboard.js';

export interface Limits {
  /** Largest accepted request body, in bytes; over it, 413. @default 102400 (100 KB) */
  bodyBytes: number;
  /** Most tracking events in one upsert; over it, 400. @default 100 */
  eventsPerRequest: number;
  /** Most keys in one `properties` object (user, group or event); over it, 400. @default 200 */
  propertiesPerObject: number;
  /** Requests a public key may make per minute from one visitor address; over it, 429 with Retry-After. @default 1200 */
  requestsPerMinute: number;
  /** Requests a private key may make per minute. @default 12000 */
  privateRequestsPerMinute: number;
  /** Writes per minute for one user ID, from any address, with a public key. @default 300 */
  userWritesPerMinute: number;
  /** Expected wait (ms) for a database connection past which a request is answered 503 at once. @default 200 */
  maxWaitMs: number;
  /** Mean event loop delay (ms) past which requests are answered 503; 0 turns the check off. @default 200 */
  eventLoopDelayMs: number;
  /** Users whose rows are kept in memory for reads (checked against their version on PostgreSQL); 0 turns the cache off. @default 10000 */
  cacheUsers: number;
  /** Connections to a PostgreSQL server (per instance). @default 10 */
  poolSize: number;
  /** Largest `data` of one transition, in bytes of JSON; over it, 400. @default 8192 (8 KB) */
  dataBytes: number;
  /** Most property keys stored for one user or one group; a request that would pass it gets 409. @default 1000 */
  storedProperties: number;
  /** Largest stored properties object of one user or one group, in bytes of JSON; past it, 409. @default 262144 (256 KB) */
  storedPropertyBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  bodyBytes: 102_400,
  eventsPerRequest: 100,
  propertiesPerObject: 200,
  requestsPerMinute: 1200,
  privateRequestsPerMinute: 12_000,
  userWritesPerMinute: 300,
  maxWaitMs: 100,
  eventLoopDelayMs: 200,
  cacheUsers: 10_000,
  poolSize: 10,
  dataBytes: 8192,
  storedProperties: 1000,
  storedPropertyBytes: 262_144,
};

export interface AppDeps {
  db: Database;
  catalog: FlowCatalog;
  keys: ApiKeys;
  limits: Limits;
  identity: IdentityConfig;
  /** Adds the benchmark's ceiling route (`npm run bench` only). @default false */
  benchRoutes?: boolean;
  /** On PostgreSQL, count every request against the rate limits there: exact across instances, a write per request. @default false */
  exactRateLimits?: boolean;
  /** The built script the service serves; absent when it has not been built. */
  script?: ScriptBuild;
  /** The dashboard at /dashboard: absent when it is off, null when it is on but not built. @default off */
  dashboard?: DashboardBuild | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without an API key (the script, health checks). */
    public?: boolean;
    /** Never shed by backpressure (health checks). */
    alwaysServe?: boolean;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The scope of the request's API key, set once the key is checked. */
    apiScope: KeyScope | undefined;
    /** The request's API key, from its Authorization header or its `publicKey` query field, once checked. */
    apiKey: string | undefined;
  }
}

/** Trusts the nearest `hops` proxies, as proxy-addr's hop count does. */
const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

export async function buildApp(deps: AppDeps, options: { logger?: boolean; trustProxy?: boolean | number | string } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    // Only behind a proxy the operator names does X-Forwarded-For decide the visitor's address.
    trustProxy: typeof options.trustProxy === 'number' ? trustHops(options.trustProxy) : (options.trustProxy ?? false),
    logger: options.logger ? { level: 'warn' } : false,
    bodyLimit: deps.limits.bodyBytes,
    // Bodies are validated as sent: a number is not quietly turned into a string.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    return503OnClosing: true,
    // Node would answer a missing Host with an empty 400; the onRequest hook below answers it with a problem.
    http: { requireHostHeader: false },
    // Malformed URLs and broken HTTP get problem bodies too, not Fastify's own JSON shape.
    frameworkErrors: (error, _request, rawReply) => {
      const problem = toProblem(error);
      const reply = rawReply as unknown as FastifyReply;
      reply.code(problem.status).type('application/problem+json').send(problemBody(problem.status, problem.detail));
    },
    clientErrorHandler: (error, socket) => {
      if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || socket.destroyed || !socket.writable) return socket.destroy();
      const status = (error as NodeJS.ErrnoException).code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
      const body = JSON.stringify(
        problemBody(status, status === 431 ? 'The request line or headers are too large; send long values in a JSON body.' : 'The request is not valid HTTP.'),
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
    const body = JSON.stringify(problemBody(417, `The Expect header "${String(request.headers.expect).slice(0, 100)}" is not supported; only "100-continue" is.`));
    response.writeHead(417, { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/problem+json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' }).end(body);
  });

  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error as Error, deps.limits.bodyBytes);
    if (problem.status >= 500) request.log.error(error);
    for (const [name, value] of Object.entries(problem.headers ?? {})) reply.header(name, value);
    if (problem.status === 401) reply.header('WWW-Authenticate', 'Bearer');
    reply.code(problem.status).type('application/problem+json').send(problemBody(problem.status, problem.detail, problem.field));
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = ['GET', 'POST', 'DELETE'].filter((method) => app.hasRoute({ method, url: path }));
    if (allowed.length > 0) {
      reply
        .code(405)
        .header('Allow', allowed.join(', '))
        .type('application/problem+json')
        .send(problemBody(405, `${path} does not take ${request.method}; it takes ${allowed.join(', ')}.`));
      return;
    }
    reply.code(404).type('application/problem+json').send(problemBody(404, `There is no ${request.method} ${path} endpoint.`));
  });

  // Keys, not cookies, authenticate, so any origin may call.
  await app.register(cors, {
    origin: '*',
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    // Frigade's SDKs send their version and platform with every request.
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Frigade-SDK-Version', 'X-Frigade-SDK-Platform'],
    exposedHeaders: ['ETag', 'Retry-After', 'Idempotent-Replayed'],
    maxAge: 86400,
    strictPreflight: false,
  });

  await registerBackpressure(app, deps.db, deps.limits);

  app.decorateRequest('apiScope', undefined);
  app.decorateRequest('apiKey', undefined);
  app.addHook('onRequest', async (request) => {
    // RFC 9112: a server must answer 400 to an HTTP/1.1 request without a Host header.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      throw new HttpProblem(400, 'Send a Host header: HTTP/1.1 requests need one.', 'Host');
    }
    // Unknown paths go on to the 404 (or 405) answer, and public routes need no key.
    if (request.method === 'OPTIONS' || request.routeOptions.url === undefined || request.routeOptions.config.public) return;
    const inQuery = (request.query as Record<string, unknown> | undefined)?.publicKey;
    let scope: KeyScope;
    if (inQuery !== undefined) {
      // A page's key in the query instead of a header: the request needs no CORS preflight. Public keys only.
      if (typeof inQuery !== 'string' || !inQuery) throw new HttpProblem(400, 'query field "publicKey" must be one public key (pk_…).', 'publicKey');
      if (request.headers.authorization !== undefined) {
        throw new HttpProblem(400, 'Send the API key once: in "Authorization: Bearer <key>" or in the "publicKey" query field, not both.', 'publicKey');
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
        throw new HttpProblem(401, 'Send an API key as "Authorization: Bearer <key>" (or a public key as the "publicKey" query field).');
      }
      if (found === 'unknown') throw new HttpProblem(401, 'The API key is not known to this service.');
      scope = found;
      request.apiKey = bearerKey(request.headers.authorization);
    }
    // The matched route decides, so an encoded path cannot slip a public key past this check.
    const path = request.routeOptions.url ?? request.url.split('?')[0]!;
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
  if (deps.dashboard !== undefined) registerDashboardRoutes(app, deps.dashboard);
  registerScriptRoutes(app, deps.script);
  if (deps.benchRoutes) registerBenchRoutes(app, deps);
  return app;
}
