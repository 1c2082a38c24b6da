// Backpressure: when requests would queue too long (behind the event loop or the database), answer 503 with Retry-After at once.
import { createServer, type IncomingMessage, type ServerOptions, type ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyServerFactory } from 'fastify';
import underPressure, { type FastifyUnderPressureOptions } from '@fastify/under-pressure';
import type { Problem } from '../../src/api/wire.js';
import type { Limits } from '../shared/limits.js';
import type { Database } from '../storage/store.js';
import { problemBody } from '../shared/problem.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Never shed by backpressure (health checks). */
    alwaysServe?: boolean;
  }
}

/** How long a client should wait after a 503, in seconds; the script's outbox honours it. */
export const RETRY_AFTER_SECONDS = 1;
/**
 * How long a shed answer is held before it is sent, in ms, when its connection was shed less than Retry-After ago.
 * A client that ignores Retry-After (a load tester, a retry loop) sends again the moment its 503 arrives: answered
 * at once, 64 such connections turn shedding into a busy loop of thousands of 503s a second, whose parsing and
 * answering take the event loop from the database work they were shed to protect, and the requests served fell by
 * half. Held this long, each connection sends at most about 60 a second, and the answer is still fast: the 503's
 * p99 is this and the event loop's own delay, which at 64 connections was 20–30 ms. Held 20 ms, that p99 passed
 * 50 ms in half the bench's runs; held 12, the shed requests took enough of the loop that transitions at 64
 * connections fell to 80 % of those at 16. A connection's first 503 (or its first after waiting as told) is sent at
 * once: its client has done nothing to be slowed for.
 */
export const SHED_HOLD_MS = 16;
/** The share of time the event loop must be working for its delay to count as this service's own load. */
const BUSY_UTILIZATION = 0.9;
/** Start-up and its first samples do not count. */
const START_GRACE_MS = 2000;

/**
 * The event loop guard's 503. Shedding must cost less than serving: the reply gets its status and headers here, and
 * under-pressure sends the body returned, with no error, stack or error hook on the way.
 */
function overloaded(reply: FastifyReply, reason: string): Problem {
  reply.code(503).header('Retry-After', String(RETRY_AFTER_SECONDS)).type('application/problem+json');
  return busyProblem(reason);
}

/** Either guard's 503 body: why the service is busy, and when to come back. */
const busyProblem = (reason: string): Problem =>
  problemBody(503, `The service is busy (${reason}); retry in ${RETRY_AFTER_SECONDS} s.`);

/** Answers a request itself, or hands it on to Fastify with `pass` (at once or later). */
export type Gate = (request: IncomingMessage, response: ServerResponse, pass: () => void) => void;

/**
 * An HTTP/1.1 server whose requests pass `gate` before Fastify sees them, set up as Fastify sets up its own (its
 * processed options: timeouts, keep-alive, requests per socket).
 */
export function gatedServer(gate: Gate): FastifyServerFactory {
  return (handler, options) => {
    const server = createServer((options.http ?? {}) as ServerOptions, (request, response) => {
      gate(request, response, () => handler(request, response));
    });
    if (typeof options.keepAliveTimeout === 'number') server.keepAliveTimeout = options.keepAliveTimeout;
    if (typeof options.requestTimeout === 'number') server.requestTimeout = options.requestTimeout;
    if (typeof options.connectionTimeout === 'number') server.setTimeout(options.connectionTimeout);
    if (typeof options.maxRequestsPerSocket === 'number' && options.maxRequestsPerSocket > 0)
      server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };
}

/**
 * The guard for the database's queue, run on each request as Node hands it over, before Fastify makes a request
 * and reply of it, routes it or runs a hook: under overload most requests are shed, and a shed one should cost the
 * loop no more than Node's own reading and one write. (Measured with every request shed at 64 connections, about
 * 3,600 a second: 74 µs of CPU a 503 here, 79 through Fastify's hooks, and 70 for a bare Node server that holds
 * its answers as long; on a loaded loop that is most of what separates the writes served at 64 connections from
 * those at 16.)
 *
 * Requests wait for the database: for a connection from the pool on PostgreSQL, for their turn on the embedded
 * store. When the work already waiting would keep a new request waiting past `maxWaitMs`, or, on the embedded store,
 * when the work that has waited longest has already waited half of it (a new request would wait about as long
 * again), the request is answered 503 with Retry-After before any work is done. Preflights (OPTIONS) and the
 * `alwaysServe` routes' paths (health checks) always pass. `exposedHeaders` are those CORS lets a page read, as on
 * every other answer.
 */
export function databaseGate(
  db: Pick<Database, 'expectedWaitMs' | 'oldestWaitMs' | 'jobs'>,
  limits: Pick<Limits, 'maxWaitMs'>,
  { alwaysServed, exposedHeaders }: { alwaysServed: ReadonlySet<string>; exposedHeaders: readonly string[] },
): Gate {
  const headers = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers': exposedHeaders.join(', '),
    'Content-Type': 'application/problem+json; charset=utf-8',
    'Retry-After': String(RETRY_AFTER_SECONDS),
  };
  // Requests admitted in this turn of the loop: their bodies are read and their database work queued later in
  // the turn, so the queue alone would let a whole turn's worth of requests in at once. Each counts for the
  // database work a request has lately needed (`share`: none for reads answered from memory, one or more for
  // writes), and the count starts again each turn, by which time each of them has queued its work or been answered.
  let admittedThisTurn = 0;
  let jobsAtTurnStart = 0;
  let share = 1;
  const newTurn = () => {
    share = 0.8 * share + 0.2 * Math.min(4, (db.jobs - jobsAtTurnStart) / admittedThisTurn);
    admittedThisTurn = 0;
  };
  /** Why a new request would wait too long for the database, or undefined when it may go in (and is counted in). */
  const tooBusy = (): string | undefined => {
    // Measured, not estimated: a new request joins the back of the queue and waits about as long as its oldest has, so
    // past half the limit the queue is too long, whatever the estimate says.
    const waited = db.oldestWaitMs?.() ?? 0;
    if (waited > limits.maxWaitMs / 2) return `a request has waited ${Math.round(waited)} ms for the database`;
    const wait = db.expectedWaitMs(admittedThisTurn * share);
    if (wait > limits.maxWaitMs) return `about ${Math.round(wait)} ms of database work is waiting`;
    if (admittedThisTurn++ === 0) {
      jobsAtTurnStart = db.jobs;
      setImmediate(newTurn);
    }
    return undefined;
  };
  const send = (response: ServerResponse, reason: string) => {
    const body = JSON.stringify(busyProblem(reason));
    response.writeHead(503, { ...headers, 'Content-Length': Buffer.byteLength(body) }).end(body);
  };
  /** When each connection was last shed (performance.now()), to tell a client that came back too soon. */
  const lastShed = new WeakMap<object, number>();
  return (request, response, pass) => {
    if (request.method === 'OPTIONS') return pass();
    const url = request.url ?? '';
    const query = url.indexOf('?');
    if (alwaysServed.has(query === -1 ? url : url.slice(0, query))) return pass();
    const reason = tooBusy();
    if (reason === undefined) return pass();
    // A connection's first 503, or its first after waiting Retry-After, is sent at once. One that came back sooner
    // is held SHED_HOLD_MS and then looked at again: served if the queue has room by then (its wait was no longer
    // than a 503's), shed otherwise. A client that closed the connection meanwhile gets nothing.
    const socket = response.socket;
    const now = performance.now();
    const previous = socket ? lastShed.get(socket) : undefined;
    if (socket) lastShed.set(socket, now);
    if (previous === undefined || now - previous >= RETRY_AFTER_SECONDS * 1000) return send(response, reason);
    setTimeout(() => {
      if (response.writableEnded || response.destroyed) return;
      const still = tooBusy();
      if (still === undefined) pass();
      else send(response, still);
    }, SHED_HOLD_MS).unref();
  };
}

/**
 * The event loop's guard, and the paths the database's guard (`databaseGate`) lets through. Requests also wait for
 * the event loop, when the service's own work (parsing, targeting, rendering) takes all of it: @fastify/under-pressure
 * sheds load when the loop's mean delay passes `eventLoopDelayMs` while the loop is busy, with a 503 and Retry-After
 * before any work is done. Routes configured `alwaysServe` are never shed by either; their paths are added to
 * `alwaysServed` as they are registered.
 */
export async function registerBackpressure(
  app: FastifyInstance,
  limits: Pick<Limits, 'eventLoopDelayMs'>,
  alwaysServed: Set<string>,
): Promise<void> {
  app.addHook('onRoute', (route) => {
    if (route.config?.alwaysServe) alwaysServed.add(route.url);
  });
  if (limits.eventLoopDelayMs > 0) {
    let readyAt = Infinity;
    app.addHook('onReady', async () => {
      readyAt = performance.now();
    });
    await app.register(underPressure, {
      maxEventLoopDelay: limits.eventLoopDelayMs,
      // Sampled five times a second, so shedding starts and stops within a fifth of a second.
      sampleInterval: 200,
      eventLoopUtilizationMode: 'interval',
      retryAfter: RETRY_AFTER_SECONDS,
      // under-pressure sends what its handler returns (its types only say void), and goes on when it returns nothing.
      pressureHandler: ((
        _request: unknown,
        reply: FastifyReply,
        type: string,
        value: number | undefined,
      ): Problem | undefined => {
        // A late loop that is mostly idle is a machine short of CPU, not a service short of time: serving
        // is still the fastest answer. So is the loop during start-up, before the first second of traffic.
        if (performance.now() - readyAt < START_GRACE_MS || app.memoryUsage().eventLoopUtilized < BUSY_UTILIZATION)
          return undefined;
        return overloaded(reply, `${type} ${typeof value === 'number' ? Math.round(value) : ''} ms`);
      }) as FastifyUnderPressureOptions['pressureHandler'],
    });
  }
}
