// Limits from command-line flags and environment variables (a flag wins over the variable, both over the default).
import { DEFAULT_LIMITS, type Limits } from './shared/limits.js';

export interface LimitSetting {
  key: keyof Limits;
  flag: string;
  env: string;
  meaning: string;
  /** The smallest value taken. @default 1 */
  min?: number;
}

export const LIMIT_SETTINGS: LimitSetting[] = [
  {
    key: 'bodyBytes',
    flag: 'max-body-bytes',
    env: 'ONBOARDING_MAX_BODY_BYTES',
    meaning: 'largest request body, in bytes',
  },
  {
    key: 'eventsPerRequest',
    flag: 'max-events',
    env: 'ONBOARDING_MAX_EVENTS',
    meaning: 'most tracking events in one upsert',
  },
  {
    key: 'propertiesPerObject',
    flag: 'max-properties',
    env: 'ONBOARDING_MAX_PROPERTIES',
    meaning: 'most keys in one properties object',
  },
  {
    key: 'requestsPerMinute',
    flag: 'rate-limit',
    env: 'ONBOARDING_RATE_LIMIT',
    meaning: 'requests per minute per public key and visitor address',
  },
  {
    key: 'privateRequestsPerMinute',
    flag: 'private-rate-limit',
    env: 'ONBOARDING_PRIVATE_RATE_LIMIT',
    meaning: 'requests per minute per private key',
  },
  {
    key: 'userWritesPerMinute',
    flag: 'user-write-limit',
    env: 'ONBOARDING_USER_WRITE_LIMIT',
    meaning: 'writes per minute per user ID (public keys)',
  },
  {
    key: 'maxWaitMs',
    flag: 'max-wait-ms',
    env: 'ONBOARDING_MAX_WAIT_MS',
    meaning: 'longest wait for the database, in ms, past which 503',
  },
  {
    key: 'poolSize',
    flag: 'pool-size',
    env: 'ONBOARDING_POOL_SIZE',
    meaning: 'connections to a PostgreSQL server, per instance',
  },
  {
    key: 'cacheUsers',
    flag: 'cache-users',
    env: 'ONBOARDING_CACHE_USERS',
    meaning: 'users kept in memory for reads (0: off)',
    min: 0,
  },
  {
    key: 'cacheAnswersMb',
    flag: 'cache-answers-mb',
    env: 'ONBOARDING_CACHE_ANSWERS_MB',
    meaning: 'MiB for the answers kept with cached users (0: none)',
    min: 0,
  },
  {
    key: 'eventLoopDelayMs',
    flag: 'max-event-loop-delay',
    env: 'ONBOARDING_MAX_EVENT_LOOP_DELAY',
    meaning: 'mean event loop delay, in ms, past which 503 (0: off)',
    min: 0,
  },
  {
    key: 'dataBytes',
    flag: 'max-data-bytes',
    env: 'ONBOARDING_MAX_DATA_BYTES',
    meaning: 'largest data of one transition, in bytes of JSON',
  },
  {
    key: 'storedProperties',
    flag: 'max-stored-properties',
    env: 'ONBOARDING_MAX_STORED_PROPERTIES',
    meaning: 'most property keys stored per user or group',
  },
  {
    key: 'storedPropertyBytes',
    flag: 'max-stored-property-bytes',
    env: 'ONBOARDING_MAX_STORED_PROPERTY_BYTES',
    meaning: 'largest stored properties of a user or group, in bytes of JSON',
  },
  {
    key: 'storedEventNames',
    flag: 'max-stored-event-names',
    env: 'ONBOARDING_MAX_STORED_EVENT_NAMES',
    meaning: 'most distinct event names stored per user or group',
  },
];

/** Reads every limit; throws an Error naming the flag or variable when a value is not a positive whole number. */
export function resolveLimits(flags: Record<string, string | undefined>, env: NodeJS.ProcessEnv): Limits {
  const limits: Limits = { ...DEFAULT_LIMITS };
  for (const setting of LIMIT_SETTINGS) {
    const fromFlag = flags[setting.flag];
    const raw = fromFlag ?? env[setting.env];
    if (raw === undefined || raw === '') continue;
    const min = setting.min ?? 1;
    if (!/^\d{1,12}$/.test(raw) || Number(raw) < min) {
      const name = fromFlag !== undefined ? `--${setting.flag}` : setting.env;
      throw new Error(`${name} must be a whole number of at least ${min} (${setting.meaning}); got "${raw}"`);
    }
    limits[setting.key] = Number(raw);
  }
  return limits;
}

/**
 * `--trust-proxy` / `ONBOARDING_TRUST_PROXY`: whether to take the visitor's address from X-Forwarded-For.
 * `true` trusts every proxy, a number trusts that many hops, and a comma-separated list trusts those
 * addresses or CIDR ranges. Off by default, so a client cannot choose its own address.
 */
export function resolveTrustProxy(flag: string | undefined, env: NodeJS.ProcessEnv): boolean | number | string {
  const raw = (flag ?? env.ONBOARDING_TRUST_PROXY ?? '').trim();
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  if (/^[0-9a-fA-F:./,\s]+$/.test(raw))
    return raw
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .join(',');
  throw new Error(
    `--trust-proxy must be true, a number of hops, or a comma-separated list of proxy addresses or CIDR ranges; got "${raw}"`,
  );
}
