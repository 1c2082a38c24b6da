// The retry delay of the outbox's writes and of failed reads: exponential backoff with jitter.
import { MAX_WAIT_MS } from '../api/client.js';

const MAX_BACKOFF_MS = 30_000;
/** Exponential backoff with jitter, honouring a server's Retry-After when it asks for longer, up to MAX_WAIT_MS. */
export function backoffMs(attempts: number, retryAfterMs = 0, random = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(attempts, 16));
  return Math.min(MAX_WAIT_MS, Math.max(retryAfterMs, Math.round(ceiling * (0.5 + random() / 2))));
}
