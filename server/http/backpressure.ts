// Backpressure: when requests would queue too long (behind the event loop or the database), answer 503 with Retry-After at once.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import underPressure from '@fastify/under-pressure';
import type { Limits } from '../app.js';
import { HttpProblem } from './problem.js';

/** How long a client should wait after a 503, in seconds; the script's outbox honours it. */
export const RETRY_AFTER_SECONDS = 1;
/** The share of time the event loop must be working for its delay to count as this service's own load. */
const BUSY_UTILIZATION = 0.9;
/** Start-up and its first samples do not count. */
const START_GRACE_MS = 2000;

const overloaded = (detail: string) =>
  new HttpProblem(503, `${detail}; retry in ${RETRY_AFTER_SECONDS} s.`, undefined, { 'Retry-After': String(RETRY_AFTER_SECONDS) });

const started = Symbol('started');
const ahead = Symbol('ahead');
type Timed = FastifyRequest & { [started]?: number; [ahead]?: number };

/** Ends a request's timing once, whether it was answered or aborted. */
function finish(request: Timed): number | undefined {
  if (request[started] === undefined) return undefined;
  const elapsed = performance.now() - request[started]!;
  request[started] = undefined;
  return elapsed;
}

/**
 * Two guards, one for each place requests queue. On the embedded store a request runs from start to
 * end on the event loop, so the rest wait in the loop's own queue: @fastify/under-pressure sheds load
 * when the loop's mean delay passes `eventLoopDelayMs`. On PostgreSQL requests overlap while they
 * wait for the pool: an estimate of how long a new request would wait behind those in flight (their
 * number times the time one takes on its own, measured as they finish) past `maxWaitMs` sheds it.
 * Either way the answer is a 503 with Retry-After before any work is done.
 */
export async function registerBackpressure(app: FastifyInstance, limits: Pick<Limits, 'maxWaitMs' | 'eventLoopDelayMs'>): Promise<void> {
  let inFlight = 0;
  let serviceMs = 1;
  app.addHook('onRequest', async (request: Timed) => {
    const expectedWaitMs = inFlight * serviceMs;
    if (expectedWaitMs > limits.maxWaitMs) {
      throw overloaded(`The service is busy (${inFlight} requests ahead, about ${Math.round(expectedWaitMs)} ms)`);
    }
    request[ahead] = inFlight;
    request[started] = performance.now();
    inFlight++;
  });
  app.addHook('onResponse', async (request: Timed) => {
    const elapsed = finish(request);
    if (elapsed === undefined) return;
    inFlight--;
    // A request's time includes waiting for those ahead of it; dividing that out leaves its own.
    serviceMs = 0.9 * serviceMs + (0.1 * elapsed) / (request[ahead]! + 1);
  });
  app.addHook('onRequestAbort', async (request: Timed) => {
    if (finish(request) !== undefined) inFlight--;
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
      pressureHandler: async (_request, _reply, type, value) => {
        // A late loop that is mostly idle is a machine short of CPU, not a service short of time: serving
        // is still the fastest answer. So is the loop during start-up, before the first second of traffic.
        if (performance.now() - readyAt < START_GRACE_MS || app.memoryUsage().eventLoopUtilized < BUSY_UTILIZATION) return;
        throw overloaded(`The service is busy (${type} ${typeof value === 'number' ? Math.round(value) : ''} ms)`);
      },
    });
  }
}
