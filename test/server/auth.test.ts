// The full auth matrix over loopback HTTP (no key, bad key, public key, private key on every endpoint), plus CORS on answers.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bannerFlowYaml, PRIVATE_KEY, PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ 'banner.yaml': bannerFlowYaml('welcome') });
});
afterAll(() => service?.close());

interface Endpoint {
  name: string;
  method: string;
  /** Builds the path and body for a fresh user, so every call stands alone. */
  request(userId: string): { path: string; body?: unknown };
  success: number;
  isPrivate: boolean;
}

const ENDPOINTS: Endpoint[] = [
  {
    name: 'POST /v1/public/users',
    method: 'POST',
    request: (userId) => ({ path: '/v1/public/users', body: { userId } }),
    success: 201,
    isPrivate: false,
  },
  {
    name: 'POST /v1/public/groups',
    method: 'POST',
    request: (userId) => ({ path: '/v1/public/groups', body: { groupId: `g-${userId}`, userId } }),
    success: 201,
    isPrivate: false,
  },
  {
    name: 'POST /v1/public/flowStates',
    method: 'POST',
    request: (userId) => ({
      path: '/v1/public/flowStates',
      body: { userId, flowSlug: 'welcome', stepId: 'hello', actionType: 'STARTED_STEP' },
    }),
    success: 201,
    isPrivate: false,
  },
  {
    name: 'GET /v1/public/flowStates',
    method: 'GET',
    request: (userId) => ({ path: `/v1/public/flowStates?userId=${userId}` }),
    success: 200,
    isPrivate: false,
  },
  {
    name: 'GET /v1/public/flows',
    method: 'GET',
    request: () => ({ path: '/v1/public/flows' }),
    success: 200,
    isPrivate: false,
  },
  {
    name: 'DELETE /v1/users',
    method: 'DELETE',
    request: (userId) => ({ path: `/v1/users?foreignId=${userId}` }),
    success: 204,
    isPrivate: true,
  },
  {
    name: 'GET /v1/analytics/flows',
    method: 'GET',
    request: () => ({ path: '/v1/analytics/flows' }),
    success: 200,
    isPrivate: true,
  },
  {
    name: 'GET /v1/analytics/flows/{slug}',
    method: 'GET',
    request: () => ({ path: '/v1/analytics/flows/welcome' }),
    success: 200,
    isPrivate: true,
  },
  {
    name: 'GET /v1/analytics/flows/{slug}/responses',
    method: 'GET',
    request: () => ({ path: '/v1/analytics/flows/welcome/responses' }),
    success: 200,
    isPrivate: true,
  },
];

async function userCount(): Promise<number> {
  const [row] = await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users');
  return row.n;
}

async function freshUser(): Promise<string> {
  const userId = `user-${randomUUID()}`;
  await service.call('POST', '/v1/public/users', { body: { userId } });
  return userId;
}

const REFUSED_KEYS: Array<[string, Record<string, string>]> = [
  ['no Authorization header', {}],
  ['an unknown key', { Authorization: 'Bearer pk_not_a_key' }],
  ['a Basic credential', { Authorization: `Basic ${Buffer.from(`${PUBLIC_KEY}:`).toString('base64')}` }],
  ['an empty Bearer', { Authorization: 'Bearer ' }],
  ['the key without the Bearer scheme', { Authorization: PUBLIC_KEY }],
];

describe('auth matrix', () => {
  for (const endpoint of ENDPOINTS) {
    describe(endpoint.name, () => {
      it.each(REFUSED_KEYS)('answers 401 with WWW-Authenticate for %s, changing nothing', async (_label, headers) => {
        const userId = await freshUser();
        const before = await userCount();
        const { path, body } = endpoint.request(userId);
        const response = await service.call(endpoint.method, path, { key: null, body, headers });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer');
        expect(response.headers.get('content-type')).toContain('application/problem+json');
        expect(response.body).toMatchObject({ status: 401, title: 'Unauthorized' });
        expect(await userCount()).toBe(before);
      });

      it(`answers ${endpoint.isPrivate ? '403 to' : endpoint.success + ' for'} a public key`, async () => {
        const userId = await freshUser();
        const { path, body } = endpoint.request(userId);
        const response = await service.call(endpoint.method, path, { key: PUBLIC_KEY, body });
        if (endpoint.isPrivate) {
          expect(response.status).toBe(403);
          expect(response.body).toMatchObject({ status: 403, title: 'Forbidden' });
          expect(response.body.detail).toContain('private key');
          expect(await service.db.query('SELECT id FROM users WHERE id = $1', [userId])).toEqual([{ id: userId }]);
        } else {
          expect(response.status).toBe(endpoint.success);
        }
      });

      it(`answers ${endpoint.success} for a private key`, async () => {
        const userId = await freshUser();
        const { path, body } = endpoint.request(userId);
        const response = await service.call(endpoint.method, path, { key: PRIVATE_KEY, body });
        expect(response.status).toBe(endpoint.success);
      });
    });
  }

  it('keeps a public key off a private path spelled with percent-encoding', async () => {
    const userId = await freshUser();
    const response = await service.call('DELETE', `/v1/%75sers?foreignId=${userId}`, { key: PUBLIC_KEY });
    expect(response.status).toBe(403);
    expect(await service.db.query('SELECT id FROM users WHERE id = $1', [userId])).toEqual([{ id: userId }]);
  });
});

describe('CORS on answers', () => {
  it('lets any origin read answers, errors included, without credentials', async () => {
    for (const key of [PUBLIC_KEY, null]) {
      const response = await fetch(`${service.url}/v1/public/flows`, {
        headers: { Origin: 'https://customer.example', ...(key ? { Authorization: `Bearer ${key}` } : {}) },
      });
      expect(response.status).toBe(key ? 200 : 401);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(response.headers.get('access-control-expose-headers')).toBe('ETag, Retry-After, Idempotent-Replayed');
    }
  });

  it('answers a preflight for DELETE without a key', async () => {
    const response = await fetch(`${service.url}/v1/users?foreignId=x`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://admin.example',
        'Access-Control-Request-Method': 'DELETE',
        'Access-Control-Request-Headers': 'authorization',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-methods')).toContain('DELETE');
  });
});
