// Rate limits that fit the threat: per public key and visitor address, per private key, and per user on writes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Limits } from '../shared/limits.js';
import type { Database } from '../storage/store.js';
import { HttpProblem } from '../shared/problem.js';
import { RateLimitCounts, rateLimitStore } from './rate-limit-store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Whether this route's request is a write for the per-user limit. @default every POST that names a user */
    isWrite?: (request: FastifyRequest) => boolean;
  }
}

/**
 * A visitor's address as the limit sees it: IPv4 as is (an IPv4-mapped IPv6 address unwrapped), IPv6
 * by its /64, since one household or phone gets a whole /64 and could otherwise rotate through it.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  if (!ip.includes(':')) return ip;
  const [head = '', tail = ''] = ip.split('::');
  const groups = head.split(':').filter(Boolean);
  const tailGroups = tail ? tail.split(':') : [];
  const full = [
    ...groups,
    ...Array<string>(Math.max(0, 8 - groups.length - tailGroups.length)).fill('0'),
    ...tailGroups,
  ];
  return `${full.slice(0, 4).join(':')}::/64`;
}

const tooMany = (what: string, max: number, seconds: number) =>
  Object.assign(
    new HttpProblem(429, `${what} is limited to ${max} a minute; retry in ${seconds} s.`, undefined, {
      'Retry-After': String(seconds),
    }),
    {
      statusCode: 429,
    },
  );

declare module 'fastify' {
  interface FastifyInstance {
    /** The rate limits' counts: how many instances share them, and each one's share of a limit. */
    rateLimitCounts: RateLimitCounts;
  }
}

/**
 * Registers the limits. Every site's visitors share its one public key, so a public key is limited per
 * visitor address, never as a whole; a private key (a backend) has its own, larger limit; and writes
 * are limited per user ID as well, whatever address they come from. Requests without a valid key are
 * refused before they are counted. `exact` counts every request in PostgreSQL (see RateLimitCounts).
 */
export async function registerRateLimits(
  app: FastifyInstance,
  limits: Limits,
  db: Database,
  exact = false,
): Promise<void> {
  // On PostgreSQL several instances share the counts past their shares; the embedded store has one process and counts in memory.
  // 100,000 keys: enough for a busy site's visitors in one window; the oldest are dropped first.
  const counts = new RateLimitCounts({ db: db.kind === 'postgres' ? db : undefined, exact, keys: 100_000 });
  await counts.start();
  app.decorate('rateLimitCounts', counts);
  app.addHook('onClose', async () => counts.stop());
  await app.register(rateLimit, {
    global: true,
    store: rateLimitStore(counts),
    timeWindow: 60_000,
    keyGenerator: (request) =>
      request.apiScope === 'private' ? `key:${request.apiKey}` : `visitor:${request.apiKey}:${addressKey(request.ip)}`,
    max: (request) => (request.apiScope === 'private' ? limits.privateRequestsPerMinute : limits.requestsPerMinute),
    errorResponseBuilder: (request, context) =>
      tooMany(
        request.apiScope === 'private' ? 'A private key' : 'Each visitor address',
        context.max,
        Math.max(1, Math.ceil(context.ttl / 1000)),
      ),
  });
  const perUser = app.createRateLimit({
    max: limits.userWritesPerMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => `user:${request.apiKey}:${request.routeOptions.config.namesUser?.(request).userId}`,
  });
  // After validation, when the user a write names is known; private keys are the customer's own backend.
  app.addHook('preHandler', async (request) => {
    if (request.method !== 'POST' || request.apiScope !== 'public') return;
    const userId = request.routeOptions.config.namesUser?.(request).userId;
    if (userId === undefined) return;
    if (!(request.routeOptions.config.isWrite?.(request) ?? true)) return;
    const outcome = await perUser(request);
    if (!outcome.isAllowed && outcome.isExceeded)
      throw tooMany('Writes for one user', outcome.max, Math.max(1, Math.ceil(outcome.ttl / 1000)));
  });
}
