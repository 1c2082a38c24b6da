// Configured limits over loopback HTTP: body size, events per request, property count, and the per-key rate limit.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bannerFlowYaml, PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService(
    { 'banner.yaml': bannerFlowYaml('welcome') },
    {
      limits: {
        bodyBytes: 2048,
        eventsPerRequest: 3,
        propertiesPerObject: 4,
        requestsPerMinute: 1000,
        privateRequestsPerMinute: 15,
      },
    },
  );
});
afterAll(() => service?.close());

const newUser = () => `user-${randomUUID()}`;
const sized = (userId: string, bytes: number) => {
  const base = JSON.stringify({ userId, properties: { pad: '' } });
  return JSON.stringify({ userId, properties: { pad: 'x'.repeat(bytes - base.length) } });
};
const stored = async (userId: string) => service.db.query('SELECT id FROM users WHERE id = $1', [userId]);

describe('configured limits', () => {
  it('accepts a body at the size limit and answers 413 one byte over', async () => {
    const fits = newUser();
    expect((await service.call('POST', '/v1/public/users', { body: sized(fits, 2048) })).status).toBe(201);
    const tooBig = newUser();
    const response = await service.call('POST', '/v1/public/users', { body: sized(tooBig, 2049) });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.detail).toContain('2048 bytes');
    expect(await stored(tooBig)).toEqual([]);
  });

  it('answers 400 naming events when a request carries too many', async () => {
    const userId = newUser();
    const events = (n: number) => Array.from({ length: n }, (_, i) => ({ event: `e${i}` }));
    expect((await service.call('POST', '/v1/public/users', { body: { userId, events: events(3) } })).status).toBe(201);
    const response = await service.call('POST', '/v1/public/users', { body: { userId, events: events(4) } });
    expect(response.status).toBe(400);
    expect(response.body.field).toBe('events');
    const group = await service.call('POST', '/v1/public/groups', { body: { groupId: 'g', events: events(4) } });
    expect(group.body.field).toBe('events');
    const [count] = await service.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM user_events WHERE user_id = $1',
      [userId],
    );
    expect(count.n).toBe(3);
  });

  it('answers 400 naming the object that has too many properties', async () => {
    const props = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, i]));
    const userId = newUser();
    expect((await service.call('POST', '/v1/public/users', { body: { userId, properties: props(4) } })).status).toBe(
      201,
    );
    const cases: Array<[string, unknown, string]> = [
      ['/v1/public/users', { userId, properties: props(5) }, 'properties'],
      ['/v1/public/users', { userId, events: [{ event: 'e', properties: props(5) }] }, 'events.0.properties'],
      ['/v1/public/groups', { groupId: 'g', properties: props(5) }, 'properties'],
    ];
    for (const [path, body, field] of cases) {
      const response = await service.call('POST', path, { body });
      expect(response.status).toBe(400);
      expect(response.body.field).toBe(field);
    }
  });

  it('answers 429 with Retry-After once a private key passes its rate, leaving public keys alone', async () => {
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof service.call>> | undefined;
    for (let i = 0; i < 16; i++) {
      const response = await service.call('GET', '/v1/public/flows', { key: PRIVATE_KEY });
      statuses.push(response.status);
      limited = response;
    }
    expect(statuses.slice(0, 15)).toEqual(Array(15).fill(200));
    if (!limited) throw new Error('no answer came back');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('content-type')).toContain('application/problem+json');
    expect(limited.body).toMatchObject({ status: 429, title: 'Too Many Requests' });
    const writeWhileLimited = await service.call('POST', '/v1/public/users', {
      key: PRIVATE_KEY,
      body: { userId: 'limited-user' },
    });
    expect(writeWhileLimited.status).toBe(429);
    expect(await stored('limited-user')).toEqual([]);
    expect((await service.call('GET', '/v1/public/flows')).status).toBe(200);
  });
});
