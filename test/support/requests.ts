// Reads what a request the script made carries, whatever endpoint took it: a state read, or writes (alone or in a batch).
import type { SeenRequest } from './loopback-proxy.js';

export type WritePath = 'users' | 'groups' | 'flowStates';

export interface SeenWrite {
  path: WritePath;
  body: Record<string, unknown>;
  /** Its Idempotency-Key. */
  key?: string;
}

const parse = (text: string): any => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const pathOf = (r: SeenRequest) => r.path.split('?')[0];

/** A read of the user's flow states (the POST read, or the GET). */
export const isStateRead = (r: SeenRequest) =>
  pathOf(r) === '/v1/public/flowStates' &&
  (r.method === 'GET' || (r.method === 'POST' && parse(r.body)?.actionType === undefined));

/** The writes a request carries, in order: one for a write endpoint, each write of a batch, none for anything else. */
export function writesIn(r: SeenRequest): SeenWrite[] {
  if (r.method !== 'POST') return [];
  const body = parse(r.body);
  const path = pathOf(r);
  if (path === '/v1/public/batch') {
    return Array.isArray(body?.writes)
      ? body.writes.map((write: any) => ({ path: write.path, body: write.body, key: write.idempotencyKey }))
      : [];
  }
  const single = path.replace('/v1/public/', '') as WritePath;
  if (single === 'flowStates' && body?.actionType === undefined) return [];
  return ['users', 'groups', 'flowStates'].includes(single) ? [{ path: single, body, key: r.idempotencyKey }] : [];
}

/** A request that carries a write to `path` whose JSON holds every one of `includes`. */
export const carriesWrite =
  (path: WritePath, ...includes: string[]) =>
  (r: SeenRequest) =>
    writesIn(r).some(
      (write) => write.path === path && includes.every((part) => JSON.stringify(write.body).includes(part)),
    );
