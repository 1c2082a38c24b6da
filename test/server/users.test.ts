// Users and groups over loopback HTTP: merge rules, guest linking (allowed and refused), bootstrapFlowStates, and hard delete.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowStatesResponse, UserUpsertResponse } from '../../src/api/wire.js';
import { bannerFlowYaml, PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    'banner.yaml': bannerFlowYaml('welcome'),
    'setup.yaml': `
slug: setup
name: Setup
type: CHECKLIST
targetingLogic: "!user.isGuest"
data:
  steps:
    - id: connect
      completionCriteria: "has(user.properties.connected) && user.properties.connected == true"
    - id: invite
      completionCriteria: "has(user.properties.invited)"
    - id: dashboard
      visibilityCriteria: "has(user.properties.analyst)"
`,
    'profile.yaml': `
slug: profile
name: Profile
type: CARD
data:
  completionCriteria: "has(user.properties.avatar)"
  steps:
    - id: upload
`,
    'gold.yaml': `
slug: gold-only
name: Gold only
type: CARD
targetingLogic: "has(group.properties.tier) && group.properties.tier == 'gold'"
data:
  steps:
    - id: one
      completionCriteria: "true"
`,
  });
});
afterAll(() => service?.close());

const newUser = () => `user-${randomUUID()}`;
const newGuest = () => `guest_${randomUUID()}`;
const upsert = (body: Record<string, unknown>, init: { headers?: Record<string, string> } = {}) =>
  service.call('POST', '/v1/public/users', { body, ...init });
const transition = (userId: string, flowSlug: string, stepId: string, actionType: string) =>
  service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug, stepId, actionType } });
const properties = async (userId: string) =>
  (await service.db.query<{ properties: object }>('SELECT properties FROM users WHERE id = $1', [userId]))[0]
    ?.properties;
const rows = (sql: string, ...params: unknown[]) => service.db.query(sql, params);

describe('users upsert merge rules', () => {
  it('replaces supplied keys, keeps the others, and stores nested values whole', async () => {
    const userId = newUser();
    await upsert({
      userId,
      properties: { plan: 'free', address: { city: 'Oslo', zip: '0150' }, email: 'a@example.com' },
    });
    await upsert({ userId, properties: { plan: 'pro', address: { city: 'Bergen' }, nickname: null } });
    expect(await properties(userId)).toEqual({
      plan: 'pro',
      address: { city: 'Bergen' },
      email: 'a@example.com',
      nickname: null,
    });
    await upsert({ userId });
    expect(await properties(userId)).toEqual({
      plan: 'pro',
      address: { city: 'Bergen' },
      email: 'a@example.com',
      nickname: null,
    });
  });

  it('appends events with their properties and never changes earlier ones', async () => {
    const userId = newUser();
    await upsert({
      userId,
      events: [
        { event: 'viewed', properties: { page: '/a' } },
        { event: 'viewed', properties: { page: '/b' } },
      ],
    });
    await upsert({ userId, events: [{ event: 'viewed', properties: { page: '/a' } }] });
    const events = await rows('SELECT event, properties FROM user_events WHERE user_id = $1 ORDER BY id', userId);
    expect(events).toEqual([
      { event: 'viewed', properties: { page: '/a' } },
      { event: 'viewed', properties: { page: '/b' } },
      { event: 'viewed', properties: { page: '/a' } },
    ]);
  });

  it('answers with userId, guestLinked and the same flow states as the read', async () => {
    const userId = newUser();
    const response = await upsert({ userId, properties: { connected: true } });
    expect(response.status).toBe(201);
    const body = response.body as UserUpsertResponse;
    expect(Object.keys(body).sort()).toEqual(['flowStates', 'guestLinked', 'userId']);
    const read = await service.call('GET', `/v1/public/flowStates?userId=${userId}`);
    expect(body.flowStates).toEqual(read.body);
  });
});

describe('guest linking', () => {
  async function makeGuest() {
    const guestId = newGuest();
    const groupId = `group-${randomUUID()}`;
    await upsert({ userId: guestId, properties: { plan: 'free', color: 'blue' }, events: [{ event: 'browsed' }] });
    await service.call('POST', '/v1/public/groups', { body: { groupId, userId: guestId } });
    await transition(guestId, 'welcome', 'hello', 'COMPLETED_STEP');
    await service.call('POST', '/v1/public/users', {
      body: { userId: guestId },
      headers: { 'Idempotency-Key': `key-${guestId}` },
    });
    return { guestId, groupId };
  }

  it("moves the guest's states, responses, events, memberships and properties to the user and deletes the guest", async () => {
    const { guestId, groupId } = await makeGuest();
    const userId = newUser();
    await upsert({ userId, properties: { color: 'red' }, events: [{ event: 'signed-up' }] });
    const response = await upsert({ userId, linkGuestId: guestId, properties: { plan: 'pro' } });
    expect(response.status).toBe(201);
    const body = response.body as UserUpsertResponse;
    expect(body.guestLinked).toBe(true);
    const welcome = body.flowStates.eligibleFlows.find((f) => f.flowSlug === 'welcome')!;
    expect(welcome.$state.completed).toBe(true);
    expect(welcome.$state.flowResponses.map((r) => r.actionType)).toEqual(['COMPLETED_STEP', 'COMPLETED_FLOW']);
    // The user's own properties win; this request's properties apply on top.
    expect(await properties(userId)).toEqual({ plan: 'pro', color: 'red' });
    expect(
      (await rows('SELECT event FROM user_events WHERE user_id = $1 ORDER BY id', userId)).map((e: any) => e.event),
    ).toEqual(['browsed', 'signed-up']);
    expect(await rows('SELECT group_id FROM group_members WHERE user_id = $1', userId)).toEqual([
      { group_id: groupId },
    ]);
    expect(await rows('SELECT key FROM idempotency_keys WHERE user_id = $1', userId)).toEqual([
      { key: `key-${guestId}` },
    ]);
    expect(await rows('SELECT id FROM users WHERE id = $1', guestId)).toEqual([]);
    for (const table of [
      'user_events',
      'group_members',
      'flow_states',
      'step_states',
      'flow_responses',
      'flow_latest_responses',
      'idempotency_keys',
    ]) {
      expect(await rows(`SELECT user_id FROM ${table} WHERE user_id = $1`, guestId)).toEqual([]);
    }
  });

  it('links into a user created by the same request', async () => {
    const { guestId } = await makeGuest();
    const userId = newUser();
    const body = (await upsert({ userId, linkGuestId: guestId })).body as UserUpsertResponse;
    expect(body.guestLinked).toBe(true);
    expect(await properties(userId)).toEqual({ plan: 'free', color: 'blue' });
  });

  it('refuses when the user already has state in a flow, and still applies the upsert', async () => {
    const { guestId } = await makeGuest();
    const userId = newUser();
    await transition(userId, 'profile', 'upload', 'STARTED_STEP');
    const response = await upsert({ userId, linkGuestId: guestId, properties: { plan: 'team' } });
    expect(response.status).toBe(201);
    expect((response.body as UserUpsertResponse).guestLinked).toBe(false);
    expect(await properties(userId)).toEqual({ plan: 'team' });
    expect(await properties(guestId)).toEqual({ plan: 'free', color: 'blue' });
    expect(await rows('SELECT flow_slug FROM flow_states WHERE user_id = $1', guestId)).toEqual([
      { flow_slug: 'welcome' },
    ]);
  });

  it('refuses an ID that is not a guest, an unknown guest, and the user itself', async () => {
    const other = newUser();
    await upsert({ userId: other, properties: { keep: true } });
    const userId = newUser();
    for (const linkGuestId of [other, newGuest()]) {
      const body = (await upsert({ userId, linkGuestId })).body as UserUpsertResponse;
      expect(body.guestLinked).toBe(false);
    }
    expect(await properties(other)).toEqual({ keep: true });
    const guest = newGuest();
    await upsert({ userId: guest, properties: { a: 1 } });
    expect(((await upsert({ userId: guest, linkGuestId: guest })).body as UserUpsertResponse).guestLinked).toBe(false);
    expect(await properties(guest)).toEqual({ a: 1 });
  });
});

describe('bootstrapFlowStates', () => {
  const setupOf = (body: UserUpsertResponse) => body.flowStates.eligibleFlows.find((f) => f.flowSlug === 'setup')!;

  it('stores the steps whose criteria hold and completes a flow with no visible step left undone', async () => {
    const userId = newUser();
    const body = (await upsert({ userId, properties: { connected: true, invited: 'yes' }, bootstrapFlowStates: true }))
      .body as UserUpsertResponse;
    expect(setupOf(body).$state.completed).toBe(true);
    const stored = await rows(
      'SELECT step_id, completed FROM step_states WHERE user_id = $1 AND flow_slug = $2 ORDER BY step_id',
      userId,
      'setup',
    );
    expect(stored).toEqual([
      { step_id: 'connect', completed: true },
      { step_id: 'invite', completed: true },
    ]);
    expect(
      await rows('SELECT completed FROM flow_states WHERE user_id = $1 AND flow_slug = $2', userId, 'setup'),
    ).toEqual([{ completed: true }]);
    expect(setupOf(body).$state.flowResponses.map((r) => [r.actionType, JSON.parse(r.data)])).toEqual([
      ['COMPLETED_STEP', { reason: 'bootstrap' }],
      ['COMPLETED_STEP', { reason: 'bootstrap' }],
      ['COMPLETED_FLOW', { reason: 'bootstrap' }],
    ]);
    // Stored, so it stays completed when the criteria stop holding.
    const later = (await upsert({ userId, properties: { connected: false } })).body as UserUpsertResponse;
    expect(setupOf(later).data.steps[0].$state.completed).toBe(true);
  });

  it('leaves the flow open while a visible step is undone', async () => {
    const userId = newUser();
    const body = (
      await upsert({ userId, properties: { connected: true, invited: 1, analyst: true }, bootstrapFlowStates: true })
    ).body as UserUpsertResponse;
    expect(setupOf(body).$state).toMatchObject({ completed: false, currentStepId: 'dashboard' });
    expect(await rows('SELECT step_id FROM step_states WHERE user_id = $1 ORDER BY step_id', userId)).toEqual([
      { step_id: 'connect' },
      { step_id: 'invite' },
    ]);
    expect(
      await rows('SELECT completed FROM flow_states WHERE user_id = $1 AND flow_slug = $2', userId, 'setup'),
    ).toEqual([]);
  });

  it('completes a flow whose own criteria hold, and skips flows without criteria or eligibility', async () => {
    const userId = newUser();
    await upsert({ userId, properties: { avatar: 'a.png' }, bootstrapFlowStates: true });
    const flows = await rows(
      'SELECT flow_slug, completed FROM flow_states WHERE user_id = $1 ORDER BY flow_slug',
      userId,
    );
    // welcome has no criteria; gold-only is not eligible without a gold group; setup has nothing that holds.
    expect(flows).toEqual([{ flow_slug: 'profile', completed: true }]);
  });

  it('stores nothing without the flag, and nothing twice when repeated', async () => {
    const userId = newUser();
    const plain = (await upsert({ userId, properties: { connected: true, invited: true } })).body as UserUpsertResponse;
    expect(setupOf(plain).data.steps[0].$state.completed).toBe(true);
    expect(await rows('SELECT step_id FROM step_states WHERE user_id = $1', userId)).toEqual([]);
    await upsert({ userId, bootstrapFlowStates: true });
    await upsert({ userId, bootstrapFlowStates: true });
    const [count] = await rows('SELECT count(*)::int AS n FROM flow_responses WHERE user_id = $1', userId);
    expect(count).toEqual({ n: 3 });
  });
});

describe('groups upsert', () => {
  it('creates and updates a group, appends its events, adds the member, and answers 201 {}', async () => {
    const groupId = `group-${randomUUID()}`;
    const userId = newUser();
    const first = await service.call('POST', '/v1/public/groups', {
      body: { groupId, userId, properties: { name: 'Acme', tier: 'silver' }, events: [{ event: 'created' }] },
    });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({});
    await service.call('POST', '/v1/public/groups', {
      body: { groupId, properties: { tier: 'gold' }, events: [{ event: 'upgraded' }] },
    });
    expect(await rows('SELECT properties FROM groups WHERE id = $1', groupId)).toEqual([
      { properties: { name: 'Acme', tier: 'gold' } },
    ]);
    expect(
      (await rows('SELECT event FROM group_events WHERE group_id = $1 ORDER BY id', groupId)).map((e: any) => e.event),
    ).toEqual(['created', 'upgraded']);
    expect(await rows('SELECT user_id FROM group_members WHERE group_id = $1', groupId)).toEqual([{ user_id: userId }]);
    // The member was unknown, so it was created.
    expect(await rows('SELECT id FROM users WHERE id = $1', userId)).toEqual([{ id: userId }]);
    const read = await service.call('GET', `/v1/public/flowStates?userId=${userId}&groupId=${groupId}`);
    expect((read.body as FlowStatesResponse).eligibleFlows.map((f) => f.flowSlug)).toContain('gold-only');
    const withoutGroup = await service.call('GET', `/v1/public/flowStates?userId=${userId}`);
    expect((withoutGroup.body as FlowStatesResponse).ineligibleFlows).toContain('gold-only');
  });
});

describe('DELETE /v1/users', () => {
  it('hard-deletes the user and everything tied to it, answering 204', async () => {
    const userId = newUser();
    const groupId = `group-${randomUUID()}`;
    await upsert(
      { userId, properties: { a: 1 }, events: [{ event: 'x' }] },
      { headers: { 'Idempotency-Key': `k-${userId}` } },
    );
    await service.call('POST', '/v1/public/groups', { body: { groupId, userId } });
    await transition(userId, 'welcome', 'hello', 'COMPLETED_STEP');
    const keeper = newUser();
    await upsert({ userId: keeper, events: [{ event: 'x' }] });

    const response = await service.call('DELETE', `/v1/users?foreignId=${encodeURIComponent(userId)}`, {
      key: PRIVATE_KEY,
    });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    for (const [table, column] of [
      ['users', 'id'],
      ['user_events', 'user_id'],
      ['group_members', 'user_id'],
      ['flow_states', 'user_id'],
      ['step_states', 'user_id'],
      ['flow_responses', 'user_id'],
      ['idempotency_keys', 'user_id'],
    ] as const) {
      expect(await rows(`SELECT 1 FROM ${table} WHERE ${column} = $1`, userId)).toEqual([]);
    }
    // The group and other users stay.
    expect(await rows('SELECT id FROM groups WHERE id = $1', groupId)).toEqual([{ id: groupId }]);
    expect(await rows('SELECT event FROM user_events WHERE user_id = $1', keeper)).toEqual([{ event: 'x' }]);
    // The idempotency key is gone with the user: reusing it applies the request afresh.
    const again = await upsert(
      { userId, properties: { a: 1 }, events: [{ event: 'x' }] },
      { headers: { 'Idempotency-Key': `k-${userId}` } },
    );
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers 404 for an unknown user', async () => {
    const response = await service.call('DELETE', `/v1/users?foreignId=${newUser()}`, { key: PRIVATE_KEY });
    expect(response.status).toBe(404);
    expect(response.body.field).toBe('foreignId');
  });
});
