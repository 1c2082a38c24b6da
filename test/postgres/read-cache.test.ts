// The read cache on PostgreSQL: an instance answers a user it has read before after one primary-key lookup of the
// user's state version, and never with rows that a write through another instance has changed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowStatesResponse } from '../../src/api/wire.js';
import { readFlowStates } from '../../server/state/read.js';
import { checklistYaml, PRIVATE_KEY, startTestInstances, type TestService } from '../support/service.js';

const FLOWS = {
  'setup.yaml': checklistYaml('setup'),
  'pro.yaml': checklistYaml('pro', "has(user.properties.plan) && user.properties.plan == 'pro'"),
  'team.yaml': checklistYaml('team', "has(group.properties.tier) && group.properties.tier == 'gold'"),
  'renewed.yaml': checklistYaml('renewed', "'renewed' in group.events"),
  'member.yaml': checklistYaml('member', "'acme' in user.groups"),
  'busy.yaml': checklistYaml('busy', "'exported' in user.events"),
};
let deployment: Awaited<ReturnType<typeof startTestInstances>>;
/** `reader` holds users in its cache; `writer` changes them behind its back. */
let reader: TestService;
let writer: TestService;

beforeAll(async () => {
  deployment = await startTestInstances(2, FLOWS, { limits: { userWritesPerMinute: 100_000, maxWaitMs: 600_000 } });
  [reader, writer] = deployment.instances as [TestService, TestService];
});
afterAll(() => deployment?.close());

const read = async (instance: TestService, userId: string, groupId?: string): Promise<FlowStatesResponse> => {
  const answer = await instance.call(
    'GET',
    `/v1/public/flowStates?userId=${userId}${groupId ? `&groupId=${groupId}` : ''}`,
  );
  expect(answer.status).toBe(200);
  return answer.body;
};
/** The state straight from the database, with no cache. */
const stored = (userId: string, groupId?: string): Promise<FlowStatesResponse> =>
  readFlowStates({ query: reader.db.query.bind(reader.db) }, reader.catalog, userId, groupId);
const eligible = (state: FlowStatesResponse) => state.eligibleFlows.map((flow) => flow.flowSlug).sort();
const post = async (path: string, body: unknown) => {
  const answer = await writer.call('POST', path, { body });
  expect(answer.status, answer.text).toBeLessThan(300);
};

describe('the read cache on PostgreSQL', () => {
  it('answers a user it holds after one primary-key lookup, with or without a group', async () => {
    const userId = `user-${randomUUID()}`;
    const groupId = `group-${randomUUID()}`;
    await post('/v1/public/groups', { groupId, userId, properties: { tier: 'gold' } });
    for (const group of [undefined, groupId]) {
      const first = await read(reader, userId, group);
      expect(await read(reader, userId, group)).toEqual(first);
      // The read itself, without the HTTP request's rate-limit counter.
      const jobs = reader.db.jobs;
      expect(await readFlowStates(reader.db, reader.catalog, userId, group)).toEqual(first);
      expect(reader.db.jobs - jobs).toBe(1);
    }
    expect(reader.db.cache!.user(userId)?.version).toMatch(/^\d+$/);
  });

  it('sees every kind of write made through another instance', async () => {
    const userId = `user-${randomUUID()}`;
    const groupId = `group-${randomUUID()}`;
    const check = async (what: string, expected: (state: FlowStatesResponse) => void, group?: string) => {
      const state = await read(reader, userId, group);
      expect(state, what).toEqual(await stored(userId, group));
      expected(state);
      // Read once more, now from the cache.
      expect(await read(reader, userId, group), what).toEqual(state);
    };
    await post('/v1/public/users', { userId, properties: { plan: 'free' } });
    await check('created', (state) => expect(eligible(state)).toEqual(['setup']));
    await check('created, with a group', (state) => expect(eligible(state)).toEqual(['setup']), groupId);

    await post('/v1/public/users', { userId, properties: { plan: 'pro' } });
    await check('property', (state) => expect(eligible(state)).toEqual(['pro', 'setup']));
    await post('/v1/public/users', { userId, events: [{ event: 'exported' }] });
    await check('event', (state) => expect(eligible(state)).toContain('busy'));
    await post('/v1/public/flowStates', { userId, flowSlug: 'setup', stepId: 'one', actionType: 'COMPLETED_STEP' });
    await check('transition', (state) =>
      expect(state.eligibleFlows.find((f) => f.flowSlug === 'setup')!.data.steps[0].$state.completed).toBe(true),
    );
    await post('/v1/public/flowStates', { userId, flowSlug: 'setup', actionType: 'NOT_STARTED_FLOW' });
    await check('restart', (state) =>
      expect(state.eligibleFlows.find((f) => f.flowSlug === 'setup')!.$state.started).toBe(false),
    );

    // The group's own writes move the group's version, not the user's.
    await post('/v1/public/groups', { groupId, properties: { tier: 'gold' } });
    await check('group property', (state) => expect(eligible(state)).toContain('team'), groupId);
    await post('/v1/public/groups', { groupId, events: [{ event: 'renewed' }] });
    await check('group event', (state) => expect(eligible(state)).toContain('renewed'), groupId);
    await post('/v1/public/groups', { groupId: 'acme', userId });
    await check('membership', (state) => expect(eligible(state)).toContain('member'));

    const answer = await writer.call('DELETE', `/v1/users?foreignId=${userId}`, { key: PRIVATE_KEY });
    expect(answer.status).toBeLessThan(300);
    await check('deleted', (state) => expect(eligible(state)).toEqual(['setup']));
    // Made again with other rows: its new version is one the old rows never had.
    await post('/v1/public/users', { userId, properties: { plan: 'pro' } });
    await post('/v1/public/flowStates', { userId, flowSlug: 'pro', stepId: 'two', actionType: 'STARTED_STEP' });
    await check('made again', (state) =>
      expect(state.eligibleFlows.find((f) => f.flowSlug === 'pro')!.$state.currentStepId).toBe('two'),
    );
  });

  it('reads a guest linked through another instance as the user it became', async () => {
    const guest = `guest_${randomUUID()}`;
    const userId = `user-${randomUUID()}`;
    await post('/v1/public/flowStates', {
      userId: guest,
      flowSlug: 'setup',
      stepId: 'one',
      actionType: 'COMPLETED_STEP',
    });
    const before = await read(reader, guest);
    expect(await read(reader, guest)).toEqual(before);
    await post('/v1/public/users', { userId, linkGuestId: guest, properties: { plan: 'pro' } });
    const after = await read(reader, guest);
    expect(eligible(after)).toEqual(['pro', 'setup']);
    expect(after).toEqual(await read(reader, userId));
  });

  it('agrees with the database after reads on one instance raced writes on the other', async () => {
    const users = Array.from({ length: 5 }, () => `user-${randomUUID()}`);
    const groupId = `team-${randomUUID()}`;
    const steps = ['one', 'two', 'three'];
    const actions = ['STARTED_STEP', 'COMPLETED_STEP', 'SKIPPED_STEP', 'NOT_STARTED_STEP'];
    const operations: Array<() => Promise<unknown>> = [];
    for (let round = 0; round < 10; round++) {
      users.forEach((userId, i) => {
        operations.push(() => read(reader, userId, round % 2 ? groupId : undefined));
        operations.push(() =>
          writer.call('POST', '/v1/public/flowStates', {
            body: {
              userId,
              flowSlug: 'setup',
              stepId: steps[(round + i) % 3],
              actionType: actions[(round * 3 + i) % 4],
            },
          }),
        );
        operations.push(() => read(reader, userId));
        if (round === 3)
          operations.push(() =>
            writer.call('POST', '/v1/public/users', { body: { userId, properties: { plan: i % 2 ? 'pro' : 'free' } } }),
          );
        if (round === 5)
          operations.push(() =>
            writer.call('POST', '/v1/public/groups', {
              body: { groupId, userId, properties: { tier: i % 2 ? 'gold' : 'silver' } },
            }),
          );
        if (round === 7 && i === 0)
          operations.push(() => writer.call('DELETE', `/v1/users?foreignId=${userId}`, { key: PRIVATE_KEY }));
      });
    }
    await Promise.all(operations.map((operation) => operation()));
    for (const userId of users) {
      for (const group of [undefined, groupId])
        expect(await read(reader, userId, group), userId).toEqual(await stored(userId, group));
    }
  });
});
