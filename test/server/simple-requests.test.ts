// What lets a page call the service with CORS "simple" requests, and compressed answers, over loopback HTTP (issue 10).
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bannerFlowYaml,
  checklistYaml,
  PRIVATE_KEY,
  PUBLIC_KEY,
  startTestService,
  type TestService,
} from '../support/service.js';

let service: TestService;

beforeAll(async () => {
  const flows: Record<string, string> = { 'banner.yaml': bannerFlowYaml('welcome') };
  // Enough flows that a state answer with content is well past the compression threshold.
  for (let i = 0; i < 20; i++) flows[`list-${i}.yaml`] = checklistYaml(`list-${i}`);
  service = await startTestService(flows);
});
afterAll(() => service?.close());

const TABLES = [
  'users',
  'user_events',
  'groups',
  'group_members',
  'flow_states',
  'step_states',
  'flow_responses',
  'idempotency_keys',
];
async function storedState(): Promise<Record<string, unknown[]>> {
  const state: Record<string, unknown[]> = {};
  for (const table of TABLES) state[table] = await service.db.query(`SELECT * FROM ${table} ORDER BY 1, 2`);
  return state;
}

/** A POST as a page sends it with no preflight: text/plain, no Authorization, the public key in the query. */
const simplePost = (path: string, body: string) =>
  fetch(`${service.url}${path}${path.includes('?') ? '&' : '?'}publicKey=${PUBLIC_KEY}`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/plain;charset=UTF-8' },
    body,
  });

/** The raw answer, bytes as sent (fetch would decompress them), for a request with `Accept-Encoding`. */
function raw(
  path: string,
  acceptEncoding: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const url = new URL(service.url + path);
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        headers: { 'Content-Type': 'text/plain', 'Accept-Encoding': acceptEncoding },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode!, headers: response.headers, bytes: Buffer.concat(chunks) }),
        );
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify({ userId: 'compressed-reader' }));
  });
}

describe('the public key in the query', () => {
  it('takes a public key as the publicKey query field instead of the Authorization header', async () => {
    const read = await simplePost('/v1/public/flowStates', JSON.stringify({ userId: 'query-key-user' }));
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe('*');
    expect(((await read.json()) as { eligibleFlows: unknown[] }).eligibleFlows.length).toBe(21);
    const write = await simplePost(
      '/v1/public/flowStates',
      JSON.stringify({ userId: 'query-key-user', flowSlug: 'welcome', stepId: 'hello', actionType: 'COMPLETED_STEP' }),
    );
    expect(write.status).toBe(201);
    const get = await fetch(`${service.url}/v1/public/flowStates?userId=query-key-user&publicKey=${PUBLIC_KEY}`);
    expect(get.status).toBe(200);
  });

  it('refuses a private key there, an unknown key, a key sent twice, and a public key on a private path, changing nothing', async () => {
    const before = await storedState();
    const body = JSON.stringify({ userId: 'refused-query-user', events: [{ event: 'e' }] });
    const cases: Array<[string, RequestInit, number]> = [
      [
        `/v1/public/users?publicKey=${PRIVATE_KEY}`,
        { method: 'POST', body, headers: { 'Content-Type': 'text/plain' } },
        400,
      ],
      [
        '/v1/public/users?publicKey=pk_unknown',
        { method: 'POST', body, headers: { 'Content-Type': 'text/plain' } },
        401,
      ],
      [
        `/v1/public/users?publicKey=${PUBLIC_KEY}&publicKey=${PUBLIC_KEY}`,
        { method: 'POST', body, headers: { 'Content-Type': 'text/plain' } },
        400,
      ],
      ['/v1/public/users?publicKey=', { method: 'POST', body, headers: { 'Content-Type': 'text/plain' } }, 400],
      [
        `/v1/public/users?publicKey=${PUBLIC_KEY}`,
        { method: 'POST', body, headers: { 'Content-Type': 'text/plain', Authorization: `Bearer ${PUBLIC_KEY}` } },
        400,
      ],
      [`/v1/users?foreignId=existing&publicKey=${PUBLIC_KEY}`, { method: 'GET' }, 403],
    ];
    for (const [path, init, status] of cases) {
      const response = await fetch(service.url + path, init);
      expect(response.status, path).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = (await response.json()) as { status: number; field?: string; detail: string };
      expect(problem.status).toBe(status);
      if (status !== 403) expect(problem.field).toBe('publicKey');
    }
    const privateKey = await fetch(`${service.url}/v1/public/users?publicKey=${PRIVATE_KEY}`, {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(((await privateKey.json()) as { detail: string }).detail).toMatch(
      /never be in a URL.*Authorization.*rotate/,
    );
    expect(await storedState()).toEqual(before);
  });

  it('scopes idempotency keys to the key, wherever it was sent', async () => {
    const body = JSON.stringify({ userId: 'query-idempotent', events: [{ event: 'once' }] });
    const headers = { 'Content-Type': 'application/json', 'Idempotency-Key': 'query-and-header' };
    const first = await fetch(`${service.url}/v1/public/users?publicKey=${PUBLIC_KEY}`, {
      method: 'POST',
      body,
      headers,
    });
    const second = await fetch(`${service.url}/v1/public/users`, {
      method: 'POST',
      body,
      headers: { ...headers, Authorization: `Bearer ${PUBLIC_KEY}` },
    });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await service.db.query("SELECT event FROM user_events WHERE user_id = 'query-idempotent'")).toEqual([
      { event: 'once' },
    ]);
  });

  it('counts requests with the key in the query against that key’s rate limit', async () => {
    const limited = await startTestService(
      { 'banner.yaml': bannerFlowYaml('welcome') },
      { limits: { requestsPerMinute: 3 } },
    );
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 2; i++)
        statuses.push((await fetch(`${limited.url}/v1/public/flowStates?userId=u&publicKey=${PUBLIC_KEY}`)).status);
      for (let i = 0; i < 2; i++) statuses.push((await limited.call('GET', '/v1/public/flowStates?userId=u')).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe('text/plain bodies', () => {
  it('parses a text/plain body as JSON, as strictly as application/json', async () => {
    const before = await storedState();
    for (const [body, field] of [
      ['userId=x', 'body'],
      ['{"userId":"x","properties":{"big":1e309}}', 'properties.big'],
      ['{"userId":"x","__proto__":{"admin":true}}', 'body'],
      ['{"userId":"x","email":"a@b.c"}', 'email'],
    ] as const) {
      const response = await simplePost('/v1/public/users', body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { field: string }).field).toBe(field);
    }
    expect(await storedState()).toEqual(before);
    const taken = await simplePost(
      '/v1/public/users',
      JSON.stringify({ userId: 'plain-user', properties: { plan: 'pro' } }),
    );
    expect(taken.status).toBe(201);
    expect(await service.db.query("SELECT properties FROM users WHERE id = 'plain-user'")).toEqual([
      { properties: { plan: 'pro' } },
    ]);
  });

  it('still refuses a form body, XML and a compressed body with 415', async () => {
    for (const [type, body, extra] of [
      ['application/x-www-form-urlencoded', 'userId=x', {}],
      ['application/xml', '<userId>x</userId>', {}],
      ['text/plain', '{"userId":"x"}', { 'Content-Encoding': 'gzip' }],
    ] as const) {
      const response = await service.call('POST', '/v1/public/users', {
        body,
        headers: { 'Content-Type': type, ...extra },
      });
      expect(response.status).toBe(415);
    }
  });
});

describe('compressed answers', () => {
  it('compresses a state answer with brotli or gzip as the client accepts, and not otherwise', async () => {
    const path = `/v1/public/flowStates?publicKey=${PUBLIC_KEY}`;
    const plain = await raw(path, 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const answer = JSON.parse(plain.bytes.toString('utf8'));
    expect(plain.bytes.length).toBeGreaterThan(4096);

    const br = await raw(path, 'gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(brotliDecompressSync(br.bytes).toString('utf8'))).toEqual(answer);
    expect(br.bytes.length).toBeLessThan(plain.bytes.length / 4);

    const gzip = await raw(path, 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzip.bytes).toString('utf8'))).toEqual(answer);
  });

  it('leaves a small answer uncompressed', async () => {
    const small = await fetch(`${service.url}/v1/public/groups?publicKey=${PUBLIC_KEY}`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', 'Accept-Encoding': 'br, gzip' },
      body: JSON.stringify({ groupId: 'small' }),
    });
    expect(small.status).toBe(201);
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(await small.json()).toEqual({});
  });
});
