// The endpoints and aliases that make the service a backend for Frigade's SDKs, over loopback HTTP: content in
// every state answer, flows targeted out sent hidden, sessions, reads by POST, context, optional stepId, and the older clients' spellings.
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

/** A banner for users on the pro plan: the flow a Frigade SDK must hold before a property change makes it eligible. */
const PRO_BANNER = `
slug: pro-banner
name: Pro banner
type: BANNER
targetingLogic: "has(user.properties.plan) && user.properties.plan == 'pro'"
data:
  title: Pro is here
  steps:
    - id: offer
      title: Your pro tools
      subtitle: Ready when you are
`;
/** Flows that are not ACTIVE, whose words must never reach a client: the draft's targeting holds for any user with a plan. */
const DRAFT_BANNER = `
slug: draft-banner
name: Draft banner
type: BANNER
status: DRAFT
targetingLogic: "has(user.properties.plan)"
data:
  title: Draft words
  steps:
    - id: only
      title: Unreleased draft text
`;
const ARCHIVED_BANNER = `
slug: old-banner
name: Old banner
type: BANNER
status: ARCHIVED
data:
  title: Archived words
  steps:
    - id: only
      title: Retired archived text
`;
const COLLECTIONS = `
collections:
  - id: upsell
    type: DEFAULT
    flows: [pro-banner, gold-card]
`;

let service: TestService;
beforeAll(async () => {
  service = await startTestService({
    'a-tour.yaml': TOUR,
    'b-gold.yaml': GROUP_CARD,
    'c-connect.yaml': BOOTSTRAPPED,
    'd-pro.yaml': PRO_BANNER,
    'e-draft.yaml': DRAFT_BANNER,
    'f-old.yaml': ARCHIVED_BANNER,
    'collections.yaml': COLLECTIONS,
  });
});
afterAll(() => service?.close());

const newUser = () => `user-${randomUUID()}`;
const flowOf = (states: FlowStatesResponse, slug: string) => states.eligibleFlows.find((f) => f.flowSlug === slug);
const TABLES = [
  'users',
  'user_events',
  'groups',
  'group_events',
  'group_members',
  'flow_states',
  'step_states',
  'flow_responses',
  'idempotency_keys',
];
async function storedRows(): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {};
  for (const table of TABLES) rows[table] = await service.db.query(`SELECT * FROM ${table} ORDER BY 1, 2`);
  return rows;
}

function expectTourContent(tour: FlowState | undefined) {
  expect(tour?.data).toMatchObject({
    title: 'Take the tour',
    subtitle: 'Two stops',
    props: { overlay: true, priority: 2 },
  });
  expect(tour?.data.steps[0]).toMatchObject({
    id: 'first',
    title: 'The menu',
    subtitle: 'Everything starts here',
    selector: '#menu',
    primaryButton: { title: 'Next', action: 'step.complete' },
    $state: { visible: true, blocked: false },
  });
  expect(tour?.data.steps[1]).toMatchObject({
    id: 'second',
    title: 'Your profile',
    props: { placement: 'bottom' },
    secondaryButton: { title: 'Later' },
  });
}

describe('content in every state answer', () => {
  it('carries each flow definition in the GET and POST reads, the transition answer, the users upsert and the session', async () => {
    const userId = newUser();
    expectTourContent(flowOf((await service.call('GET', `/v1/public/flowStates?userId=${userId}`)).body, 'intro-tour'));
    expectTourContent(
      flowOf((await service.call('POST', '/v1/public/flowStates', { body: { userId } })).body, 'intro-tour'),
    );
    const write = await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'intro-tour', stepId: 'first', actionType: 'STARTED_STEP' },
    });
    expectTourContent(flowOf(write.body, 'intro-tour'));
    expectTourContent(
      flowOf((await service.call('POST', '/v1/public/users', { body: { userId } })).body.flowStates, 'intro-tour'),
    );
    expectTourContent(
      flowOf((await service.call('POST', '/v1/public/sessions', { body: { userId } })).body.flowStates, 'intro-tour'),
    );
  });

  it('leaves the definitions out with content=none, and for the versions a POST read says it holds', async () => {
    const userId = newUser();
    const bare = flowOf(
      (await service.call('GET', `/v1/public/flowStates?userId=${userId}&content=none`)).body,
      'intro-tour',
    )!;
    expect(Object.keys(bare.data)).toEqual(['steps']);
    expect(bare.data.steps.map((step) => Object.keys(step).sort())).toEqual([
      ['$state', 'id'],
      ['$state', 'id'],
    ]);
    const write = await service.call('POST', '/v1/public/flowStates?content=none', {
      body: { userId, flowSlug: 'intro-tour', stepId: 'first', actionType: 'COMPLETED_STEP' },
    });
    expect(Object.keys(flowOf(write.body, 'intro-tour')!.data)).toEqual(['steps']);
    const upsert = await service.call('POST', '/v1/public/users?content=none', { body: { userId } });
    expect(Object.keys(flowOf(upsert.body.flowStates, 'intro-tour')!.data)).toEqual(['steps']);

    const version = bare.version;
    const known = await service.call('POST', '/v1/public/flowStates', {
      body: { userId, knownVersions: { 'intro-tour': version, 'c-connect': 99 } },
    });
    expect(Object.keys(flowOf(known.body, 'intro-tour')!.data)).toEqual(['steps']);
    const stale = await service.call('POST', '/v1/public/flowStates', {
      body: { userId, knownVersions: { 'intro-tour': version - 1 } },
    });
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
    const record = (await service.call('GET', `/v1/users?foreignId=${userId}`, { key: PRIVATE_KEY }))
      .body as UserRecord;
    expect(record).toMatchObject({
      userId,
      properties: { plan: 'pro' },
      groups: [{ groupId, properties: { tier: 'gold' } }],
    });
    expect(record.events).toEqual([{ event: 'signed-in', properties: { via: 'sso' }, createdAt: expect.any(String) }]);
    expect(await service.db.query('SELECT event FROM group_events WHERE group_id = $1', [groupId])).toEqual([
      { event: 'renewed' },
    ]);
  });

  it('links a guest and bootstraps with the same rules as the users upsert', async () => {
    const guest = `guest_${randomUUID()}`;
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId: guest, flowSlug: 'intro-tour', stepId: 'first', actionType: 'COMPLETED_STEP' },
    });
    const userId = newUser();
    const response = await service.call('POST', '/v1/public/sessions', {
      body: {
        userId,
        linkGuestId: guest,
        groupId: 'bootstrap-team',
        userProperties: { linked: true },
        bootstrapFlowStates: true,
      },
    });
    expect(response.body.guestLinked).toBe(true);
    const states = response.body.flowStates as FlowStatesResponse;
    expect(flowOf(states, 'intro-tour')!.data.steps[0].$state.completed).toBe(true);
    // The bootstrap ran with the session's group, so the group-targeted checklist was completed and stored.
    expect(flowOf(states, 'connect')!.$state.completed).toBe(true);
    expect(
      await service.db.query("SELECT completed FROM flow_states WHERE user_id = $1 AND flow_slug = 'connect'", [
        userId,
      ]),
    ).toEqual([{ completed: true }]);
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
      body: {
        userId,
        groupId,
        context: { url: 'https://app.example/home', userAgent: 'test', registeredCollectionIds: [] },
      },
    });
    expect(post.status).toBe(200);
    expect(post.body).toEqual(
      (await service.call('GET', `/v1/public/flowStates?userId=${userId}&groupId=${groupId}`)).body,
    );
    expect(flowOf(post.body, 'gold-card')).toBeDefined();
  });

  it("answers 400 when the body has a write's fields but no actionType, or an unknown field", async () => {
    const before = await storedRows();
    const missing = await service.call('POST', '/v1/public/flowStates', {
      body: { userId: 'x', flowSlug: 'intro-tour', stepId: 'first' },
    });
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
    const context = {
      url: 'https://app.example/settings?tab=2',
      userAgent: 'Mozilla/5.0',
      registeredCollectionIds: ['c1'],
    };
    const step = await service.call('POST', '/v1/public/flowStates', {
      body: {
        userId,
        flowSlug: 'intro-tour',
        stepId: 'first',
        actionType: 'COMPLETED_STEP',
        data: {},
        createdAt: new Date().toISOString(),
        context,
      },
    });
    expect(step.status).toBe(201);
    const skip = await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'intro-tour', actionType: 'SKIPPED_FLOW', data: {}, context },
    });
    expect(skip.status).toBe(201);
    expect(flowOf(skip.body, 'intro-tour')!.$state.skipped).toBe(true);
    const restart = await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'intro-tour', actionType: 'NOT_STARTED_FLOW' },
    });
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
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'intro-tour', stepId: 'first', actionType: 'STARTED_STEP', context: { url: 42 } },
    });
    expect(await service.db.query('SELECT url FROM flow_responses WHERE user_id = $1', [userId])).toEqual([
      { url: null },
    ]);
    const before = await storedRows();
    const noStep = await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'intro-tour', actionType: 'COMPLETED_STEP' },
    });
    expect(noStep.body).toMatchObject({ status: 400, field: 'stepId' });
    const badContext = await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'intro-tour', actionType: 'STARTED_FLOW', context: 'home' },
    });
    expect(badContext.body).toMatchObject({ status: 400, field: 'context' });
    expect(await storedRows()).toEqual(before);
  });
});

/** The headers every @frigade/js version sends (0.7 and later in lower case). */
const SDK_HEADERS = { 'X-Frigade-SDK-Version': '0.9.12', 'X-Frigade-SDK-Platform': 'Javascript' };
const slugsOf = (states: FlowStatesResponse) => states.eligibleFlows.map((flow) => flow.flowSlug);
/** The words of the DRAFT and ARCHIVED flows, in their names and content (their slugs are listed in `ineligibleFlows`). */
const NEVER_SENT = /Draft banner|Draft words|Unreleased draft|Old banner|Archived words|Retired archived/;

describe('flows targeted out, for Frigade\u2019s SDKs', () => {
  it('sends each ACTIVE flow targeted out, hidden with its content, to a request with an SDK header', async () => {
    const userId = newUser();
    const variants: Array<Record<string, string>> = [
      SDK_HEADERS,
      { 'x-frigade-sdk-platform': 'Javascript' },
      { 'x-frigade-sdk-version': '0.7.22' },
    ];
    for (const headers of variants) {
      const answer = await service.call('GET', `/v1/public/flowStates?userId=${userId}`, { headers });
      const states = answer.body as FlowStatesResponse;
      // In catalog order; the group-targeted flows' CEL fails without a group, which counts as false.
      expect(slugsOf(states)).toEqual(['intro-tour', 'gold-card', 'connect', 'pro-banner']);
      expect(states.ineligibleFlows).toEqual(['gold-card', 'connect', 'pro-banner', 'draft-banner', 'old-banner']);
      const banner = flowOf(states, 'pro-banner')!;
      expect(banner.$state).toMatchObject({
        visible: false,
        started: false,
        completed: false,
        skipped: false,
        currentStepId: 'offer',
      });
      expect(banner.data).toMatchObject({
        title: 'Pro is here',
        steps: [{ id: 'offer', title: 'Your pro tools', subtitle: 'Ready when you are', $state: { visible: true } }],
      });
      expect(flowOf(states, 'intro-tour')!.$state.visible).toBe(true);
      // The collection's rows are the ones every client reads: a flow targeted out is not the one shown.
      expect(states.collections!.computedOrder.map((row) => [row.flowId, row.visible])).toEqual([
        ['pro-banner', false],
        ['gold-card', false],
      ]);
      expect(answer.text).not.toMatch(NEVER_SENT);
    }
  });

  it('leaves them out without the headers, and the query decides over the headers either way', async () => {
    const userId = newUser();
    const read = async (query: string, headers?: Record<string, string>) =>
      (await service.call('GET', `/v1/public/flowStates?userId=${userId}${query}`, { headers }))
        .body as FlowStatesResponse;
    const omitted = await read('');
    expect(slugsOf(omitted)).toEqual(['intro-tour']);
    const hidden = await read('', SDK_HEADERS);
    expect(omitted.ineligibleFlows).toEqual(hidden.ineligibleFlows);
    expect(omitted.collections).toEqual(hidden.collections);
    expect(await read('&targetedOut=hidden')).toEqual(hidden);
    expect(await read('&targetedOut=omit', SDK_HEADERS)).toEqual(omitted);
    expect(await read('&targetedOut=omit')).toEqual(omitted);
    // The POST read takes it in its query too.
    const post = async (query: string, headers?: Record<string, string>) =>
      (await service.call('POST', `/v1/public/flowStates${query}`, { body: { userId }, headers })).body;
    expect(await post('?targetedOut=hidden')).toEqual(hidden);
    expect(await post('?targetedOut=omit', SDK_HEADERS)).toEqual(omitted);
    expect(await post('', SDK_HEADERS)).toEqual(hidden);
  });

  it('answers a bad targetedOut with a 400 problem naming the field, on every endpoint that answers flow states', async () => {
    const userId = newUser();
    const before = await storedRows();
    const requests: Array<[string, string, unknown]> = [
      ['GET', `/v1/public/flowStates?userId=${userId}`, undefined],
      ['POST', '/v1/public/flowStates', { userId }],
      [
        'POST',
        '/v1/public/flowStates',
        { userId, flowSlug: 'intro-tour', stepId: 'first', actionType: 'STARTED_STEP' },
      ],
      ['POST', '/v1/public/users', { userId }],
      ['POST', '/v1/public/sessions', { userId }],
      ['POST', '/v1/public/batch', { writes: [{ path: 'users', idempotencyKey: randomUUID(), body: { userId } }] }],
    ];
    for (const [method, path, body] of requests) {
      for (const bad of ['show', 'HIDDEN', '', 'hidden&targetedOut=omit']) {
        const response = await service.call(method, `${path}${path.includes('?') ? '&' : '?'}targetedOut=${bad}`, {
          body,
          headers: SDK_HEADERS,
        });
        expect(response.status, `${method} ${path} ${bad}`).toBe(400);
        expect(response.headers.get('content-type')).toContain('application/problem+json');
        expect(response.body).toMatchObject({ status: 400, field: 'targetedOut' });
      }
    }
    expect(await storedRows()).toEqual(before);
  });

  it('never sends a DRAFT or ARCHIVED flow, in any mode, with or without content or known versions, from any endpoint', async () => {
    // The draft's targeting holds for this user: only its status keeps it out.
    const userId = newUser();
    await service.call('POST', '/v1/public/users', { body: { userId, properties: { plan: 'free' } } });
    const knownVersions = { 'draft-banner': 1, 'old-banner': 1, 'pro-banner': 1 };
    for (const headers of [SDK_HEADERS, undefined]) {
      for (const query of [
        '',
        '?targetedOut=hidden',
        '?targetedOut=omit',
        '?content=none',
        '?content=none&targetedOut=hidden',
        '?content=all&targetedOut=hidden',
      ]) {
        const answers = [
          await service.call('GET', `/v1/public/flowStates?userId=${userId}${query.replace('?', '&')}`, { headers }),
          await service.call('POST', `/v1/public/flowStates${query}`, { body: { userId }, headers }),
          await service.call('POST', `/v1/public/flowStates${query}`, { body: { userId, knownVersions }, headers }),
          await service.call('POST', `/v1/public/flowStates${query}`, {
            body: { userId, flowSlug: 'intro-tour', stepId: 'first', actionType: 'STARTED_STEP' },
            headers,
          }),
          await service.call('POST', `/v1/public/users${query}`, {
            body: { userId, properties: { plan: 'free' } },
            headers,
          }),
          await service.call('POST', `/v1/public/sessions${query}`, { body: { userId }, headers }),
          await service.call('POST', `/v1/public/batch${query}`, {
            body: { writes: [{ path: 'users', idempotencyKey: randomUUID(), body: { userId } }], knownVersions },
            headers,
          }),
        ];
        for (const answer of answers) {
          expect(answer.status, `${query} ${answer.text.slice(0, 200)}`).toBeLessThan(300);
          const states = (answer.body.flowStates ?? answer.body) as FlowStatesResponse;
          expect(slugsOf(states)).not.toContain('draft-banner');
          expect(slugsOf(states)).not.toContain('old-banner');
          expect(states.ineligibleFlows).toEqual(expect.arrayContaining(['draft-banner', 'old-banner']));
          expect(answer.text).not.toMatch(NEVER_SENT);
        }
      }
    }
  });

  it('lists DRAFT and ARCHIVED flows to a private key only: a public key reads ACTIVE flows, and a 404 for the others', async () => {
    const listed = async (key?: string) => {
      const answer = await service.call('GET', '/v1/public/flows?limit=1000', key ? { key } : {});
      expect(answer.status).toBe(200);
      return answer;
    };
    const pub = await listed();
    expect(pub.body.data.map((flow: { slug: string }) => flow.slug)).not.toEqual(
      expect.arrayContaining(['draft-banner']),
    );
    expect(pub.body.data.every((flow: { status: string }) => flow.status === 'ACTIVE')).toBe(true);
    expect(pub.body.limit).toBe(pub.body.data.length);
    expect(pub.text).not.toMatch(NEVER_SENT);
    const all = await listed(PRIVATE_KEY);
    expect(all.body.data.map((flow: { slug: string }) => flow.slug)).toEqual(
      expect.arrayContaining(['draft-banner', 'old-banner', 'pro-banner']),
    );
    expect(all.body.data).toHaveLength(pub.body.data.length + 2);
    for (const slug of ['draft-banner', 'old-banner']) {
      const one = await service.call('GET', `/v1/public/flows/${slug}`);
      expect(one.status).toBe(404);
      expect(one.body).toMatchObject({ status: 404, field: 'slug' });
      expect(one.text).not.toMatch(NEVER_SENT);
      expect((await service.call('GET', `/v1/public/flows/${slug}`, { key: PRIVATE_KEY })).body.status).toBe(
        slug === 'draft-banner' ? 'DRAFT' : 'ARCHIVED',
      );
    }
    expect((await service.call('GET', '/v1/public/flows/pro-banner')).status).toBe(200);
  });

  it('honours the mode in the transition answer, the users upsert, sessions and the batch', async () => {
    const userId = newUser();
    const answers = async (headers?: Record<string, string>, query = '') => {
      const transition = await service.call('POST', `/v1/public/flowStates${query}`, {
        body: { userId, flowSlug: 'intro-tour', stepId: 'first', actionType: 'STARTED_STEP' },
        headers,
      });
      const upsert = await service.call('POST', `/v1/public/users${query}`, { body: { userId }, headers });
      const session = await service.call('POST', `/v1/public/sessions${query}`, { body: { userId }, headers });
      const batch = await service.call('POST', `/v1/public/batch${query}`, {
        body: {
          writes: [
            {
              path: 'flowStates',
              idempotencyKey: randomUUID(),
              body: { userId, flowSlug: 'intro-tour', stepId: 'second', actionType: 'STARTED_STEP' },
            },
          ],
        },
        headers,
      });
      expect([transition.status, upsert.status, session.status, batch.status]).toEqual([201, 201, 201, 200]);
      return [
        transition.body,
        upsert.body.flowStates,
        session.body.flowStates,
        batch.body.flowStates,
      ] as FlowStatesResponse[];
    };
    for (const states of [...(await answers(SDK_HEADERS)), ...(await answers(undefined, '?targetedOut=hidden'))]) {
      expect(slugsOf(states)).toEqual(['intro-tour', 'gold-card', 'connect', 'pro-banner']);
      expect(flowOf(states, 'pro-banner')).toMatchObject({
        data: { title: 'Pro is here' },
        $state: { visible: false },
      });
    }
    for (const states of [...(await answers()), ...(await answers(SDK_HEADERS, '?targetedOut=omit'))]) {
      expect(slugsOf(states)).toEqual(['intro-tour']);
      expect(states.ineligibleFlows).toContain('pro-banner');
    }
    // A flow sent hidden is still not the user's to act on.
    const refused = await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'pro-banner', actionType: 'STARTED_FLOW' },
      headers: SDK_HEADERS,
    });
    expect(refused.status).toBe(409);
  });

  it('shows a flow it sent hidden once a property change makes its targeting hold', async () => {
    const userId = newUser();
    const free = (
      await service.call('POST', '/v1/public/users', {
        body: { userId, properties: { plan: 'free' } },
        headers: SDK_HEADERS,
      })
    ).body.flowStates as FlowStatesResponse;
    expect(flowOf(free, 'pro-banner')!.$state.visible).toBe(false);
    const pro = (
      await service.call('POST', '/v1/public/users', {
        body: { userId, properties: { plan: 'pro' } },
        headers: SDK_HEADERS,
      })
    ).body.flowStates as FlowStatesResponse;
    expect(slugsOf(pro)).toEqual(slugsOf(free));
    expect(flowOf(pro, 'pro-banner')).toMatchObject({ data: { title: 'Pro is here' }, $state: { visible: true } });
    expect(pro.ineligibleFlows).not.toContain('pro-banner');
    expect(pro.collections!.computedOrder.find((row) => row.flowId === 'pro-banner')!.visible).toBe(true);
    const read = (await service.call('GET', `/v1/public/flowStates?userId=${userId}`, { headers: SDK_HEADERS }))
      .body as FlowStatesResponse;
    expect(read).toEqual(pro);
    // And back: a property that no longer matches hides it again.
    const back = (
      await service.call('POST', '/v1/public/users', {
        body: { userId, properties: { plan: 'free' } },
        headers: SDK_HEADERS,
      })
    ).body.flowStates as FlowStatesResponse;
    expect(flowOf(back, 'pro-banner')!.$state.visible).toBe(false);
  });
});

describe('older clients', () => {
  it('take foreignId as an alias of userId on the users upsert', async () => {
    const userId = newUser();
    const response = await service.call('POST', '/v1/public/users', {
      body: { foreignId: userId, properties: { plan: 'pro' } },
    });
    expect(response.status).toBe(201);
    expect(response.body.userId).toBe(userId);
    expect(await service.db.query('SELECT properties FROM users WHERE id = $1', [userId])).toEqual([
      { properties: { plan: 'pro' } },
    ]);
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
      body: {
        foreignUserId: userId,
        foreignUserGroupId: groupId,
        properties: { tier: 'gold' },
        events: [{ event: 'joined' }],
      },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({});
    expect(await service.db.query('SELECT group_id FROM group_members WHERE user_id = $1', [userId])).toEqual([
      { group_id: groupId },
    ]);
    const before = await storedRows();
    for (const body of [
      { foreignUserId: userId },
      { foreignUserGroupId: groupId },
      { foreignUserId: userId, foreignUserGroupId: groupId, groupId },
    ]) {
      const bad = await service.call('POST', '/v1/public/userGroups', { body });
      expect(bad.status).toBe(400);
      expect(bad.headers.get('content-type')).toContain('application/problem+json');
    }
    expect(await storedRows()).toEqual(before);
  });

  it('read one flow with GET /v1/public/flows/{slug}, 404 when there is none', async () => {
    const one = await service.call('GET', '/v1/public/flows/intro-tour');
    expect(one.status).toBe(200);
    const listed = (await service.call('GET', '/v1/public/flows')).body.data.find(
      (f: { slug: string }) => f.slug === 'intro-tour',
    );
    expect(one.body).toEqual(listed);
    const missing = await service.call('GET', '/v1/public/flows/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: 404, field: 'slug' });
  });

  it("export a user's response log with their answers in GET /v1/users?foreignId=", async () => {
    const userId = newUser();
    const at = '2026-03-01T09:00:00.000Z';
    const body = {
      userId,
      flowSlug: 'intro-tour',
      stepId: 'first',
      actionType: 'COMPLETED_STEP',
      data: { value: 9 },
      createdAt: at,
      context: { url: 'https://app.example/' },
    };
    expect((await service.call('POST', '/v1/public/flowStates', { body })).status).toBe(201);
    const record = (await service.call('GET', `/v1/users?foreignId=${userId}`, { key: PRIVATE_KEY }))
      .body as UserRecord;
    expect(record.flowResponses).toContainEqual({
      flowSlug: 'intro-tour',
      stepId: 'first',
      actionType: 'COMPLETED_STEP',
      data: { value: 9 },
      createdAt: at,
      url: 'https://app.example/',
      flowVersion: 1,
      locale: '',
    });
  });

  it("read a user's record with GET /v1/users?foreignId= and a private key only", async () => {
    const userId = newUser();
    await service.call('POST', '/v1/public/users', {
      body: { userId, properties: { name: 'Ada' }, events: [{ event: 'a' }, { event: 'b', properties: { n: 1 } }] },
    });
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
      experiments: [],
    });
    const publicKey = await service.call('GET', `/v1/users?foreignId=${userId}`);
    expect(publicKey.status).toBe(403);
    expect(publicKey.headers.get('content-type')).toContain('application/problem+json');
    expect((await service.call('GET', '/v1/users?foreignId=nobody-at-all', { key: PRIVATE_KEY })).status).toBe(404);
    expect((await service.call('GET', '/v1/users', { key: PRIVATE_KEY })).body).toMatchObject({
      status: 400,
      field: 'foreignId',
    });
  });
});
