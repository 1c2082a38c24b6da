// Identity verification: with it required, a public-key request naming a real user must carry userHash = hex(HMAC-SHA256(secret, userId)).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { HttpProblem } from '../shared/problem.js';

export interface IdentityConfig {
  /** Secrets the customer's backend signs user IDs with; several, so one can be rotated. */
  secrets: string[];
  /** Refuse public-key requests that name a non-guest user without a valid hash. */
  required: boolean;
}

/** The user a request names, and the hash it sent for them. */
export interface NamedUser {
  userId?: string;
  userHash?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which user this route's request names, for identity verification. */
    namesUser?: (request: FastifyRequest) => NamedUser;
  }
}

export const NO_IDENTITY: IdentityConfig = { secrets: [], required: false };

/** What the customer's backend computes and gives the page: hex(HMAC-SHA256(secret, userId)). */
export function userHashFor(secret: string, userId: string): string {
  return createHmac('sha256', secret).update(userId, 'utf8').digest('hex');
}

const isGuest = (userId: string) => userId.startsWith('guest_');

/**
 * Throws a 401 problem when identity verification is required and `named` lacks a valid hash.
 * Guests (`guest_…`) need none: their random ID is their secret. Private keys are not checked.
 */
export function checkIdentity(config: IdentityConfig, scope: 'public' | 'private', named: NamedUser): void {
  if (!config.required || scope !== 'public' || named.userId === undefined || isGuest(named.userId)) return;
  const { userId, userHash } = named;
  if (userHash === undefined || userHash === '') {
    throw new HttpProblem(
      401,
      `Identity verification is on: a request for user "${userId}" must send "userHash", the hex HMAC-SHA256 of the user ID ` +
        'with your identity secret, computed by your backend. Pass it to Onboarding.identify(userId, properties, { userHash }).',
      'userHash',
    );
  }
  if (!config.secrets.some((secret) => sameHex(userHashFor(secret, userId), userHash))) {
    throw new HttpProblem(
      401,
      `"userHash" does not match user "${userId}": compute it from this user ID with a current identity secret.`,
      'userHash',
    );
  }
}

/** Constant-time comparison of two hex digests; a value of another length or not hex never matches. */
function sameHex(expected: string, given: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(given)) return false;
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(given.toLowerCase(), 'hex'));
}

/** Reads `--identity-secret` / `ONBOARDING_IDENTITY_SECRET` and `--require-identity` / `ONBOARDING_REQUIRE_IDENTITY`. */
export function resolveIdentity(flags: { secret?: string; require?: boolean }, env: NodeJS.ProcessEnv): IdentityConfig {
  const raw = flags.secret ?? env.ONBOARDING_IDENTITY_SECRET ?? '';
  const secrets = raw
    .split(',')
    .map((secret) => secret.trim())
    .filter(Boolean);
  const fromEnv = env.ONBOARDING_REQUIRE_IDENTITY;
  if (fromEnv !== undefined && !['true', 'false', '1', '0', ''].includes(fromEnv.toLowerCase())) {
    throw new Error(`ONBOARDING_REQUIRE_IDENTITY must be true or false; got "${fromEnv}"`);
  }
  const required = flags.require === true || ['true', '1'].includes((fromEnv ?? '').toLowerCase());
  if (required && secrets.length === 0) {
    throw new Error(
      '--require-identity needs at least one identity secret: pass --identity-secret or set ONBOARDING_IDENTITY_SECRET',
    );
  }
  if (secrets.some((secret) => secret.length < 16)) {
    throw new Error('each identity secret must be at least 16 characters long; make one with: openssl rand -hex 32');
  }
  return { secrets, required };
}

/** The start-up warning when verification is off: what anyone holding the public key can do. */
export const IDENTITY_OFF_WARNING =
  'identity verification is off: anyone who copies the public key from your pages can read and change the flow states, ' +
  'form and survey answers and properties of ANY user by naming their user ID, and link a guest into their account. ' +
  'Turn it on with --identity-secret <secret> --require-identity (see docs/security.md).';

/** The named user of a request whose body (or query) holds `userId` and `userHash`. */
export const userInBody = (request: FastifyRequest): NamedUser => {
  const source = ((request.method === 'GET' ? request.query : request.body) ?? {}) as {
    userId?: string;
    userHash?: string;
  };
  return { userId: source.userId, userHash: source.userHash };
};
