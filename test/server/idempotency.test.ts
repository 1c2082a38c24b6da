// Idempotency-Key over loopback HTTP: replays without applying twice, 422 on a changed body, concurrent duplicates, the 24 h window.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserUpsertResponse } from '../../src/api/wire.js';
import { bannerFlowYaml, PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ 'banner.yaml': bannerFlowYaml('welcome') });
});
afterAll(() => service?.close());

const newUser = () => `user-${randomUUID()}`;
const post = (path: string, body: unknown, key: string, apiKey?: string) =>
  service.call('POST', path, { body, headers: { 'Idempotency-Key': key }, ...(apiKey ? { key: apiKey } : {}) });

async function eventCount(userId: string): Promise<number> {
  const [row] = await service.db.query<{ n: number }>('SELECT count(*)::int AS n FROM user_events WHERE user_id = $1', [
    userId,
  ]);
  return row.n;
}

describe('Idempotency-Key', () => {
  it('replays the first users upsert without appending its events twice', async () => {
    const userId = newUser();
    const key = randomUUID();
    const body = { userId, events: [{ event: 'clicked' }] };
    const first = await post('/v1/public/users', body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await post('/v1/public/users', body, key);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await eventCount(userId)).toBe(1);
  });

  it('treats the same body with its keys in another order as the same request', async () => {
    const userId = newUser();
    const key = randomUUID();
    await post('/v1/public/users', { userId, properties: { a: 1, b: 2 } }, key);
    const again = await post('/v1/public/users', { properties: { b: 2, a: 1 }, userId }, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('replays a transition and a group upsert without applying them twice', async () => {
    const userId = newUser();
    const key = randomUUID();
    const transition = { userId, flowSlug: 'welcome', stepId: 'hello', actionType: 'COMPLETED_STEP' };
    const first = await post('/v1/public/flowStates', transition, key);
    await service.call('POST', '/v1/public/flowStates', {
      body: { ...transition, actionType: 'NOT_STARTED_FLOW', stepId: '' },
    });
    expect(first.body.eligibleFlows[0].$state.completed).toBe(true);
    const replay = await post('/v1/public/flowStates', transition, key);
    expect(replay.status).toBe(201);
    // The restart in between stands: the replay did not complete the step again, and answers the state as it is now.
    const read = await service.call('GET', `/v1/public/flowStates?userId=${userId}`);
    expect(read.body.eligibleFlows[0].$state.completed).toBe(false);
    expect(replay.body).toEqual(read.body);

    const groupId = `group-${randomUUID()}`;
    const groupKey = randomUUID();
    for (let i = 0; i < 2; i++) {
      const response = await post('/v1/public/groups', { groupId, events: [{ event: 'renewed' }] }, groupKey);
      expect(response.status).toBe(201);
      expect(response.body).toEqual({});
    }
    const [row] = await service.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM group_events WHERE group_id = $1',
      [groupId],
    );
    expect(row.n).toBe(1);
  });

  it('answers 422 when the same key comes with a different body or path, and changes nothing', async () => {
    const userId = newUser();
    const key = randomUUID();
    await post('/v1/public/users', { userId, events: [{ event: 'a' }] }, key);
    const changed = await post('/v1/public/users', { userId, events: [{ event: 'b' }] }, key);
    expect(changed.status).toBe(422);
    expect(changed.headers.get('content-type')).toContain('application/problem+json');
    expect(changed.body).toMatchObject({ status: 422, field: 'Idempotency-Key' });
    const otherPath = await post('/v1/public/groups', { groupId: 'g', userId }, key);
    expect(otherPath.status).toBe(422);
    expect(await eventCount(userId)).toBe(1);
    expect(await service.db.query('SELECT id FROM groups WHERE id = $1', ['g'])).toEqual([]);
  });

  it('applies concurrent duplicates once', async () => {
    const userId = newUser();
    const key = randomUUID();
    const body = { userId, events: [{ event: 'burst' }] };
    const responses = await Promise.all(Array.from({ length: 8 }, () => post('/v1/public/users', body, key)));
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(7);
    expect(await eventCount(userId)).toBe(1);
  });

  it('keeps keys apart per API key', async () => {
    const userId = newUser();
    const key = randomUUID();
    await post('/v1/public/users', { userId, events: [{ event: 'x' }] }, key);
    const other = await post('/v1/public/users', { userId, events: [{ event: 'x' }] }, key, PRIVATE_KEY);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(await eventCount(userId)).toBe(2);
  });

  it('forgets a key after 24 hours and applies the request again', async () => {
    const userId = newUser();
    const key = randomUUID();
    const body = { userId, events: [{ event: 'daily' }] };
    await post('/v1/public/users', body, key);
    await service.db.query("UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1", [
      key,
    ]);
    const later = await post('/v1/public/users', body, key);
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(await eventCount(userId)).toBe(2);
  });

  it('keeps nothing for a refused request, so the key can be used again', async () => {
    const userId = newUser();
    const key = randomUUID();
    const refused = await post(
      '/v1/public/flowStates',
      { userId, flowSlug: 'missing', stepId: 'x', actionType: 'STARTED_STEP' },
      key,
    );
    expect(refused.status).toBe(404);
    expect(await service.db.query('SELECT key FROM idempotency_keys WHERE key = $1', [key])).toEqual([]);
    const upsert = await post('/v1/public/users', { userId }, key);
    expect(upsert.status).toBe(201);
    expect((upsert.body as UserUpsertResponse).userId).toBe(userId);
  });

  it('answers 400 for a key that is too long or not visible ASCII', async () => {
    for (const key of ['x'.repeat(256), 'has space', 'tab\there', 'caf\u00e9']) {
      const response = await service.call('POST', '/v1/public/users', {
        body: { userId: newUser() },
        headers: { 'Idempotency-Key': key },
      });
      expect(response.status).toBe(400);
      expect(response.body.field).toBe('Idempotency-Key');
    }
  });
});
