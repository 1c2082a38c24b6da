// Backpressure: when requests would queue too long (behind the event loop or the database), answer 503 with Retry-After at once.
import type { FastifyInstance } from 'fastify';
import underPressure from '@fastify/under-pressure';
import type { Limits } from '../app.js';
import type { Database } from '../storage/database.js';
import { HttpProblem } from './problem.js';

/** How long a client should wait after a 503, in seconds; the script's outbox honours it. */
export const RETRY_AFTER_SECONDS = 1;
/** The share of time the event loop must be working for its delay to count as this service's own load. */
const BUSY_UTILIZATION = 0.9;
/** Start-up and its first samples do not count. */
const START_GRACE_MS = 2000;

const overloaded = (detail: string) =>
  new HttpProblem(503, `${detail}; retry in ${RETRY_AFTER_SECONDS} s.`, undefined, { 'Retry-After': String(RETRY_AFTER_SECONDS) });

/**
 * Two guards, one for each place requests queue. On the embedded store a request runs from start to
 * end on the event loop, so the rest wait in the loop's own queue: @fastify/under-pressure sheds load
 * when the loop's mean delay passes `eventLoopDelayMs` while the loop is busy. On PostgreSQL requests
 * wait for a connection from the pool: when the work already waiting would keep a new request
 * waiting past `maxWaitMs`, it is shed. Either way the answer is a 503 with Retry-After before any
 * work is done.
 */
export async function registerBackpressure(app: FastifyInstance, db: Pick<Database, 'expectedWaitMs'>, limits: Pick<Limits, 'maxWaitMs' | 'eventLoopDelayMs'>): Promise<void> {
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.alwaysServe) return;
    const wait = db.expectedWaitMs;
    if (wait > limits.maxWaitMs) throw overloaded(`The service is busy (about ${Math.round(wait)} ms of database work is waiting)`);
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
