// Limits from command-line flags and environment variables (a flag wins over the variable, both over the default).
import { DEFAULT_LIMITS, type Limits } from './app.js';

export interface LimitSetting {
  key: keyof Limits;
  flag: string;
  env: string;
  meaning: string;
}

export const LIMIT_SETTINGS: LimitSetting[] = [
  { key: 'bodyBytes', flag: 'max-body-bytes', env: 'ONBOARDING_MAX_BODY_BYTES', meaning: 'largest request body, in bytes' },
  { key: 'eventsPerRequest', flag: 'max-events', env: 'ONBOARDING_MAX_EVENTS', meaning: 'most tracking events in one upsert' },
  { key: 'propertiesPerObject', flag: 'max-properties', env: 'ONBOARDING_MAX_PROPERTIES', meaning: 'most keys in one properties object' },
  { key: 'requestsPerMinute', flag: 'rate-limit', env: 'ONBOARDING_RATE_LIMIT', meaning: 'requests per minute per API key' },
  { key: 'dataBytes', flag: 'max-data-bytes', env: 'ONBOARDING_MAX_DATA_BYTES', meaning: 'largest data of one transition, in bytes of JSON' },
  { key: 'storedProperties', flag: 'max-stored-properties', env: 'ONBOARDING_MAX_STORED_PROPERTIES', meaning: 'most property keys stored per user or group' },
  {
    key: 'storedPropertyBytes',
    flag: 'max-stored-property-bytes',
    env: 'ONBOARDING_MAX_STORED_PROPERTY_BYTES',
    meaning: 'largest stored properties of a user or group, in bytes of JSON',
  },
];

/** Reads every limit; throws an Error naming the flag or variable when a value is not a positive whole number. */
export function resolveLimits(flags: Record<string, string | undefined>, env: NodeJS.ProcessEnv): Limits {
  const limits: Limits = { ...DEFAULT_LIMITS };
  for (const setting of LIMIT_SETTINGS) {
    const fromFlag = flags[setting.flag];
    const raw = fromFlag ?? env[setting.env];
    if (raw === undefined || raw === '') continue;
    if (!/^\d{1,12}$/.test(raw) || Number(raw) < 1) {
      const name = fromFlag !== undefined ? `--${setting.flag}` : setting.env;
      throw new Error(`${name} must be a whole number of at least 1 (${setting.meaning}); got "${raw}"`);
    }
    limits[setting.key] = Number(raw);
  }
  return limits;
}
