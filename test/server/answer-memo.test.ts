// Kept state answers: a cached user's answer is served again until the clock alone could change it, and every
// instant it could change at (a rule comparing `now`, a cool-off's end, a comeback) is exact, over loopback HTTP.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowStatesResponse } from '../../src/api/wire.js';
import { RawJson } from '../../server/shared/raw-json.js';
import { SnapshotCache, type CachedUser } from '../../server/storage/snapshot-cache.js';
import {
  compileExpression,
  emptyEntity,
  nowChangesOf,
  readsOnlyGroup,
  type CelContext,
} from '../../server/targeting/cel.js';
import { bannerFlowYaml, checklistYaml, startTestService, type TestService } from '../support/service.js';

const HOUR = 3_600_000;
const START = Date.parse('2026-06-01T12:00:00.000Z');

describe('the instants at which a rule that reads `now` changes', () => {
  const context = (now: number, properties: Record<string, unknown> = {}): CelContext => ({
    user: { ...emptyEntity(), id: 'u', properties, createdAt: new Date(START - 10 * HOUR) },
    group: emptyEntity(),
    flows: new Map(),
    now: new Date(now),
  });
  const instantsOf = (source: string, at: number, properties?: Record<string, unknown>) => {
    compileExpression(source, () => {});
    return nowChangesOf(source)?.map((instant) => (instant(context(at, properties)) as Date).toISOString()) ?? null;
  };

  it('solves each side that holds `now` with terms added or taken away', () => {
    const created = new Date(START - 10 * HOUR).toISOString();
    expect(instantsOf("user.createdAt < now - duration('24h')", START)).toEqual([
      new Date(START + 14 * HOUR).toISOString(),
    ]);
    expect(instantsOf("now - user.createdAt > duration('1h')", START)).toEqual([
      new Date(START - 9 * HOUR).toISOString(),
    ]);
    expect(instantsOf("now + duration('2h') >= timestamp('2026-06-02T00:00:00Z')", START)).toEqual([
      '2026-06-01T22:00:00.000Z',
    ]);
    expect(instantsOf("timestamp('2026-06-02T00:00:00Z') - now < duration('1h')", START)).toEqual([
      '2026-06-01T23:00:00.000Z',
    ]);
    expect(instantsOf('user.createdAt > now', START)).toEqual([created]);
    expect(
      instantsOf('timestamp(user.properties.trialEnds) <= now', START, { trialEnds: '2026-07-01T00:00:00Z' }),
    ).toEqual(['2026-07-01T00:00:00.000Z']);
    expect(instantsOf("user.properties.plan == 'pro'", START)).toEqual([]);
  });

  it('gives none for a use of `now` it cannot solve: the answer is then never kept', () => {
    for (const source of [
      'now.getHours() >= 9',
      "now == timestamp('2026-06-01T12:00:00Z')",
      "now - now < duration('1h')",
      "[now][0] > timestamp('2026-06-01T12:00:00Z')",
      "string(now) > '2026'",
      'user.properties.dates.exists(d, timestamp(d) < now)',
    ])
      expect(instantsOf(source, START), source).toBeNull();
  });

  it('a rule keeps its value from the read up to the first instant it gives (property)', () => {
    const forms = [
      "user.createdAt < now - duration('{d}')",
      "now - user.createdAt >= duration('{d}')",
      "now + duration('{d}') > timestamp(user.properties.t)",
      "timestamp(user.properties.t) - now <= duration('{d}')",
      "now > timestamp(user.properties.t) && user.createdAt < now - duration('{d}')",
      "!(now < timestamp(user.properties.t)) || now - duration('{d}') > user.createdAt",
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...forms),
        fc.integer({ min: 1, max: 72 * 60 }),
        fc.integer({ min: -48 * 60, max: 48 * 60 }),
        fc.integer({ min: -96 * HOUR, max: 96 * HOUR }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (form, minutes, tOffsetMinutes, readOffset, within) => {
          const source = form.replaceAll('{d}', `${minutes}m`);
          const properties = { t: new Date(START + tOffsetMinutes * 60_000).toISOString() };
          const predicate = compileExpression(source, () => {});
          const at = START + readOffset;
          const instants = nowChangesOf(source)!.map((instant) => (instant(context(at, properties)) as Date).getTime());
          const until = Math.min(...instants.filter((time) => time >= at), at + 200 * HOUR);
          const later = at + Math.floor((until - at) * within);
          if (later >= until) return;
          expect(predicate(context(later, properties))).toBe(predicate(context(at, properties)));
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('kept answers over HTTP', () => {
  let clock = START;
  let service: TestService;
  // In a catalog of its own: one such rule keeps every answer of its catalog from being kept.
  const ANY_HOUR = `targetingLogic: "now.getHours() >= 0 && user.properties.plan == 'clock'"\n${bannerFlowYaml('any-hour')}`;
  const FLOWS: Record<string, string> = {
    'trial-over.yaml': `targetingLogic: "timestamp(user.properties.trialEnds) < now"\n${bannerFlowYaml('trial-over')}`,
    'gold.yaml': `targetingLogic: "group.properties.tier == 'gold'"\n${bannerFlowYaml('gold')}`,
    'step-one.yaml': bannerFlowYaml('step-one'),
    'step-two.yaml': bannerFlowYaml('step-two'),
    'back.yaml': `reshow: { after: 2h, times: 1 }\n${bannerFlowYaml('back')}`,
    'collections.yaml':
      'collections:\n  - id: steps\n    type: DEFAULT\n    coolOff: 1h\n    flows: [step-one, step-two]\n',
  };

  beforeAll(async () => {
    service = await startTestService(FLOWS, { now: () => new Date(clock) });
  });
  afterAll(() => service?.close());

  const newUser = async (properties: Record<string, unknown> = {}) => {
    const userId = `user-${randomUUID()}`;
    expect((await service.call('POST', '/v1/public/users', { body: { userId, properties } })).status).toBeLessThan(300);
    return userId;
  };
  /** A new group of `tier` with the user in it. */
  const newGroup = async (userId: string, tier: string) => {
    const groupId = `group-${randomUUID()}`;
    await service.call('POST', '/v1/public/groups', { body: { userId, groupId, properties: { tier } } });
    return groupId;
  };
  const read = async (userId: string, groupId?: string) => {
    const answer = await service.call(
      'GET',
      `/v1/public/flowStates?userId=${userId}${groupId ? `&groupId=${groupId}` : ''}&content=none`,
    );
    expect(answer.status).toBe(200);
    return answer as { body: FlowStatesResponse; text: string };
  };
  const visible = (answer: { body: FlowStatesResponse }, slug: string) =>
    answer.body.eligibleFlows.find((flow) => flow.flowSlug === slug)?.$state.visible ?? false;
  const keptFor = (userId: string) => service.db.cache!.userEntry(userId)?.answers?.length ?? 0;
  const act = async (userId: string, flowSlug: string, actionType: string) =>
    expect(
      (await service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug, actionType } })).status,
    ).toBe(201);

  it('serves a repeated read from the kept answer, the same bytes', async () => {
    const userId = await newUser({ trialEnds: '2030-01-01T00:00:00Z' });
    const first = await read(userId);
    expect(keptFor(userId)).toBe(1);
    const second = await read(userId);
    expect(second.text).toBe(first.text);
    expect(keptFor(userId)).toBe(1);
  });

  it('changes exactly when `now` passes a time the rule compares it with', async () => {
    clock = START;
    const userId = await newUser({ trialEnds: new Date(START + HOUR).toISOString() });
    expect(visible(await read(userId), 'trial-over')).toBe(false);
    expect(keptFor(userId)).toBe(1);
    clock = START + HOUR - 1;
    expect(visible(await read(userId), 'trial-over')).toBe(false);
    clock = START + HOUR;
    expect(visible(await read(userId), 'trial-over')).toBe(false);
    clock = START + HOUR + 1;
    expect(visible(await read(userId), 'trial-over')).toBe(true);
    // A clock set back reads as at its time, not as the kept answer.
    clock = START;
    expect(visible(await read(userId), 'trial-over')).toBe(false);
  });

  it("shows a collection's next flow exactly when its cool-off ends", async () => {
    clock = START;
    // Without trialEnds, trial-over's rule fails for this user whatever the time: the answer is kept all the same.
    const userId = await newUser();
    expect(visible(await read(userId), 'step-one')).toBe(true);
    await act(userId, 'step-one', 'COMPLETED_FLOW');
    expect(visible(await read(userId), 'step-two')).toBe(false);
    expect(keptFor(userId)).toBe(1);
    clock = START + HOUR - 1;
    expect(visible(await read(userId), 'step-two')).toBe(false);
    clock = START + HOUR;
    expect(visible(await read(userId), 'step-two')).toBe(true);
  });

  it('brings a dismissed flow back exactly when `after` has passed', async () => {
    clock = START;
    const userId = await newUser();
    await act(userId, 'back', 'SKIPPED_FLOW');
    expect(visible(await read(userId), 'back')).toBe(false);
    clock = START + 2 * HOUR - 1;
    expect(visible(await read(userId), 'back')).toBe(false);
    clock = START + 2 * HOUR;
    expect(visible(await read(userId), 'back')).toBe(true);
  });

  it('keeps no answer while a rule reads `now` in a way whose changes it cannot tell', async () => {
    const extra = await startTestService({ 'any-hour.yaml': ANY_HOUR });
    try {
      const userId = `user-${randomUUID()}`;
      await extra.call('POST', '/v1/public/users', { body: { userId, properties: { plan: 'clock' } } });
      for (let i = 0; i < 2; i++) {
        const answer = await extra.call('GET', `/v1/public/flowStates?userId=${userId}&content=none`);
        expect(answer.body.eligibleFlows.map((flow: { flowSlug: string }) => flow.flowSlug)).toEqual(['any-hour']);
      }
      expect(extra.db.cache!.userEntry(userId)?.answers).toBeUndefined();
    } finally {
      await extra.close();
    }
  });

  it('shares one answer among groups whose rules agree, and tells a group that changed', async () => {
    clock = START;
    const userId = await newUser();
    const group = (tier: string) => newGroup(userId, tier);
    const [goldA, goldB, silver] = [await group('gold'), await group('gold'), await group('silver')];
    expect(visible(await read(userId, goldA), 'gold')).toBe(true);
    const kept = keptFor(userId);
    expect(visible(await read(userId, goldB), 'gold')).toBe(true);
    expect(keptFor(userId)).toBe(kept);
    expect(visible(await read(userId, silver), 'gold')).toBe(false);
    await service.call('POST', '/v1/public/groups', {
      body: { userId, groupId: goldB, properties: { tier: 'silver' } },
    });
    expect(visible(await read(userId, goldB), 'gold')).toBe(false);
    expect(visible(await read(userId, goldA), 'gold')).toBe(true);
  });

  it("shares a read without a group with the answer of a group whose rules say what the empty group's say", async () => {
    clock = START;
    const userId = await newUser();
    const [gold, silver] = [await newGroup(userId, 'gold'), await newGroup(userId, 'silver')];
    // A group not yet cached is loaded with the user's rows, which start a new entry: both are loaded first.
    expect(visible(await read(userId, silver), 'gold')).toBe(false);
    expect(visible(await read(userId, gold), 'gold')).toBe(true);
    expect(keptFor(userId)).toBe(1);
    const alone = await read(userId);
    expect(visible(alone, 'gold')).toBe(false);
    expect(keptFor(userId)).toBe(2);
    // `group.properties.tier == 'gold'` fails for a silver group as for none: one answer, the same bytes.
    expect((await read(userId, silver)).text).toBe(alone.text);
    expect(keptFor(userId)).toBe(2);
    expect(visible(await read(userId, gold), 'gold')).toBe(true);
    expect((await read(userId)).text).toBe(alone.text);
    expect(keptFor(userId)).toBe(2);
  });

  it('drops the kept answer with a write and with a new version of a flow', async () => {
    clock = START;
    const userId = await newUser();
    expect(visible(await read(userId), 'step-one')).toBe(true);
    await act(userId, 'step-one', 'SKIPPED_FLOW');
    expect(visible(await read(userId), 'step-one')).toBe(false);
    const before = await read(userId);
    await service.writeFlow('step-one.yaml', bannerFlowYaml('step-one', 'A new title'));
    const after = await read(userId);
    const version = (answer: { body: FlowStatesResponse }) =>
      answer.body.eligibleFlows.find((flow) => flow.flowSlug === 'step-one')?.version;
    expect(version(after)).toBe(version(before)! + 1);
  });
});

describe('kept answers of rules that read the group and more', () => {
  it("keys a read by the user's own outcomes when a rule reads the user beside the group", async () => {
    const service = await startTestService({
      'same-tier.yaml': `targetingLogic: "group.properties.tier == user.properties.tier"\n${bannerFlowYaml('same-tier')}`,
      'gold.yaml': `targetingLogic: "group.properties.tier == 'gold'"\n${bannerFlowYaml('gold')}`,
    });
    try {
      const groupId = `group-${randomUUID()}`;
      const users: Record<string, string> = {};
      for (const tier of ['silver', 'gold']) {
        users[tier] = `user-${randomUUID()}`;
        await service.call('POST', '/v1/public/users', { body: { userId: users[tier], properties: { tier } } });
        await service.call('POST', '/v1/public/groups', {
          body: { userId: users[tier], groupId, properties: { tier: 'silver' } },
        });
      }
      const shown = async (userId: string, group?: string) => {
        const answer = await service.call(
          'GET',
          `/v1/public/flowStates?userId=${userId}${group ? `&groupId=${group}` : ''}&content=none`,
        );
        expect(answer.status).toBe(200);
        return (answer.body as FlowStatesResponse).eligibleFlows.map((flow) => flow.flowSlug);
      };
      // Worked out on the group alone, the rule fails for this group as for none, and the two reads would share an
      // answer: here the user's tier decides.
      for (let round = 0; round < 2; round++) {
        expect(await shown(users.silver, groupId)).toEqual(['same-tier']);
        expect(await shown(users.silver)).toEqual([]);
        expect(await shown(users.gold, groupId)).toEqual([]);
        expect(await shown(users.gold)).toEqual([]);
      }
    } finally {
      await service.close();
    }
  });

  it('tells the rules that read nothing but the group', () => {
    const groupOnly = (source: string) => {
      compileExpression(source, () => {});
      return readsOnlyGroup(source);
    };
    expect(groupOnly("group.properties.tier == 'gold'")).toBe(true);
    expect(groupOnly("group.eventCount('renewed', duration('720h')) >= 11 || group.id == 'acme'")).toBe(true);
    expect(groupOnly("group.properties.tier == 'gold' && user.properties.plan == 'pro'")).toBe(false);
    expect(groupOnly("group.properties.tier == 'gold' && flows['a'].status == 'COMPLETED_FLOW'")).toBe(false);
    expect(groupOnly("group.lastEventAt('renewed') > now - duration('1h')")).toBe(false);
    // A macro's variable named as one of the context's counts as reading it: only slower, never wrong.
    expect(groupOnly('group.properties.seats.exists(user, user > 10)')).toBe(false);
    expect(groupOnly("user.properties.plan == 'pro'")).toBe(false);
  });
});

describe('the memory kept answers take', () => {
  const rows: CachedUser = {
    exists: true,
    properties: {},
    createdAt: null,
    events: {},
    eventsKey: '',
    groups: [],
    flows: [],
    steps: [],
    responses: [],
  };
  const catalog = {};
  const answer = new RawJson([Buffer.from('{}')]);
  const keep = (cache: SnapshotCache, userId: string, bytes: number, key = 'k') => {
    const entry = cache.store(cache.begin(), userId, rows)!.user;
    cache.keepAnswer(entry, undefined, catalog, key, { from: 0, until: 10, bytes }, answer);
    return entry;
  };

  it('stays within its budget, dropping the answers of the users read least recently', () => {
    const cache = new SnapshotCache(100, false, 1000);
    const first = keep(cache, 'a', 400);
    const second = keep(cache, 'b', 400);
    expect(cache.keptAnswerBytes).toBe(800);
    const third = keep(cache, 'c', 400);
    expect(cache.answer(first, undefined, catalog, 'k', 5)).toBeUndefined();
    expect(cache.answer(second, undefined, catalog, 'k', 5)).toBe(answer);
    expect(cache.answer(third, undefined, catalog, 'k', 5)).toBe(answer);
    expect(cache.keptAnswerBytes).toBe(800);
    // Another answer under the same key replaces the first; a write drops the user's answers with its rows.
    cache.keepAnswer(third, undefined, catalog, 'k', { from: 0, until: 10, bytes: 100 }, answer);
    expect(cache.keptAnswerBytes).toBe(500);
    cache.dropUser('b');
    expect(cache.keptAnswerBytes).toBe(100);
    // An answer larger than the whole budget is not kept.
    keep(cache, 'd', 5000);
    expect(cache.keptAnswerBytes).toBe(100);
  });

  it('keeps at most four answers a user, the one read last among them', () => {
    const cache = new SnapshotCache(100, false, 1_000_000);
    const entry = keep(cache, 'a', 10, 'k0');
    for (const key of ['k1', 'k2', 'k3'])
      cache.keepAnswer(entry, undefined, catalog, key, { from: 0, until: 10, bytes: 10 }, answer);
    expect(cache.answer(entry, undefined, catalog, 'k0', 5)).toBe(answer);
    cache.keepAnswer(entry, undefined, catalog, 'k4', { from: 0, until: 10, bytes: 10 }, answer);
    expect(cache.answer(entry, undefined, catalog, 'k0', 5)).toBe(answer);
    expect(cache.answer(entry, undefined, catalog, 'k1', 5)).toBeUndefined();
    expect(cache.keptAnswerBytes).toBe(40);
  });

  it('keeps none with --cache-answers-mb 0', async () => {
    const service = await startTestService({ 'welcome.yaml': bannerFlowYaml() }, { limits: { cacheAnswersMb: 0 } });
    try {
      const userId = `user-${randomUUID()}`;
      await service.call('POST', '/v1/public/users', { body: { userId } });
      for (let i = 0; i < 2; i++)
        expect((await service.call('GET', `/v1/public/flowStates?userId=${userId}`)).status).toBe(200);
      expect(service.db.cache!.userEntry(userId)).toBeDefined();
      expect(service.db.cache!.userEntry(userId)?.answers).toBeUndefined();
    } finally {
      await service.close();
    }
  });
});

describe('the bytes kept answers share', () => {
  it("makes a plain step state and the list of flows a user is not eligible for once, for every user's answer", async () => {
    const service = await startTestService({
      'setup.yaml': checklistYaml('setup'),
      'pro.yaml': `targetingLogic: "user.properties.plan == 'pro'"\n${bannerFlowYaml('pro')}`,
    });
    try {
      const kept: (readonly Buffer[])[] = [];
      for (let n = 0; n < 2; n++) {
        const userId = `user-${randomUUID()}`;
        await service.call('POST', '/v1/public/users', { body: { userId } });
        const started = { userId, flowSlug: 'setup', stepId: 'one', actionType: 'STARTED_STEP' };
        expect((await service.call('POST', '/v1/public/flowStates', { body: started })).status).toBe(201);
        const answer = await service.call('GET', `/v1/public/flowStates?userId=${userId}`);
        expect(answer.status).toBe(200);
        kept.push(service.db.cache!.userEntry(userId)!.answers![0].json.parts);
      }
      const [first, second] = kept;
      const ineligible = (parts: readonly Buffer[]) =>
        parts.find((part) => part.toString().startsWith('],"ineligibleFlows":["pro"]'));
      expect(ineligible(first)).toBeDefined();
      expect(ineligible(first)).toBe(ineligible(second));
      // Steps two and three: not started, so no time; step one has its start time, which is the user's own.
      const plain = (parts: readonly Buffer[]) =>
        parts.filter((part) => part.toString() === stateOf({ started: false }));
      expect(plain(first)).toHaveLength(2);
      expect(plain(first)[0]).toBe(plain(second)[1]);
      const own = (parts: readonly Buffer[]) =>
        parts.find((part) => part.toString().startsWith('{"completed":false,"skipped":false,"started":true'));
      expect(own(first)!.toString()).toContain('"lastActionAt"');
      expect(own(first)).not.toBe(own(second));
      // An answer's own parts are in memory of its own, exactly their size, not in a slab of Node's buffer pool that
      // other reads' garbage shares and that would live as long as the kept answer.
      for (const parts of kept) {
        const memory = own(parts)!.buffer;
        const inIt = parts.filter((part) => part.buffer === memory);
        expect(inIt.reduce((length, part) => length + part.length, 0)).toBe(memory.byteLength);
      }
      expect(own(first)!.buffer).not.toBe(own(second)!.buffer);
    } finally {
      await service.close();
    }
  });

  const stateOf = ({ started }: { started: boolean }) =>
    `{"completed":false,"skipped":false,"started":${started},"visible":true,"blocked":false,"flowResponses":[]}`;
});
