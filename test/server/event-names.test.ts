// What a read loads of user.events and group.events: the counts of the names the flows' CEL reads, never every name a user has.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileExpression, eventNamesOf } from '../../server/targeting/cel.js';
import { eventNameSets } from '../../server/targeting/event-names.js';
import { eligibleSlugs, startTestService, targetedCards, type TestService } from '../support/service.js';

let service: TestService;

const EXPRESSIONS: Record<string, string> = {
  'exports-ever': 'has(user.events.exported) && user.events.exported >= 2',
  'imported-once': "user.events['imported'] == 1",
  shared: "'shared' in user.events",
  'group-renewed': 'has(group.events.renewed)',
  'pro-or-busy': "user.properties.plan == 'pro' || user.eventCount('exported', duration('1h')) > 5",
};

beforeAll(async () => {
  service = await startTestService(targetedCards(EXPRESSIONS));
});
afterAll(() => service?.close());

const track = (userId: string, ...events: string[]) =>
  service.call('POST', '/v1/public/users', { body: { userId, events: events.map((event) => ({ event })) } });

/** Gives a user `n` more event names behind the service's back, as a user could have before the limit on names. */
async function manyNames(userId: string, n: number): Promise<void> {
  await service.db.query(
    `INSERT INTO user_event_counts (user_id, event, count) SELECT $1, 'unused-' || i, 1 FROM generate_series(1, $2::int) AS i`,
    [userId, n],
  );
  service.db.cache?.dropUser(userId);
}

/** The counts the read cache keeps for a user after a read: what the read loaded. */
const loadedCounts = (userId: string) => service.db.cache?.user(userId)?.events;

describe('what an expression reads of events', () => {
  const read = (expression: string) => {
    compileExpression(expression, () => {});
    const { user, group } = eventNameSets(eventNamesOf(expression));
    return { user: user.names, group: group.names };
  };

  it.each([
    ["user.properties.plan == 'pro' && user.id != ''", [], []],
    ["user.eventCount('a', duration('1h')) > 0 && group.lastEventAt('b') > now", [], []],
    ['user.events.a > 0 && has(group.events.b)', ['a'], ['b']],
    ["user.events['a:b'] > 0 || 'c' in user.events || user['events'].d > 0", ['a:b', 'c', 'd'], []],
    ['size(user.events) > 0', null, []],
    ['user.events[user.properties.k] > 0', null, []],
    ['[user][0].events.x > 0', null, []],
    ['[user].exists(u, u.events.x > 0)', null, []],
    ["group.events.exists(k, k == 'x')", [], null],
  ])('%s reads user %j and group %j', (expression, user, group) => {
    expect(read(expression)).toEqual({ user, group });
  });
});

describe('a read', () => {
  it("loads the counts of the names the flows read, and none of the user's other names", async () => {
    const userId = `names-${randomUUID()}`;
    expect((await track(userId, 'exported', 'exported', 'imported', 'shared', 'other')).status).toBe(201);
    await manyNames(userId, 25_000);
    expect(await eligibleSlugs(service, userId)).toEqual(['exports-ever', 'imported-once', 'shared']);
    expect(loadedCounts(userId)).toEqual({ exported: 2, imported: 1, shared: 1 });
    const groupId = `team-${randomUUID()}`;
    await service.call('POST', '/v1/public/groups', {
      body: { groupId, events: [{ event: 'renewed' }, { event: 'other' }] },
    });
    expect(await eligibleSlugs(service, userId, groupId)).toContain('group-renewed');
    expect(service.db.cache?.group(groupId)?.events).toEqual({ renewed: 1 });
  });

  it('loads every name when an expression may read any, and the names a new catalog reads without a write', async () => {
    const userId = `names-${randomUUID()}`;
    await track(userId, 'exported', 'later', 'x', 'y');
    expect(await eligibleSlugs(service, userId)).toEqual([]);
    expect(loadedCounts(userId)).toEqual({ exported: 1 });
    // The cached counts were loaded for the names of the old catalog: the new one's are loaded, with no write between.
    await service.writeFlow('later.yaml', targetedCards({ later: 'user.events.later >= 1' })['later.yaml']);
    try {
      expect(await eligibleSlugs(service, userId)).toEqual(['later']);
      expect(loadedCounts(userId)).toEqual({ exported: 1, later: 1 });
      await service.writeFlow('many.yaml', targetedCards({ many: 'size(user.events) >= 4' })['many.yaml']);
      expect(await eligibleSlugs(service, userId)).toEqual(['later', 'many']);
      expect(loadedCounts(userId)).toEqual({ exported: 1, later: 1, x: 1, y: 1 });
    } finally {
      await service.removeFlow('later.yaml');
      await service.removeFlow('many.yaml').catch(() => {});
    }
  });
});
