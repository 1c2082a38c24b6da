// Schedules, global limits and the explanation over loopback HTTP on both stores: schedules at their edges, each limit
// holding back and releasing at the right moment on an injected clock, ignoreLimits, limits.yaml's checks, and
// GET /v1/users/{userId}/explain naming the failing rule for each cause and agreeing with the state answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ExplainReason,
  ExplainResponse,
  FlowExplanation,
  FlowStatesResponse,
  TargetingReason,
} from '../../src/api/wire.js';
import { checkPaths, formatReport } from '../../server/flows/cli.js';
import { checkLimitsText } from '../../server/flows/limits.js';
import { PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.UTC(2026, 11, 1, 9);
let clock = START;
let service: TestService;

const flowYaml = (slug: string, type: string, extra = '') => `slug: ${slug}
name: ${slug}
type: ${type}
${extra}data:
  steps:
    - id: first
      title: First
    - id: second
      title: Second
`;

const LIMITS = `limits:
  - id: one-interruption-a-day
    types: [ANNOUNCEMENT]
    max: 1
    per: 1d
  - id: breathing-room
    flows: [gap-a, gap-b]
    minGap: 4h
`;

const FLOWS: Record<string, string> = {
  'news-a.yaml': flowYaml('news-a', 'ANNOUNCEMENT'),
  'news-b.yaml': flowYaml('news-b', 'ANNOUNCEMENT'),
  'news-urgent.yaml': flowYaml('news-urgent', 'ANNOUNCEMENT', 'ignoreLimits: true\n'),
  'gap-a.yaml': flowYaml('gap-a', 'BANNER'),
  'gap-b.yaml': flowYaml('gap-b', 'BANNER'),
  'season.yaml': flowYaml(
    'season',
    'CARD',
    'schedule:\n  start: 2026-12-10T00:00:00+01:00\n  end: 2026-12-20T00:00:00Z\n',
  ),
  'draft.yaml': flowYaml('draft', 'CARD', 'status: DRAFT\n'),
  'pro-report.yaml': flowYaml(
    'pro-report',
    'CARD',
    `targetingLogic: "user.properties.plan == 'pro' && user.eventCount('exported', duration('168h')) >= 3"\n`,
  ),
  'gold-tip.yaml': flowYaml('gold-tip', 'CARD', `targetingLogic: "group.properties.tier == 'gold'"\n`),
  'tour-1.yaml': flowYaml('tour-1', 'CHECKLIST'),
  'tour-2.yaml': flowYaml('tour-2', 'CHECKLIST'),
  'collections.yaml':
    'collections:\n  - id: getting-started\n    type: DEFAULT\n    flows: [tour-1, tour-2]\n    coolOff: 2h\n',
  'limits.yaml': LIMITS,
};

const SEASON_START = Date.parse('2026-12-10T00:00:00+01:00');
const SEASON_END = Date.parse('2026-12-20T00:00:00Z');

const states = async (userId: string) => {
  const response = await service.call('GET', `/v1/public/flowStates?userId=${encodeURIComponent(userId)}`);
  expect(response.status).toBe(200);
  return response.body as FlowStatesResponse;
};

/** Each eligible flow's `$state.visible`, by slug; a flow not eligible is absent. */
const visibility = async (userId: string) =>
  Object.fromEntries((await states(userId)).eligibleFlows.map((flow) => [flow.flowSlug, flow.$state.visible]));

const act = async (userId: string, flowSlug: string, actionType = 'STARTED_FLOW', stepId?: string) => {
  const response = await service.call('POST', '/v1/public/flowStates', {
    body: { userId, flowSlug, actionType, ...(stepId ? { stepId } : {}) },
  });
  // 201 when the transition changed something, 200 for a repeat: both are done.
  return response.status === 201 ? 200 : response.status;
};

const explain = async (userId: string, flowSlug?: string) => {
  const query = flowSlug ? `?flowSlug=${encodeURIComponent(flowSlug)}` : '';
  const response = await service.call('GET', `/v1/users/${encodeURIComponent(userId)}/explain${query}`, {
    key: PRIVATE_KEY,
  });
  expect(response.status, response.text).toBe(200);
  return response.body as ExplainResponse;
};

const flowOf = (answer: ExplainResponse, slug: string): FlowExplanation =>
  answer.flows.find((flow) => flow.flowSlug === slug)!;
const reason = <Rule extends ExplainReason['rule']>(flow: FlowExplanation, rule: Rule) =>
  flow.reasons.find((item) => item.rule === rule) as Extract<ExplainReason, { rule: Rule }>;

beforeAll(async () => {
  service = await startTestService(FLOWS, { now: () => new Date(clock), limits: { requestsPerMinute: 100_000 } });
});
afterAll(() => service?.close());

describe('schedules', () => {
  it('makes a flow eligible from its start (inclusive) until its end (exclusive), to the millisecond', async () => {
    const user = 'schedule-edges';
    await service.call('POST', '/v1/public/users', { body: { userId: user } });
    clock = SEASON_START - 1;
    expect((await states(user)).ineligibleFlows).toContain('season');
    expect(await act(user, 'season')).toBe(409);
    // The same user's answer, kept until the clock alone could change it, changes at the start.
    clock = SEASON_START;
    expect((await visibility(user)).season).toBe(true);
    clock = SEASON_END - 1;
    expect((await visibility(user)).season).toBe(true);
    clock = SEASON_END;
    expect(await visibility(user)).not.toHaveProperty('season');
    const answer = await explain(user, 'season');
    expect(answer.flows).toHaveLength(1);
    expect(answer.flows[0]).toMatchObject({ shown: false, heldBy: 'schedule' });
    expect(reason(answer.flows[0], 'schedule')).toMatchObject({
      passed: false,
      start: '2026-12-10T00:00:00+01:00',
      end: '2026-12-20T00:00:00Z',
    });
    expect(reason(answer.flows[0], 'schedule').detail).toMatch(/ended at 2026-12-20T00:00:00Z/);
    clock = START;
  });

  it('refuses a bad date, a date without an offset, and an end not after its start, with file and line', async () => {
    const { reports } = checkPaths([service.flowsDir]);
    expect(reports).toEqual([]);
    await service.writeFlow(
      'season-bad.yaml',
      flowYaml('season-bad', 'CARD', 'schedule:\n  start: 2026-12-10T00:00:00\n  end: 2026-02-30T00:00:00Z\n'),
    );
    await service.writeFlow(
      'season-backwards.yaml',
      flowYaml('season-backwards', 'CARD', 'schedule:\n  start: 2026-12-10T00:00:00Z\n  end: 2026-12-10T00:00:00Z\n'),
    );
    try {
      const lines = checkPaths([service.flowsDir]).reports.flatMap((report) => formatReport(report, 'text'));
      expect(lines).toEqual([
        expect.stringMatching(
          /season-backwards\.yaml:6:\d+ {2}schedule\.end: the end \(2026-12-10T00:00:00Z\) must be after the start/,
        ),
        expect.stringMatching(/season-bad\.yaml:5:\d+ {2}schedule\.start: "2026-12-10T00:00:00" has no offset/),
        expect.stringMatching(
          /season-bad\.yaml:6:\d+ {2}schedule\.end: "2026-02-30T00:00:00Z" is not a real date and time/,
        ),
      ]);
    } finally {
      await service.removeFlow('season-bad.yaml');
      await service.removeFlow('season-backwards.yaml');
    }
  });
});

describe('global limits', () => {
  it("holds back the set's unstarted flows for `per` after `max` first starts, and releases them on the first read after", async () => {
    const user = 'limit-daily';
    clock = START;
    expect(await visibility(user)).toMatchObject({ 'news-a': true, 'news-b': true, 'news-urgent': true });
    const firstStart = START + 1000;
    clock = firstStart;
    expect(await act(user, 'news-a')).toBe(200);
    // The transition's own answer already holds the other announcement back; the one started goes on.
    expect(await visibility(user)).toMatchObject({ 'news-a': true, 'news-b': false, 'news-urgent': true });
    clock = firstStart + DAY - 1;
    expect((await visibility(user))['news-b']).toBe(false);
    const held = reason(flowOf(await explain(user), 'news-b'), 'limit');
    expect(held).toMatchObject({
      passed: false,
      id: 'one-interruption-a-day',
      until: new Date(firstStart + DAY).toISOString(),
    });
    clock = firstStart + DAY;
    expect((await visibility(user))['news-b']).toBe(true);
    // Another first start fills the window again.
    expect(await act(user, 'news-b')).toBe(200);
    expect((await visibility(user))['news-a']).toBe(true);
    clock = START;
  });

  it('keeps a minimum gap between two first starts of its set', async () => {
    const user = 'limit-gap';
    clock = START;
    expect(await act(user, 'gap-a')).toBe(200);
    clock = START + 4 * HOUR - 1;
    expect(await visibility(user)).toMatchObject({ 'gap-a': true, 'gap-b': false });
    expect(flowOf(await explain(user), 'gap-b')).toMatchObject({ shown: false, heldBy: 'limit' });
    clock = START + 4 * HOUR;
    expect((await visibility(user))['gap-b']).toBe(true);
    clock = START;
  });

  it('never holds back a flow with ignoreLimits, and counts its first start', async () => {
    const user = 'limit-ignore';
    clock = START;
    expect(await act(user, 'news-urgent')).toBe(200);
    expect(await visibility(user)).toMatchObject({ 'news-urgent': true, 'news-a': false, 'news-b': false });
    const urgent = reason(flowOf(await explain(user), 'news-urgent'), 'limit');
    expect(urgent).toMatchObject({ passed: true, id: null });
    expect(urgent.detail).toMatch(/ignores the global limits/);
    // Held back by the limit, an ignoring flow still shows to another user who has used up the day.
    const other = 'limit-ignore-2';
    expect(await act(other, 'news-a')).toBe(200);
    expect(await visibility(other)).toMatchObject({ 'news-urgent': true, 'news-b': false });
  });

  it('holds across endpoints: the users upsert and batch answer the same', async () => {
    const user = 'limit-endpoints';
    clock = START;
    expect(await act(user, 'news-a')).toBe(200);
    const upsert = await service.call('POST', '/v1/public/users', { body: { userId: user } });
    const upserted = (upsert.body as { flowStates: FlowStatesResponse }).flowStates;
    expect(upserted.eligibleFlows.find((flow) => flow.flowSlug === 'news-b')?.$state.visible).toBe(false);
  });

  it('refuses a bad limits file alone, with file and line, and keeps the last good one in force', async () => {
    const bad = `limits:
  - id: twice
    types: [ANNOUNCMENT]
    max: 0
    per: 1 day
  - id: twice
    flows: [nope]
  - id: nothing
    types: [BANNER]
`;
    const { problems } = checkLimitsText(bad, new Set(['news-a']));
    expect(problems.map((problem) => `${problem.line} ${problem.path}: ${problem.message}`)).toEqual([
      expect.stringMatching(
        /^3 limits\[0\]\.types\[0\]: unknown flow type "ANNOUNCMENT" \(did you mean "ANNOUNCEMENT"\?\)/,
      ),
      '4 limits[0].max: expected a positive whole number, got 0',
      expect.stringMatching(/^5 limits\[0\]\.per: bad duration "1 day"/),
      expect.stringMatching(/^6 limits\[1\]: a limit needs max and per/),
      '6 limits[1].id: duplicate limit id "twice" (also limits[0])',
      expect.stringMatching(/^7 limits\[1\]\.flows\[0\]: unknown flow slug "nope"/),
      expect.stringMatching(/^8 limits\[2\]: a limit needs max and per/),
    ]);
    await service.writeFlow('limits.yaml', bad);
    try {
      expect(service.catalog.errors().map((error) => error.file)).toEqual(['limits.yaml']);
      // The flows load, and the last good limits stay in force.
      const user = 'limit-bad-file';
      expect(await act(user, 'news-a')).toBe(200);
      expect((await visibility(user))['news-b']).toBe(false);
    } finally {
      await service.writeFlow('limits.yaml', LIMITS);
    }
  });
});

describe('GET /v1/users/{userId}/explain', () => {
  it('names the failing rule for each cause, with the values it read', async () => {
    const user = 'explain-causes';
    clock = START;
    await service.call('POST', '/v1/public/users', {
      body: {
        userId: user,
        properties: { plan: 'pro' },
        events: [{ event: 'exported' }, { event: 'exported' }],
      },
    });
    expect(await act(user, 'tour-1', 'COMPLETED_FLOW')).toBe(200);
    const answer = await explain(user);
    expect(answer).toMatchObject({ userId: user, exists: true, at: new Date(START).toISOString() });
    expect(answer.user.properties).toEqual({ plan: 'pro' });
    expect(answer.user.recentEvents.map((event) => event.event)).toEqual(['exported', 'exported']);
    expect(answer.flows.map((flow) => flow.flowSlug).sort()).toEqual(
      Object.keys(FLOWS)
        .filter((file) => !['collections.yaml', 'limits.yaml'].includes(file))
        .map((file) => file.replace('.yaml', ''))
        .sort(),
    );

    const draft = flowOf(answer, 'draft');
    expect(draft).toMatchObject({ shown: false, heldBy: 'status' });
    expect(reason(draft, 'status')).toMatchObject({ passed: false, status: 'DRAFT' });

    const season = flowOf(answer, 'season');
    expect(season).toMatchObject({ shown: false, heldBy: 'schedule' });
    expect(reason(season, 'schedule').detail).toMatch(/starts at 2026-12-10T00:00:00\+01:00/);

    // The plan holds and the count does not: the explanation says which half failed, and the count.
    const pro = flowOf(answer, 'pro-report');
    expect(pro).toMatchObject({ shown: false, heldBy: 'targeting' });
    const targeting: TargetingReason = reason(pro, 'targeting');
    expect(targeting).toMatchObject({ passed: false, value: false });
    expect(targeting.clauses).toEqual([
      {
        expression: "user.properties.plan == 'pro'",
        value: true,
        operands: [
          { expression: 'user.properties.plan', value: 'pro' },
          { expression: "'pro'", value: 'pro' },
        ],
      },
      {
        expression: "user.eventCount('exported', duration('168h')) >= 3",
        value: false,
        operands: [
          { expression: "user.eventCount('exported', duration('168h'))", value: 2 },
          { expression: '3', value: 3 },
        ],
      },
    ]);
    expect(targeting.detail).toContain("user.eventCount('exported', duration('168h')) is 2");

    const tour1 = flowOf(answer, 'tour-1');
    expect(tour1).toMatchObject({ shown: false, heldBy: 'state' });
    expect(reason(tour1, 'state')).toMatchObject({ passed: false, completed: true, dismissed: false });

    const tour2 = flowOf(answer, 'tour-2');
    expect(tour2).toMatchObject({ shown: false, heldBy: 'collection' });
    expect(reason(tour2, 'collection')).toMatchObject({
      passed: false,
      collection: 'getting-started',
      until: new Date(START + 2 * HOUR).toISOString(),
    });
    // The rules in the order the service applies them; the start rules are the page's.
    expect(tour2.reasons.map((item) => item.rule)).toEqual([
      'status',
      'schedule',
      'targeting',
      'state',
      'collection',
      'limit',
      'experiment',
      'startWhen',
    ]);
    expect(reason(tour2, 'startWhen').passed).toBe(true);
    for (const flow of answer.flows) for (const item of flow.reasons) expect(item.detail).toMatch(/^[A-Z].*\.$/);

    // A third step collection member that waits for the one ahead of it.
    const fresh = await explain('explain-fresh', 'tour-2');
    expect(fresh.exists).toBe(false);
    expect(reason(fresh.flows[0], 'collection')).toMatchObject({ passed: false, ahead: 'tour-1', until: null });
    // Once the pro user has a third export, the targeting passes.
    await service.call('POST', '/v1/public/users', { body: { userId: user, events: [{ event: 'exported' }] } });
    expect(flowOf(await explain(user, 'pro-report'), 'pro-report')).toMatchObject({ shown: true, heldBy: null });
  });

  it('answers for the user a guest became, and for guests', async () => {
    const guest = 'guest_explain-1';
    expect(await act(guest, 'gap-a')).toBe(200);
    expect(flowOf(await explain(guest), 'gap-b').heldBy).toBe('limit');
    await service.call('POST', '/v1/public/users', { body: { userId: 'explain-linked', linkGuestId: guest } });
    const linked = await explain(guest);
    expect(linked.userId).toBe('explain-linked');
    expect(flowOf(linked, 'gap-b').heldBy).toBe('limit');
  });

  it('agrees with the state answer across many users and flows', async () => {
    clock = START + 11 * DAY; // inside the season
    const plans = ['pro', 'free', undefined];
    const slugs = ['news-a', 'news-b', 'news-urgent', 'gap-a', 'gap-b', 'tour-1', 'tour-2', 'season', 'pro-report'];
    const actions = ['STARTED_FLOW', 'COMPLETED_FLOW', 'SKIPPED_FLOW'];
    let random = 7;
    const next = (n: number) => {
      random = (random * 1_103_515_245 + 12_345) % 2 ** 31;
      return random % n;
    };
    let compared = 0;
    for (let index = 0; index < 40; index++) {
      const user = `agree-${index}`;
      const plan = plans[next(3)];
      await service.call('POST', '/v1/public/users', {
        body: {
          userId: user,
          ...(plan ? { properties: { plan } } : {}),
          events: Array.from({ length: next(5) }, () => ({ event: 'exported' })),
        },
      });
      for (let step = next(4); step > 0; step--) await act(user, slugs[next(slugs.length)], actions[next(3)]);
      clock += next(3) * HOUR;
      const answer = await explain(user);
      const visible = await visibility(user);
      for (const flow of answer.flows) {
        expect(flow.shown, `${user} ${flow.flowSlug}`).toBe(visible[flow.flowSlug] === true);
        expect(flow.heldBy === null, `${user} ${flow.flowSlug}`).toBe(flow.shown);
        compared++;
      }
    }
    expect(compared).toBe(40 * 11);
    clock = START;
  }, 60_000);

  it('explains the read with a group when asked', async () => {
    const user = 'explain-group';
    await service.call('POST', '/v1/public/groups', {
      body: { userId: user, groupId: 'gold-co', properties: { tier: 'gold' } },
    });
    expect(flowOf(await explain(user, 'gold-tip'), 'gold-tip')).toMatchObject({ shown: false, heldBy: 'targeting' });
    const response = await service.call('GET', `/v1/users/${user}/explain?flowSlug=gold-tip&groupId=gold-co`, {
      key: PRIVATE_KEY,
    });
    expect(response.status).toBe(200);
    const withGroup = (response.body as ExplainResponse).flows[0];
    expect(withGroup).toMatchObject({ shown: true, heldBy: null });
    expect(reason(withGroup, 'targeting').clauses[0].operands?.[0]).toEqual({
      expression: 'group.properties.tier',
      value: 'gold',
    });
  });

  it('answers problems: a public key, an unknown flow, an unknown query field', async () => {
    const publicKey = await service.call('GET', '/v1/users/someone/explain');
    expect([401, 403]).toContain(publicKey.status);
    expect(publicKey.headers.get('content-type')).toMatch(/problem\+json/);
    const unknown = await service.call('GET', '/v1/users/someone/explain?flowSlug=nope', { key: PRIVATE_KEY });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toMatch(/no flow with slug "nope"/);
    const extra = await service.call('GET', '/v1/users/someone/explain?flow=nope', { key: PRIVATE_KEY });
    expect(extra.status).toBe(400);
    // An id as long as the users upsert takes (256 characters), percent-encoded, and one character more.
    const longest = `${'é'.repeat(100)}${'@'.repeat(156)}`;
    const long = await service.call('GET', `/v1/users/${encodeURIComponent(longest)}/explain?flowSlug=news-a`, {
      key: PRIVATE_KEY,
    });
    expect(long.status, long.text).toBe(200);
    expect(long.body.userId).toBe(longest);
    const tooLong = await service.call('GET', `/v1/users/${'a'.repeat(257)}/explain`, { key: PRIVATE_KEY });
    expect(tooLong.status).toBe(400);
    expect(tooLong.headers.get('content-type')).toMatch(/problem\+json/);
  });
});
