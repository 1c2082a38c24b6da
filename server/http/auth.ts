// API keys: public keys reach only /v1/public/, private keys reach everything; keys come from env or the data.
import { randomBytes } from 'node:crypto';
import type { Database } from '../storage/store.js';

export type KeyScope = 'public' | 'private';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without an API key (the script, health checks). */
    public?: boolean;
  }
  interface FastifyRequest {
    /** The scope of the request's API key, set once the key is checked. */
    apiScope: KeyScope | undefined;
    /** The request's API key, from its Authorization header or its `publicKey` query field, once checked. */
    apiKey: string | undefined;
  }
}

export interface ApiKeys {
  public: string[];
  private: string[];
  /** True when the keys were made by this service and kept with its data. */
  generated: boolean;
}

const splitKeys = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);

export function newKey(scope: KeyScope): string {
  return `${scope === 'public' ? 'pk' : 'sk'}_${randomBytes(18).toString('base64url')}`;
}

/**
 * Keys from `ONBOARDING_PUBLIC_KEYS` / `ONBOARDING_PRIVATE_KEYS` (comma-separated) when either is set;
 * otherwise the pair kept with the data, made on first start.
 */
export async function resolveKeys(db: Database, env: NodeJS.ProcessEnv = process.env): Promise<ApiKeys> {
  const fromEnv = { public: splitKeys(env.ONBOARDING_PUBLIC_KEYS), private: splitKeys(env.ONBOARDING_PRIVATE_KEYS) };
  if (fromEnv.public.length || fromEnv.private.length) return { ...fromEnv, generated: false };
  return db.transaction(async (tx) => {
    // Several instances starting at once on one database make one pair, not one each.
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('onboarding:keys'))");
    const rows = await tx.query<{ key: string; scope: KeyScope }>(
      'SELECT key, scope FROM api_keys ORDER BY created_at, key',
    );
    if (rows.length === 0) {
      const pair = { public: newKey('public'), private: newKey('private') };
      await tx.query("INSERT INTO api_keys (key, scope) VALUES ($1, 'public'), ($2, 'private')", [
        pair.public,
        pair.private,
      ]);
      return { public: [pair.public], private: [pair.private], generated: true };
    }
    return {
      public: rows.filter((r) => r.scope === 'public').map((r) => r.key),
      private: rows.filter((r) => r.scope === 'private').map((r) => r.key),
      generated: true,
    };
  });
}

export function scopeOf(keys: ApiKeys, authorization: string | undefined): KeyScope | 'missing' | 'unknown' {
  const key = bearerKey(authorization);
  return key === undefined ? 'missing' : keyScope(keys, key);
}

/** The scope of one key. */
export function keyScope(keys: ApiKeys, key: string): KeyScope | 'unknown' {
  if (keys.private.includes(key)) return 'private';
  if (keys.public.includes(key)) return 'public';
  return 'unknown';
}

export function bearerKey(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}
