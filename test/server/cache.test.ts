// The read cache never answers with old rows: reads interleaved with every kind of write agree with a read that goes
// to the database, user by user, with flows targeted out sent hidden or not (on either store; test/postgres/read-cache.test.ts
// has writes through other instances).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsFlowsResponse, FlowStatesResponse, TargetedOutMode } from '../../src/api/wire.js';
import { readFlowStates } from '../../server/state/read.js';
import { loadUserSnapshot } from '../../server/state/snapshot.js';
import { checklistYaml, PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({
    'setup.yaml': checklistYaml('setup'),
    'pro.yaml': checklistYaml('pro', "has(user.properties.plan) && user.properties.plan == 'pro'"),
    'team.yaml': checklistYaml('team', "has(group.properties.tier) && group.properties.tier == 'gold'"),
    'busy.yaml': checklistYaml('busy', "'exported' in user.events"),
  });
});
afterAll(() => service?.close());

/** The state straight from the database: the same read without the cache. */
const uncached = (userId: string, groupId?: string, targetedOut?: TargetedOutMode): Promise<FlowStatesResponse> =>
  readFlowStates({ query: service.db.query.bind(service.db) }, service.catalog, userId, groupId, { targetedOut });
const cached = async (userId: string, groupId?: string, targetedOut?: TargetedOutMode): Promise<FlowStatesResponse> =>
  (
    await service.call(
      'GET',
      `/v1/public/flowStates?userId=${userId}${groupId ? `&groupId=${groupId}` : ''}${targetedOut ? `&targetedOut=${targetedOut}` : ''}`,
    )
  ).body;

describe('the read cache', () => {
  it('holds a user once it has read it', async () => {
    const userId = `user-${randomUUID()}`;
    await service.call('POST', '/v1/public/users', { body: { userId, properties: { plan: 'pro' } } });
    await cached(userId);
    const before = service.db.cache!.size;
    expect(service.db.cache!.user(userId)).toBeDefined();
    await cached(userId);
    expect(service.db.cache!.size).toBe(before);
  });

  it('agrees with the database after reads raced every kind of write', async () => {
    const users = Array.from({ length: 6 }, () => `user-${randomUUID()}`);
    const guests = users.map(() => `guest_${randomUUID()}`);
    const groupId = `team-${randomUUID()}`;
    const steps = ['one', 'two', 'three'];
    const actions = ['STARTED_STEP', 'COMPLETED_STEP', 'SKIPPED_STEP', 'NOT_STARTED_STEP'];
    const operations: Array<() => Promise<unknown>> = [];
    for (let round = 0; round < 12; round++) {
      users.forEach((userId, i) => {
        operations.push(() => cached(userId, round % 2 ? groupId : undefined, round % 3 ? 'hidden' : undefined));
        operations.push(() =>
          service.call('POST', '/v1/public/flowStates', {
            body: {
              userId,
              flowSlug: 'setup',
              stepId: steps[(round + i) % 3],
              actionType: actions[(round * 3 + i) % 4],
            },
          }),
        );
        operations.push(() => cached(userId));
        if (round === 2)
          operations.push(() =>
            service.call('POST', '/v1/public/users', {
              body: { userId, properties: { plan: i % 2 ? 'pro' : 'free' } },
            }),
          );
        if (round === 4)
          operations.push(() =>
            service.call('POST', '/v1/public/users', { body: { userId, events: [{ event: 'exported' }] } }),
          );
        if (round === 6)
          operations.push(() =>
            service.call('POST', '/v1/public/groups', {
              body: { groupId, userId, properties: { tier: i % 2 ? 'gold' : 'silver' } },
            }),
          );
        if (round === 8)
          operations.push(() =>
            service.call('POST', '/v1/public/flowStates', {
              body: { userId: guests[i], flowSlug: 'setup', stepId: 'one', actionType: 'COMPLETED_STEP' },
            }),
          );
        if (round === 9)
          operations.push(() =>
            service.call('POST', '/v1/public/sessions', {
              body: { userId: `new-${users[i]}`, linkGuestId: guests[i] },
            }),
          );
        if (round === 10 && i === 0)
          operations.push(() => service.call('DELETE', `/v1/users?foreignId=${userId}`, { key: PRIVATE_KEY }));
      });
    }
    // All at once, so reads and writes interleave.
    await Promise.all(operations.map((operation) => operation()));
    for (const userId of [...users, ...guests, ...users.map((u) => `new-${u}`)]) {
      for (const group of [undefined, groupId]) {
        for (const mode of ['hidden', 'omit'] as const)
          expect(await cached(userId, group, mode), userId).toEqual(await uncached(userId, group, mode));
      }
    }
  });
});

describe('the analytics facts a read loads', () => {
  it("loads them only while the cache can keep them for the user's next transition, which counts progress either way", async () => {
    for (const cacheUsers of [0, 1000]) {
      const own = await startTestService({ 'setup.yaml': checklistYaml('setup') }, { limits: { cacheUsers } });
      try {
        const userId = `user-${randomUUID()}`;
        const act = async (actionType: string, stepId?: string) =>
          expect(
            (
              await own.call('POST', '/v1/public/flowStates', {
                body: { userId, flowSlug: 'setup', stepId, actionType },
              })
            ).status,
          ).toBe(201);
        await act('STARTED_FLOW');
        const snapshot = await loadUserSnapshot(own.db, userId, undefined, own.catalog.current());
        // On PostgreSQL a transition reads them under the user's lock, so no read loads them there.
        expect(snapshot.progress !== undefined, `cache of ${cacheUsers}`).toBe(
          cacheUsers > 0 && own.db.kind !== 'postgres',
        );
        // The next transition comes after that read, with its facts or without.
        await act('COMPLETED_STEP', 'one');
        await act('COMPLETED_FLOW');
        const report = await own.call('GET', '/v1/analytics/flows', { key: PRIVATE_KEY });
        expect(report.status).toBe(200);
        expect(
          (report.body as AnalyticsFlowsResponse).flows.find((flow) => flow.slug === 'setup'),
          `cache of ${cacheUsers}`,
        ).toMatchObject({ started: 1, completed: 1 });
      } finally {
        await own.close();
      }
    }
  });
});
