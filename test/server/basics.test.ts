// The service's first slice over loopback HTTP: users upsert, flow-state read, flow listing, keys and CORS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowsResponse, FlowStatesResponse, UserUpsertResponse } from '../../src/api/wire.js';
import { bannerFlowYaml, PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    'banner.yaml': bannerFlowYaml('welcome'),
    'pro.yaml': `
slug: pro-only
name: Pro only
type: CARD
targetingLogic: "user.properties.plan == 'pro'"
data:
  steps:
    - id: one
      title: For pros
`,
  });
});
afterAll(() => service?.close());

describe('POST /v1/public/users', () => {
  it('creates the user, merges properties, appends events, and answers 201 with flow states', async () => {
    const first = await service.call('POST', '/v1/public/users', {
      body: {
        userId: 'merge-1',
        properties: { plan: 'free', email: 'a@example.com' },
        events: [{ event: 'signed-up' }],
      },
    });
    expect(first.status).toBe(201);
    const body = first.body as UserUpsertResponse;
    expect(body.userId).toBe('merge-1');
    expect(body.guestLinked).toBe(false);
    expect(body.flowStates.eligibleFlows.map((f) => f.flowSlug)).toEqual(['welcome']);
    expect(body.flowStates.ineligibleFlows).toEqual(['pro-only']);

    const second = await service.call('POST', '/v1/public/users', {
      body: {
        userId: 'merge-1',
        properties: { plan: 'pro' },
        events: [{ event: 'upgraded', properties: { from: 'free' } }],
      },
    });
    expect(second.status).toBe(201);
    expect((second.body as UserUpsertResponse).flowStates.eligibleFlows.map((f) => f.flowSlug)).toEqual([
      'welcome',
      'pro-only',
    ]);
    const [user] = await service.db.query<{ properties: object }>('SELECT properties FROM users WHERE id = $1', [
      'merge-1',
    ]);
    expect(user.properties).toEqual({ plan: 'pro', email: 'a@example.com' });
    const events = await service.db.query<{ event: string }>(
      'SELECT event FROM user_events WHERE user_id = $1 ORDER BY id',
      ['merge-1'],
    );
    expect(events.map((e) => e.event)).toEqual(['signed-up', 'upgraded']);
  });

  it('answers 400 naming the field when userId is missing or not a string', async () => {
    const missing = await service.call('POST', '/v1/public/users', { body: { properties: {} } });
    expect(missing.status).toBe(400);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    expect(missing.body.detail).toContain('userId');
    const wrongType = await service.call('POST', '/v1/public/users', { body: { userId: 7 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.field).toBe('userId');
  });
});

describe('GET /v1/public/flowStates', () => {
  it('reads an unknown user as new without creating it', async () => {
    const read = await service.call('GET', '/v1/public/flowStates?userId=nobody-yet');
    expect(read.status).toBe(200);
    const body = read.body as FlowStatesResponse;
    const welcome = body.eligibleFlows.find((f) => f.flowSlug === 'welcome')!;
    expect(welcome.$state).toMatchObject({
      currentStepId: 'hello',
      currentStepIndex: 0,
      started: false,
      completed: false,
      visible: true,
    });
    expect(welcome.data.steps[0].$state).toMatchObject({ visible: true, blocked: false, completed: false });
    expect(await service.db.query('SELECT id FROM users WHERE id = $1', ['nobody-yet'])).toEqual([]);
  });
});

describe('GET /v1/public/flows', () => {
  it('lists definitions with JSON-encoded data, a code snippet and an ETag', async () => {
    const list = await service.call('GET', '/v1/public/flows');
    expect(list.status).toBe(200);
    const body = list.body as FlowsResponse;
    expect(body.offset).toBe(0);
    expect(body.limit).toBe(2);
    const welcome = body.data.find((f) => f.slug === 'welcome')!;
    expect(JSON.parse(welcome.data).steps[0].title).toBe('Welcome aboard');
    expect(welcome).toMatchObject({
      version: 1,
      type: 'BANNER',
      status: 'ACTIVE',
      codeSnippet: '<onboarding-banner flow="welcome"></onboarding-banner>',
    });
    const etag = list.headers.get('etag')!;
    const again = await service.call('GET', '/v1/public/flows', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
  });
});

describe('keys and CORS', () => {
  it('answers 401 with WWW-Authenticate for a missing or unknown key', async () => {
    for (const key of [null, 'pk_wrong']) {
      const response = await service.call('GET', '/v1/public/flows', { key });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(response.body.status).toBe(401);
    }
  });

  it('keeps public keys off private paths and lets private keys through', async () => {
    const denied = await service.call('DELETE', '/v1/users?foreignId=merge-1');
    expect(denied.status).toBe(403);
    const allowed = await service.call('GET', '/v1/public/flows', { key: PRIVATE_KEY });
    expect(allowed.status).toBe(200);
  });

  it('answers a preflight from any origin with the allowed headers and a day of max-age', async () => {
    const response = await fetch(`${service.url}/v1/public/users`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://customer.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,idempotency-key',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-headers')).toBe(
      'Authorization, Content-Type, Idempotency-Key, X-Frigade-SDK-Version, X-Frigade-SDK-Platform',
    );
    expect(response.headers.get('access-control-max-age')).toBe('86400');
  });
});
