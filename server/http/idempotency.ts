// Idempotency-Key on every POST: a small record of the first answer is kept for 24 h and replayed; the work is never applied twice.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database, Queryable } from '../storage/store.js';
import { HttpProblem } from '../shared/problem.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** How long a key is remembered. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;
export const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentResult {
  status: number;
  body: unknown;
  /**
   * What a replay needs, stored with the key in place of the body; it must stay small whatever the
   * user has done. Absent: the body itself is stored (only for small, fixed answers such as `{}`).
   */
  keep?: unknown;
}

/** Rebuilds a replayed answer from what was kept, inside the replay's transaction. */
export type Replay = (tx: Queryable, kept: unknown) => Promise<unknown>;

interface KeyRow {
  request_hash: string;
  status: number;
  body: string;
}

const lastSweep = new WeakMap<Database, number>();

/**
 * Runs `work` in one transaction. With an `Idempotency-Key` header, the key is claimed in that same
 * transaction, so a concurrent duplicate waits for the first and then replays its response; a
 * refused request (4xx) rolls back and keeps nothing, so it may be retried with the same key.
 * `userId` ties the record to a user so that deleting the user deletes it too.
 *
 * State answers are not stored: a replay of a write that answers with flow states gets the user's
 * current state, rebuilt by `replay` from the small value the work chose to keep.
 */
export async function runIdempotent(
  db: Database,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string | null,
  work: (tx: Queryable) => Promise<IdempotentResult>,
  replay?: Replay,
): Promise<FastifyReply> {
  const header = request.headers[IDEMPOTENCY_HEADER];
  if (header === undefined) {
    const result = await db.transaction(work);
    return reply.code(result.status).send(result.body);
  }
  if (typeof header !== 'string' || !KEY_FORMAT.test(header)) {
    throw new HttpProblem(
      400,
      'header "Idempotency-Key" must be 1 to 255 visible ASCII characters, such as a UUID',
      'Idempotency-Key',
    );
  }
  const path = request.url.split('?')[0];
  const outcome = await idempotentOnce(
    db,
    { apiKey: request.apiKey ?? '', key: header, hash: writeHash(request.method, path, request.body), userId },
    work,
    replay,
  );
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.code(outcome.status).send(outcome.body);
}

/** One write under one key: who sent it (the API key scopes keys), the key, the hash of the write, and its user. */
export interface IdempotentWrite {
  apiKey: string;
  key: string;
  hash: string;
  userId: string | null;
}

/**
 * Applies `work` once for a key: the first time in one transaction with the key's claim; a repeat of the same
 * write (same hash) replays; the same key with another write is a 422. A batch runs each of its writes
 * through this, so a write is applied once whether it came alone or in a batch.
 */
export async function idempotentOnce(
  db: Database,
  write: IdempotentWrite,
  work: (tx: Queryable) => Promise<IdempotentResult>,
  replay?: Replay,
): Promise<{ replayed: boolean; status: number; body: unknown }> {
  const { apiKey, key, hash, userId } = write;
  return db.transaction(async (tx) => {
    await sweepExpired(db, tx);
    // Claims the key, or takes over one older than the window. On PostgreSQL a concurrent claim of the
    // same key blocks here until the first transaction ends.
    const claimed = await tx.query(
      `INSERT INTO idempotency_keys (api_key, key, user_id, request_hash, status, body)
       VALUES ($1, $2, $3, $4, 0, '')
       ON CONFLICT (api_key, key) DO UPDATE
         SET user_id = EXCLUDED.user_id, request_hash = EXCLUDED.request_hash, status = 0, body = '', created_at = now()
         WHERE idempotency_keys.created_at < now() - make_interval(hours => $5)
       RETURNING key`,
      [apiKey, key, userId, hash, IDEMPOTENCY_WINDOW_HOURS],
    );
    if (claimed.length === 0) {
      const [kept] = await tx.query<KeyRow>(
        'SELECT request_hash, status, body FROM idempotency_keys WHERE api_key = $1 AND key = $2',
        [apiKey, key],
      );
      if (!kept || kept.request_hash !== hash) {
        throw new HttpProblem(
          422,
          'This Idempotency-Key was already used with a different request; use a new key for a new request.',
          'Idempotency-Key',
        );
      }
      const stored = JSON.parse(kept.body) as unknown;
      return { replayed: true, status: kept.status, body: replay ? await replay(tx, stored) : stored };
    }
    const result = await work(tx);
    await tx.query('UPDATE idempotency_keys SET status = $3, body = $4 WHERE api_key = $1 AND key = $2', [
      apiKey,
      key,
      result.status,
      JSON.stringify(('keep' in result ? result.keep : result.body) ?? null),
    ]);
    return { replayed: false, status: result.status, body: result.body };
  });
}

/** Method, path and a canonical form of the body: key order does not make two requests differ. */
export function writeHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Drops expired records at most once an hour, inside a write that is happening anyway. */
async function sweepExpired(db: Database, tx: Queryable): Promise<void> {
  if (Date.now() - (lastSweep.get(db) ?? 0) < 3_600_000) return;
  lastSweep.set(db, Date.now());
  await tx.query('DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1)', [
    IDEMPOTENCY_WINDOW_HOURS,
  ]);
}
