// The endpoints and aliases that make the service a backend for Frigade's SDKs, over loopback HTTP: content in
// every state answer, sessions, reads by POST, context, optional stepId, and the older clients' spellings.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowState, FlowStatesResponse, SessionResponse, UserRecord } from '../../src/api/wire.js';
import { PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

const TOUR = `
slug: intro-tour
name: Intro tour
type: TOUR
data:
  title: Take the tour
  subtitle: Two stops
  props: { overlay: true, priority: 2 }
  steps:
    - id: first
      title: The menu
      subtitle: Everything starts here
      selector: "#menu"
      primaryButton: { title: Next, action: step.complete }
    - id: second
      title: Your profile
      secondaryButton: { title: Later, action: flow.skip }
      props: { placement: bottom }
`;
const GROUP_CARD = `
slug: gold-card
name: Gold card
type: CARD
targetingLogic: "group.properties.tier == 'gold'"
data:
  title: For gold teams
  steps:
    - id: only
      title: Gold perks
`;
const BOOTSTRAPPED = `
slug: connect
name: Connect
type: CHECKLIST
targetingLogic: "group.id != ''"
data:
  steps:
    - id: linked
      title: Link your account
      completionCriteria: "user.properties.linked == true"
`;

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ 'a-tour.yaml': TOUR, 'b-gold.yaml': GROUP_CARD, 'c-connect.yaml': BOOTSTRAPPED });
});
afterAll(() => service?.close());

const newUser = () => `user-${randomUUID()}`;
const flowOf = (states: FlowStatesResponse, slug: string) => states.eligibleFlows.find((f) => f.flowSlug === slug);
const TABLES = ['users', 'user_events', 'groups', 'group_events', 'group_members', 'flow_states', 'step_states', 'flow_responses', 'idempotency_keys'];
async function storedRows(): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {};
  for (const table of TABLES) rows[table] = await service.db.query(`SELECT * FROM ${table} ORDER BY 1, 2`);
  return rows;
}

function expectTourContent(tour: FlowState | undefined) {
  expect(tour?.data).toMatchObject({ title: 'Take the tour', subtitle: 'Two stops', props: { overlay: true, priority: 2 } });
  expect(tour?.data.steps[0]).toMatchObject({
    id: 'first',
    title: 'The menu',
    subtitle: 'Everything starts here',
    selector: '#menu',
    primaryButton: { title: 'Next', action: 'step.complete' },
    $state: { visible: true, blocked: false },
  });
  expect(tour?.data.steps[1]).toMatchObject({ id: 'second', title: 'Your profile', props: { placement: 'bottom' }, secondaryButton: { title: 'Later' } });
}

describe('content in every state answer', () => {
  it('carries each flow definition in the GET and POST reads, the transition answer, the users upsert and the session', async () => {
    const userId = newUser();
    expectTourContent(flowOf((await service.call('GET', `/v1/public/flowStates?userId=${userId}`)).body, 'intro-tour'));
    expectTourContent(flowOf((await service.call('POST', '/v1/public/flowStates', { body: { userId } })).body, 'intro-tour'));
    const write = await service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug: 'intro-tour', stepId: 'first', actionType: 'STARTED_STEP' } });
    expectTourContent(flowOf(write.body, 'intro-tour'));
    expectTourContent(flowOf((await service.call('POST', '/v1/public/users', { body: { userId } })).body.flowStates, 'intro-tour'));
    expectTourContent(flowOf((await service.call('POST', '/v1/public/sessions', { body: { userId } })).body.flowStates, 'intro-tour'));
  });

  it('leaves the definitions out with content=none, and for the versions a POST read says it holds', async () => {
    const userId = newUser();
    const bare = flowOf((await service.call('GET', `/v1/public/flowStates?userId=${userId}&content=none`)).body, 'intro-tour')!;
    expect(Object.keys(bare.data)).toEqual(['steps']);
    expect(bare.data.steps.map((step) => Object.keys(step).sort())).toEqual([['$state', 'id'], ['$state', 'id']]);
    const write = await service.call('POST', '/v1/public/flowStates?content=none', {
      body: { userId, flowSlug: 'intro-tour', stepId: 'first', actionType: 'COMPLETED_STEP' },
    });
    expect(Object.keys(flowOf(write.body, 'intro-tour')!.data)).toEqual(['steps']);
    const upsert = await service.call('POST', '/v1/public/users?content=none', { body: { userId } });
    expect(Object.keys(flowOf(upsert.body.flowStates, 'intro-tour')!.data)).toEqual(['steps']);

    const version = bare.version;
    const known = await service.call('POST', '/v1/public/flowStates', { body: { userId, knownVersions: { 'intro-tour': version, 'c-connect': 99 } } });
    expect(Object.keys(flowOf(known.body, 'intro-tour')!.data)).toEqual(['steps']);
    const stale = await service.call('POST', '/v1/public/flowStates', { body: { userId, knownVersions: { 'intro-tour': version - 1 } } });
    expectTourContent(flowOf(stale.body, 'intro-tour'));
    expect((await service.call('GET', `/v1/public/flowStates?userId=${userId}&content=some`)).status).toBe(400);
  });
});

describe('POST /v1/public/sessions', () => {
  it('upserts the user and the group with the membership in one request, and answers 201 with state read with the group', async () => {
    const userId = newUser();
    const groupId = `acme-${randomUUID()}`;
    const response = await service.call('POST', '/v1/public/sessions', {
      body: {
        userId,
        groupId,
        userProperties: { plan: 'pro' },
        userEvents: [{ event: 'signed-in', properties: { via: 'sso' } }],
        groupProperties: { tier: 'gold' },
        groupEvents: [{ event: 'renewed' }],
      },
    });
    expect(response.status).toBe(201);
    const body = response.body as SessionResponse;
    expect(body).toMatchObject({ userId, guestLinked: false });
    expect(flowOf(body.flowStates, 'gold-card')?.data.title).toBe('For gold teams');
    const record = (await service.call('GET', `/v1/users?foreignId=${userId}`, { key: PRIVATE_KEY })).body as UserRecord;
    expect(record).toMatchObject({ userId, properties: { plan: 'pro' }, groups: [{ groupId, properties: { tier: 'gold' } }] });
    expect(record.events).toEqual([{ event: 'signed-in', properties: { via: 'sso' }, createdAt: expect.any(String) }]);
    expect(await service.db.query('SELECT event FROM group_events WHERE group_id = $1', [groupId])).toEqual([{ event: 'renewed' }]);
  });

  it('links a guest and bootstraps with the same rules as the users upsert', async () => {
    const guest = `guest_${randomUUID()}`;
    await service.call('POST', '/v1/public/flowStates', { body: { userId: guest, flowSlug: 'intro-tour', stepId: 'first', actionType: 'COMPLETED_STEP' } });
    const userId = newUser();
    const response = await service.call('POST', '/v1/public/sessions', {
      body: { userId, linkGuestId: guest, groupId: 'bootstrap-team', userProperties: { linked: true }, bootstrapFlowStates: true },
    });
    expect(response.body.guestLinked).toBe(true);
    const states = response.body.flowStates as FlowStatesResponse;
    expect(flowOf(states, 'intro-tour')!.data.steps[0]!.$state.completed).toBe(true);
    // The bootstrap ran with the session's group, so the group-targeted checklist was completed and stored.
    expect(flowOf(states, 'connect')!.$state.completed).toBe(true);
    expect(await service.db.query("SELECT completed FROM flow_states WHERE user_id = $1 AND flow_slug = 'connect'", [userId])).toEqual([{ completed: true }]);
    expect(await service.db.query('SELECT id FROM users WHERE id = $1', [guest])).toEqual([]);
  });

  it('refuses bad input with a 4xx problem and leaves every row unchanged', async () => {
    const before = await storedRows();
    const cases: Array<[unknown, number, string]> = [
      [{ groupId: 'g' }, 400, 'userId'],
      [{ userId: 'x', groupProperties: { a: 1 } }, 400, 'groupProperties'],
      [{ userId: 'x', groupEvents: [{ event: 'e' }] }, 400, 'groupEvents'],
      [{ userId: 'x', userProperties: [1] }, 400, 'userProperties'],
      [{ userId: 'x', userEvents: [{ name: 'e' }] }, 400, 'userEvents.0.event'],
      [{ userId: 'x', properties: { a: 1 } }, 400, 'properties'],
      [{ userId: 'x', groupId: '' }, 400, 'groupId'],
    ];
    for (const [body, status, field] of cases) {
      const response = await service.call('POST', '/v1/public/sessions', { body });
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.body.field).toBe(field);
    }
    expect(await storedRows()).toEqual(before);
  });

  it('applies nothing when one half fails: a group past its stored limit leaves the user untouched', async () => {
    const groupId = `full-${randomUUID()}`;
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, i]));
    for (let i = 0; i < 5; i++) {
      const props = Object.fromEntries(Object.entries(many).map(([k, v]) => [`${k}-${i}`, v]));
      await service.call('POST', '/v1/public/groups', { body: { groupId, properties: props } });
    }
    const before = await storedRows();
    const response = await service.call('POST', '/v1/public/sessions', {
      body: { userId: newUser(), userProperties: { plan: 'pro' }, groupId, groupProperties: { extra: 1 } },
    });
    expect(response.status).toBe(409);
    expect(await storedRows()).toEqual(before);
  });
});

describe('POST /v1/public/flowStates without actionType', () => {
  it('reads like the GET, with the group and Frigade context', async () => {
    const userId = newUser();
    const groupId = `gold-${randomUUID()}`;
    await service.call('POST', '/v1/public/groups', { body: { groupId, userId, properties: { tier: 'gold' } } });
    const post = await service.call('POST', '/v1/public/flowStates', {
      body: { userId, groupId, context: { url: 'https://app.example/home', userAgent: 'test', registeredCollectionIds: [] } },
    });
    expect(post.status).toBe(200);
    expect(post.body).toEqual((await service.call('GET', `/v1/public/flowStates?userId=${userId}&groupId=${groupId}`)).body);
    expect(flowOf(post.body, 'gold-card')).toBeDefined();
  });

  it('answers 400 when the body has a write\'s fields but no actionType, or an unknown field', async () => {
    const before = await storedRows();
    const missing = await service.call('POST', '/v1/public/flowStates', { body: { userId: 'x', flowSlug: 'intro-tour', stepId: 'first' } });
    expect(missing.body).toMatchObject({ status: 400, field: 'actionType' });
    const unknown = await service.call('POST', '/v1/public/flowStates', { body: { userId: 'x', page: '/home' } });
    expect(unknown.body).toMatchObject({ status: 400, field: 'page' });
    const knownOnWrite = await service.call('POST', '/v1/public/flowStates', {
      body: { userId: 'x', flowSlug: 'intro-tour', stepId: 'first', actionType: 'STARTED_STEP', knownVersions: {} },
    });
    expect(knownOnWrite.body).toMatchObject({ status: 400, field: 'knownVersions' });
    expect(await storedRows()).toEqual(before);
  });
});

describe('writes as Frigade sends them', () => {
  it('takes context, stores its url with each response, and takes flow actions without stepId', async () => {
    const userId = newUser();
    const context = { url: 'https://app.example/settings?tab=2', userAgent: 'Mozilla/5.0', registeredCollectionIds: ['c1'] };
    const step = await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'intro-tour', stepId: 'first', actionType: 'COMPLETED_STEP', data: {}, createdAt: new Date().toISOString(), context },
    });
    expect(step.status).toBe(201);
    const skip = await service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug: 'intro-tour', actionType: 'SKIPPED_FLOW', data: {}, context } });
    expect(skip.status).toBe(201);
    expect(flowOf(skip.body, 'intro-tour')!.$state.skipped).toBe(true);
    const restart = await service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug: 'intro-tour', actionType: 'NOT_STARTED_FLOW' } });
    expect(flowOf(restart.body, 'intro-tour')!.$state).toMatchObject({ skipped: false, started: false });
    const rows = await service.db.query<{ action_type: string; step_id: string; url: string | null }>(
      'SELECT action_type, step_id, url FROM flow_responses WHERE user_id = $1 ORDER BY id',
      [userId],
    );
    expect(rows).toEqual([
      { action_type: 'COMPLETED_STEP', step_id: 'first', url: context.url },
      { action_type: 'SKIPPED_FLOW', step_id: '', url: context.url },
      { action_type: 'NOT_STARTED_FLOW', step_id: '', url: null },
    ]);
  });

  it('keeps a url only when it is a string, and refuses a step action without a stepId', async () => {
    const userId = newUser();
    await service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug: 'intro-tour', stepId: 'first', actionType: 'STARTED_STEP', context: { url: 42 } } });
    expect(await service.db.query('SELECT url FROM flow_responses WHERE user_id = $1', [userId])).toEqual([{ url: null }]);
    const before = await storedRows();
    const noStep = await service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug: 'intro-tour', actionType: 'COMPLETED_STEP' } });
    expect(noStep.body).toMatchObject({ status: 400, field: 'stepId' });
    const badContext = await service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug: 'intro-tour', actionType: 'STARTED_FLOW', context: 'home' } });
    expect(badContext.body).toMatchObject({ status: 400, field: 'context' });
    expect(await storedRows()).toEqual(before);
  });
});

describe('older clients', () => {
  it('take foreignId as an alias of userId on the users upsert', async () => {
    const userId = newUser();
    const response = await service.call('POST', '/v1/public/users', { body: { foreignId: userId, properties: { plan: 'pro' } } });
    expect(response.status).toBe(201);
    expect(response.body.userId).toBe(userId);
    expect(await service.db.query('SELECT properties FROM users WHERE id = $1', [userId])).toEqual([{ properties: { plan: 'pro' } }]);
    const before = await storedRows();
    const both = await service.call('POST', '/v1/public/users', { body: { userId, foreignId: 'someone-else' } });
    expect(both.body).toMatchObject({ status: 400, field: 'foreignId' });
    const neither = await service.call('POST', '/v1/public/users', { body: { properties: {} } });
    expect(neither.body).toMatchObject({ status: 400, field: 'userId' });
    expect(await storedRows()).toEqual(before);
  });

  it('upsert a group with POST /v1/public/userGroups', async () => {
    const userId = newUser();
    const groupId = `legacy-${randomUUID()}`;
    const response = await service.call('POST', '/v1/public/userGroups', {
      body: { foreignUserId: userId, foreignUserGroupId: groupId, properties: { tier: 'gold' }, events: [{ event: 'joined' }] },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({});
    expect(await service.db.query('SELECT group_id FROM group_members WHERE user_id = $1', [userId])).toEqual([{ group_id: groupId }]);
    const before = await storedRows();
    for (const body of [{ foreignUserId: userId }, { foreignUserGroupId: groupId }, { foreignUserId: userId, foreignUserGroupId: groupId, groupId }]) {
      const bad = await service.call('POST', '/v1/public/userGroups', { body });
      expect(bad.status).toBe(400);
      expect(bad.headers.get('content-type')).toContain('application/problem+json');
    }
    expect(await storedRows()).toEqual(before);
  });

  it('read one flow with GET /v1/public/flows/{slug}, 404 when there is none', async () => {
    const one = await service.call('GET', '/v1/public/flows/intro-tour');
    expect(one.status).toBe(200);
    const listed = (await service.call('GET', '/v1/public/flows')).body.data.find((f: { slug: string }) => f.slug === 'intro-tour');
    expect(one.body).toEqual(listed);
    const missing = await service.call('GET', '/v1/public/flows/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: 404, field: 'slug' });
  });

  it('export a user\'s response log with their answers in GET /v1/users?foreignId=', async () => {
    const userId = newUser();
    const at = '2026-03-01T09:00:00.000Z';
    const body = { userId, flowSlug: 'intro-tour', stepId: 'first', actionType: 'COMPLETED_STEP', data: { value: 9 }, createdAt: at, context: { url: 'https://app.example/' } };
    expect((await service.call('POST', '/v1/public/flowStates', { body })).status).toBe(201);
    const record = (await service.call('GET', `/v1/users?foreignId=${userId}`, { key: PRIVATE_KEY })).body as UserRecord;
    expect(record.flowResponses).toContainEqual({
      flowSlug: 'intro-tour', stepId: 'first', actionType: 'COMPLETED_STEP', data: { value: 9 }, createdAt: at, url: 'https://app.example/', flowVersion: 1,
    });
  });

  it('read a user\'s record with GET /v1/users?foreignId= and a private key only', async () => {
    const userId = newUser();
    await service.call('POST', '/v1/public/users', { body: { userId, properties: { name: 'Ada' }, events: [{ event: 'a' }, { event: 'b', properties: { n: 1 } }] } });
    const record = await service.call('GET', `/v1/users?foreignId=${userId}`, { key: PRIVATE_KEY });
    expect(record.status).toBe(200);
    expect(record.body).toEqual({
      userId,
      properties: { name: 'Ada' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      events: [
        { event: 'a', properties: {}, createdAt: expect.any(String) },
        { event: 'b', properties: { n: 1 }, createdAt: expect.any(String) },
      ],
      groups: [],
      flowResponses: [],
    });
    const publicKey = await service.call('GET', `/v1/users?foreignId=${userId}`);
    expect(publicKey.status).toBe(403);
    expect(publicKey.headers.get('content-type')).toContain('application/problem+json');
    expect((await service.call('GET', '/v1/users?foreignId=nobody-at-all', { key: PRIVATE_KEY })).status).toBe(404);
    expect((await service.call('GET', '/v1/users', { key: PRIVATE_KEY })).body).toMatchObject({ status: 400, field: 'foreignId' });
  });
});
