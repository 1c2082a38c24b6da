// The CEL context over loopback HTTP: user, group, flows and now, each as the issue lists it, read through targeting.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowStatesResponse } from '../../src/api/wire.js';
import { eligibleSlugs, startTestService, targetedCards, type TestService } from '../support/service.js';

let service: TestService;

/** One CARD flow per expression, so eligibility shows whether the expression held. */
const EXPRESSIONS: Record<string, string> = {
  'user-id': "user.id.startsWith('ctx-')",
  'user-guest': 'user.isGuest',
  'user-created': "user.createdAt <= now && user.createdAt > now - duration('1h')",
  'user-properties': "user.properties.plan == 'pro' && user.properties.seats > 2",
  'user-events': 'user.events.clicked == 2 && !has(user.events.never)',
  'user-groups': "'acme' in user.groups && size(user.groups) == 1",
  'group-fields':
    "group.id == 'acme' && group.properties.tier == 'gold' && group.events.renewed == 1 && group.createdAt <= now && !group.isGuest",
  'group-empty': "group.id == '' && size(group.properties) == 0 && size(group.events) == 0 && size(group.groups) == 0",
  'flow-not-started':
    "flows['other'].status == 'NOT_STARTED_FLOW' && flows.other.steps.one.status == 'NOT_STARTED_STEP' && flows.other.steps.one.data == null",
  'flow-started': "flows.other.status == 'STARTED_FLOW' && flows.other.steps.one.status == 'STARTED_STEP'",
  'flow-completed':
    "flows.other.status == 'COMPLETED_FLOW' && flows.other.steps.one.status == 'COMPLETED_STEP' && flows.other.steps.one.data.answer == 'yes'",
  'flow-skipped': "flows.other.status == 'SKIPPED_FLOW' && flows.other.steps.two.status == 'SKIPPED_STEP'",
  'now-timestamp': "now > timestamp('2020-01-01T00:00:00Z')",
  // flows is a map in every way CEL reads one: membership, has(), size and the macros over its keys.
  'flow-map':
    "'other' in flows && !('nothing' in flows) && has(flows.other) && !has(flows.nothing) && size(flows) > 10 && flows.exists(slug, slug == 'other') && flows.all(slug, flows[slug].status != '')",
};

beforeAll(async () => {
  service = await startTestService({
    'other.yaml': 'slug: other\nname: Other\ntype: CHECKLIST\ndata:\n  steps:\n    - id: one\n    - id: two\n',
    ...targetedCards(EXPRESSIONS),
  });
});
afterAll(() => service?.close());

const eligible = async (userId: string, groupId?: string) =>
  (await eligibleSlugs(service, userId, groupId)).filter((slug) => slug !== 'other');

const write = (userId: string, stepId: string, actionType: string, data?: unknown) =>
  service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug: 'other', stepId, actionType, data } });

describe('CEL context', () => {
  it('gives a new user its id, createdAt, empty maps, an empty group, every flow as not started, and now', async () => {
    expect(await eligible(`ctx-${randomUUID()}`)).toEqual([
      'flow-map',
      'flow-not-started',
      'group-empty',
      'now-timestamp',
      'user-created',
      'user-id',
    ]);
  });

  it('marks guest_ IDs as guests', async () => {
    expect(await eligible(`guest_${randomUUID()}`)).toContain('user-guest');
  });

  it('exposes properties, event counts and group IDs of the user, and the fields of the group', async () => {
    const userId = `ctx-${randomUUID()}`;
    await service.call('POST', '/v1/public/users', {
      body: { userId, properties: { plan: 'pro', seats: 3 }, events: [{ event: 'clicked' }, { event: 'clicked' }] },
    });
    await service.call('POST', '/v1/public/groups', {
      body: { groupId: 'acme', userId, properties: { tier: 'gold' }, events: [{ event: 'renewed' }] },
    });
    const withGroup = await eligible(userId, 'acme');
    expect(withGroup).toEqual(
      expect.arrayContaining(['user-properties', 'user-events', 'user-groups', 'group-fields']),
    );
    expect(withGroup).not.toContain('group-empty');
    const withoutGroup = await eligible(userId);
    expect(withoutGroup).toContain('group-empty');
    expect(withoutGroup).not.toContain('group-fields');
  });

  it("exposes each flow's status and each step's status and data", async () => {
    const userId = `ctx-${randomUUID()}`;
    await write(userId, 'one', 'STARTED_STEP');
    expect(await eligible(userId)).toContain('flow-started');
    await write(userId, 'one', 'COMPLETED_STEP', { answer: 'yes' });
    await write(userId, 'two', 'COMPLETED_STEP');
    expect(await eligible(userId)).toContain('flow-completed');
    const skipper = `ctx-${randomUUID()}`;
    await write(skipper, 'two', 'SKIPPED_STEP');
    await write(skipper, '', 'SKIPPED_FLOW');
    expect(await eligible(skipper)).toContain('flow-skipped');
  });
});

describe('the flows map, when only some expressions name it', () => {
  const other = 'slug: other\nname: Other\ntype: CHECKLIST\ndata:\n  steps:\n    - id: one\n';
  // `flows` appears only in a step's completion criteria: the catalog must still build each user's own map.
  const follower =
    'slug: follower\nname: Follower\ntype: CHECKLIST\ndata:\n  steps:\n    - id: wait\n' +
    `      completionCriteria: ${JSON.stringify("flows.other.status == 'COMPLETED_FLOW'")}\n    - id: last\n`;
  let named: TestService;
  let unnamed: TestService;
  beforeAll(async () => {
    [named, unnamed] = await Promise.all([
      startTestService({ 'other.yaml': other, 'follower.yaml': follower }),
      startTestService({
        'other.yaml': other,
        'plain.yaml':
          'slug: plain\nname: Plain\ntype: CARD\ntargetingLogic: "user.properties.plan == \'pro\'"\ndata:\n  steps:\n    - id: s\n',
      }),
    ]);
  });
  afterAll(async () => {
    await named?.close();
    await unnamed?.close();
  });

  it('knows whether any expression of a catalog names flows', () => {
    expect(named.catalog.current().celReadsFlows).toBe(true);
    expect(unnamed.catalog.current().celReadsFlows).toBe(false);
  });

  it('reads a flow status named only in a step condition, after a load and after a transition', async () => {
    const userId = `ctx-${randomUUID()}`;
    const waitCompleted = (answer: { body: FlowStatesResponse }) =>
      answer.body.eligibleFlows.find((flow) => flow.flowSlug === 'follower')!.data.steps[0].$state.completed;
    const call = (actionType: string) =>
      named.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug: 'other', stepId: 'one', actionType } });
    expect(waitCompleted(await call('STARTED_STEP'))).toBe(false);
    // The transition's own answer, then a fresh read.
    expect(waitCompleted(await call('COMPLETED_STEP'))).toBe(true);
    expect(waitCompleted(await named.call('GET', `/v1/public/flowStates?userId=${userId}`))).toBe(true);
  });
});
