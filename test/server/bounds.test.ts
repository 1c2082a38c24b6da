// What one client can make the service hold stays bounded: state answers, idempotency records, stored properties and event names.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowStatesResponse } from '../../src/api/wire.js';
import { checklistYaml, startTestService, type TestService } from '../support/service.js';

const DATA_BYTES = 2048;
let service: TestService;

beforeAll(async () => {
  service = await startTestService(
    { 'setup.yaml': checklistYaml('setup', '', 2) },
    { limits: { dataBytes: DATA_BYTES, storedProperties: 6, storedPropertyBytes: 400, storedEventNames: 5 } },
  );
});
afterAll(() => service?.close());

const newUser = () => `user-${randomUUID()}`;
/** A `data` value whose JSON is exactly `bytes` long. */
const dataOf = (bytes: number) => ({ blob: 'x'.repeat(bytes - '{"blob":""}'.length) });
const transition = (userId: string, stepId: string, actionType: string, data?: unknown, key?: string) =>
  service.call('POST', '/v1/public/flowStates', {
    body: { userId, flowSlug: 'setup', stepId, actionType, ...(data === undefined ? {} : { data }) },
    headers: key ? { 'Idempotency-Key': key } : {},
  });
const count = async (sql: string, params: unknown[]) =>
  Number((await service.db.query<{ n: number }>(sql, params))[0].n);

describe('state answers', () => {
  it('carry the latest response of each step and of the flow, so their size does not grow with what a user does', async () => {
    const userId = newUser();
    const sizes: number[] = [];
    // Bloat: every round completes and resets both steps and restarts the flow, each with the largest data allowed.
    for (let round = 0; round < 12; round++) {
      for (const step of ['one', 'two']) {
        expect((await transition(userId, step, 'COMPLETED_STEP', dataOf(DATA_BYTES))).status).toBe(201);
      }
      const restart = await transition(userId, '', 'NOT_STARTED_FLOW', dataOf(DATA_BYTES));
      expect(restart.status).toBe(201);
      sizes.push(restart.text.length);
    }
    // The whole log is kept: 12 rounds of two completions, the completion of the flow and the restart.
    expect(await count('SELECT count(*)::int AS n FROM flow_responses WHERE user_id = $1', [userId])).toBe(48);
    expect(new Set(sizes.slice(1)).size).toBe(1);
    const read = await service.call('GET', `/v1/public/flowStates?userId=${userId}`);
    const setup = (read.body as FlowStatesResponse).eligibleFlows[0];
    expect(setup.data.steps.map((step) => step.$state.flowResponses.map((r) => r.actionType))).toEqual([
      ['COMPLETED_STEP'],
      ['COMPLETED_STEP'],
    ]);
    expect(setup.$state.flowResponses.map((r) => `${r.actionType}:${r.stepId}`)).toEqual([
      'COMPLETED_STEP:one',
      'COMPLETED_STEP:two',
      'NOT_STARTED_FLOW:',
    ]);
    // Each data at most once per step and once at flow level, plus the flow-level response: about 5 × 2 KB.
    expect(read.text.length).toBeLessThan(5 * (DATA_BYTES + 300));
  });

  it('refuse a transition whose data is larger than the limit, naming the field, and store nothing', async () => {
    const userId = newUser();
    expect((await transition(userId, 'one', 'COMPLETED_STEP', dataOf(DATA_BYTES))).status).toBe(201);
    const refused = await transition(userId, 'two', 'COMPLETED_STEP', dataOf(DATA_BYTES + 1));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ status: 400, field: 'data' });
    expect(refused.body.detail).toContain(`at most ${DATA_BYTES} bytes`);
    expect(await count('SELECT count(*)::int AS n FROM flow_responses WHERE user_id = $1', [userId])).toBe(1);
  });
});

describe('idempotency records', () => {
  it('keep a small record per key, not the answer, so storage grows with the number of writes and not its square', async () => {
    const userId = newUser();
    const keys: string[] = [];
    for (let i = 0; i < 60; i++) {
      const key = randomUUID();
      keys.push(key);
      // Complete a step with the largest data, then reset it, one step after the other: the flow never finishes.
      const step = i % 4 < 2 ? 'one' : 'two';
      const completing = i % 2 === 0;
      expect(
        (
          await transition(
            userId,
            step,
            completing ? 'COMPLETED_STEP' : 'NOT_STARTED_STEP',
            completing ? dataOf(DATA_BYTES) : undefined,
            key,
          )
        ).status,
      ).toBe(201);
    }
    const [row] = await service.db.query<{ n: number; bytes: number; largest: number }>(
      'SELECT count(*)::int AS n, sum(octet_length(body))::int AS bytes, max(octet_length(body))::int AS largest FROM idempotency_keys WHERE user_id = $1',
      [userId],
    );
    expect(row.n).toBe(60);
    // 60 writes of 2 KB each: the records hold a few bytes each, not the 60 state answers.
    expect(row.largest).toBeLessThanOrEqual(64);
    expect(row.bytes).toBeLessThanOrEqual(60 * 64);
    // A replay still works, and answers with the state as it is now.
    const replay = await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'setup', stepId: 'one', actionType: 'COMPLETED_STEP', data: dataOf(DATA_BYTES) },
      headers: { 'Idempotency-Key': keys[0] },
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual((await service.call('GET', `/v1/public/flowStates?userId=${userId}`)).body);
  });

  it('keep a users upsert replay to its userId and guestLinked, with the flow states read again', async () => {
    const userId = newUser();
    const key = randomUUID();
    const first = await service.call('POST', '/v1/public/users', {
      body: { userId, events: [{ event: 'a' }] },
      headers: { 'Idempotency-Key': key },
    });
    const [row] = await service.db.query<{ body: string }>('SELECT body FROM idempotency_keys WHERE key = $1', [key]);
    expect(JSON.parse(row.body)).toEqual({ userId, guestLinked: false });
    const replay = await service.call('POST', '/v1/public/users', {
      body: { userId, events: [{ event: 'a' }] },
      headers: { 'Idempotency-Key': key },
    });
    expect(replay.body).toEqual(first.body);
  });
});

describe('stored properties', () => {
  const props = (prefix: string, n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]));
  const storedKeys = async (table: string, id: string) =>
    count(`SELECT (SELECT count(*) FROM jsonb_object_keys(properties))::int AS n FROM ${table} WHERE id = $1`, [id]);

  it('are limited per user across requests: a request that would pass the limit gets 409 and stores nothing', async () => {
    const userId = newUser();
    expect(
      (await service.call('POST', '/v1/public/users', { body: { userId, properties: props('a', 4) } })).status,
    ).toBe(201);
    const over = await service.call('POST', '/v1/public/users', {
      body: { userId, properties: props('b', 3), events: [{ event: 'e' }] },
    });
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ status: 409, field: 'properties' });
    expect(over.body.detail).toContain('7 property keys, over the limit of 6');
    expect(await storedKeys('users', userId)).toBe(4);
    expect(await count('SELECT count(*)::int AS n FROM user_events WHERE user_id = $1', [userId])).toBe(0);
    // Keys the user already has can still change, and new ones fit up to the limit.
    expect(
      (
        await service.call('POST', '/v1/public/users', {
          body: { userId, properties: { ...props('a', 4), ...props('b', 2) } },
        })
      ).status,
    ).toBe(201);
    expect(await storedKeys('users', userId)).toBe(6);
  });

  it('are limited in bytes per user', async () => {
    const userId = newUser();
    expect(
      (await service.call('POST', '/v1/public/users', { body: { userId, properties: { a: 'x'.repeat(200) } } })).status,
    ).toBe(201);
    const over = await service.call('POST', '/v1/public/users', {
      body: { userId, properties: { b: 'x'.repeat(200) } },
    });
    expect(over.status).toBe(409);
    expect(over.body.detail).toMatch(/bytes of properties, over the limit of 400/);
  });

  it('are limited per group, and when a guest is linked into a user', async () => {
    const groupId = `group-${randomUUID()}`;
    expect(
      (await service.call('POST', '/v1/public/groups', { body: { groupId, properties: props('a', 5) } })).status,
    ).toBe(201);
    expect(
      (await service.call('POST', '/v1/public/groups', { body: { groupId, properties: props('b', 2) } })).status,
    ).toBe(409);
    expect(await storedKeys('groups', groupId)).toBe(5);

    const guest = `guest_${randomUUID()}`;
    const userId = newUser();
    await service.call('POST', '/v1/public/users', { body: { userId: guest, properties: props('g', 4) } });
    await service.call('POST', '/v1/public/users', { body: { userId, properties: props('u', 4) } });
    const link = await service.call('POST', '/v1/public/users', { body: { userId, linkGuestId: guest } });
    expect(link.status).toBe(409);
    // Nothing moved: the guest is still there with its properties.
    expect(await storedKeys('users', guest)).toBe(4);
    expect(await storedKeys('users', userId)).toBe(4);
  });
});

describe('stored event names', () => {
  const events = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ event: `${prefix}${i}` }));
  const names = (table: string, key: string, id: string) =>
    count(`SELECT count(*)::int AS n FROM ${table} WHERE ${key} = $1`, [id]);
  const logged = (table: string, key: string, id: string) =>
    count(`SELECT count(*)::int AS n FROM ${table} WHERE ${key} = $1`, [id]);

  it('are limited per user: a request with a name past the limit gets 409 and stores nothing; known names still go in', async () => {
    const userId = newUser();
    expect((await service.call('POST', '/v1/public/users', { body: { userId, events: events('a', 4) } })).status).toBe(
      201,
    );
    const over = await service.call('POST', '/v1/public/users', {
      body: { userId, properties: { plan: 'pro' }, events: [{ event: 'a0' }, ...events('b', 2)] },
    });
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ status: 409, field: 'events' });
    expect(over.body.detail).toContain(
      `2 new event names for user "${userId}", past the limit of 5 distinct event names`,
    );
    // Nothing of it: no event, no count, no property.
    expect(await names('user_event_counts', 'user_id', userId)).toBe(4);
    expect(await logged('user_events', 'user_id', userId)).toBe(4);
    expect(await storedPlan(userId)).toBeNull();
    // One more name fits; past it, only names the user has are taken, as many times as sent.
    expect((await service.call('POST', '/v1/public/users', { body: { userId, events: events('b', 1) } })).status).toBe(
      201,
    );
    expect((await service.call('POST', '/v1/public/users', { body: { userId, events: events('c', 1) } })).status).toBe(
      409,
    );
    const known = await service.call('POST', '/v1/public/users', {
      body: { userId, properties: { plan: 'pro' }, events: [...events('a', 4), ...events('a', 4), { event: 'b0' }] },
    });
    expect(known.status).toBe(201);
    expect(await names('user_event_counts', 'user_id', userId)).toBe(5);
    expect(await logged('user_events', 'user_id', userId)).toBe(4 + 1 + 9);
    expect(await storedPlan(userId)).toBe('pro');
  });

  it('are limited per group, each write of a batch on its own, and when a guest is linked into a user', async () => {
    const groupId = `group-${randomUUID()}`;
    expect(
      (await service.call('POST', '/v1/public/groups', { body: { groupId, events: events('a', 5) } })).status,
    ).toBe(201);
    const refused = await service.call('POST', '/v1/public/groups', { body: { groupId, events: events('b', 1) } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ status: 409, field: 'events' });
    expect(await names('group_event_counts', 'group_id', groupId)).toBe(5);
    expect(
      (await service.call('POST', '/v1/public/groups', { body: { groupId, events: events('a', 5) } })).status,
    ).toBe(201);
    expect(await logged('group_events', 'group_id', groupId)).toBe(10);

    const userId = newUser();
    const batch = await service.call('POST', '/v1/public/batch', {
      body: {
        writes: [
          { path: 'users', idempotencyKey: randomUUID(), body: { userId, events: events('a', 5) } },
          { path: 'users', idempotencyKey: randomUUID(), body: { userId, events: events('z', 1) } },
          { path: 'users', idempotencyKey: randomUUID(), body: { userId, events: events('a', 1) } },
        ],
      },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results.map((result: { status: number }) => result.status)).toEqual([201, 409, 201]);
    expect(batch.body.results[1].problem).toMatchObject({ status: 409, field: 'events' });
    expect(await logged('user_events', 'user_id', userId)).toBe(6);

    const guest = `guest_${randomUUID()}`;
    const member = newUser();
    await service.call('POST', '/v1/public/users', {
      body: { userId: guest, events: [...events('g', 3), { event: 'u0' }] },
    });
    await service.call('POST', '/v1/public/users', { body: { userId: member, events: events('u', 3) } });
    const link = await service.call('POST', '/v1/public/users', { body: { userId: member, linkGuestId: guest } });
    expect(link.status).toBe(409);
    expect(link.body).toMatchObject({ status: 409, field: 'events' });
    // Six names together; nothing moved: the guest still has its events.
    expect(await names('user_event_counts', 'user_id', guest)).toBe(4);
    expect(await names('user_event_counts', 'user_id', member)).toBe(3);
  });

  const storedPlan = async (userId: string) =>
    (
      await service.db.query<{ plan: string | null }>("SELECT properties->>'plan' AS plan FROM users WHERE id = $1", [
        userId,
      ])
    )[0]?.plan ?? null;
});
