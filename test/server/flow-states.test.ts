// POST /v1/public/flowStates over loopback HTTP: every transition type, pointer moves, no-ops answered with the true state, and the 404/409 rules.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionType, FlowState, FlowStatesResponse } from '../../src/api/wire.js';
import { startTestService, type TestService } from '../support/service.js';

let service: TestService;

const CHECKLIST = `
slug: tasks
name: Tasks
type: CHECKLIST
data:
  steps:
    - id: a
      title: First
    - id: b
      title: Second
      visibilityCriteria: "!has(user.properties.hideB)"
    - id: c
      title: Third
      startCriteria: "has(user.properties.unlockC)"
`;

beforeAll(async () => {
  service = await startTestService({
    'tasks.yaml': CHECKLIST,
    'pro.yaml': `
slug: pro-tour
name: Pro tour
type: TOUR
targetingLogic: "has(user.properties.plan) && user.properties.plan == 'pro'"
data:
  steps:
    - id: one
      selector: "#one"
`,
    'draft.yaml': `
slug: draft-card
name: Draft card
type: CARD
status: DRAFT
data:
  steps:
    - id: one
`,
    'team.yaml': `
slug: team-card
name: Team card
type: CARD
targetingLogic: "has(group.properties.tier) && group.properties.tier == 'gold'"
data:
  steps:
    - id: one
`,
  });
});
afterAll(() => service?.close());

const newUser = () => `user-${randomUUID()}`;

async function write(
  userId: string,
  flowSlug: string,
  stepId: string,
  actionType: ActionType,
  extra: Record<string, unknown> = {},
) {
  return service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug, stepId, actionType, ...extra } });
}

function flow(body: FlowStatesResponse, slug: string): FlowState {
  const found = body.eligibleFlows.find((f) => f.flowSlug === slug);
  if (!found) throw new Error(`flow ${slug} is not eligible`);
  return found;
}

async function storedCounts(userId: string) {
  const [row] = await service.db.query<{ flows: number; steps: number; responses: number }>(
    `SELECT (SELECT count(*)::int FROM flow_states WHERE user_id = $1) AS flows,
            (SELECT count(*)::int FROM step_states WHERE user_id = $1) AS steps,
            (SELECT count(*)::int FROM flow_responses WHERE user_id = $1) AS responses`,
    [userId],
  );
  return row;
}

describe('flow transitions', () => {
  it('starts a flow, answers 201 with the full flow-state read, and records the response', async () => {
    const userId = newUser();
    const response = await write(userId, 'tasks', '', 'STARTED_FLOW');
    expect(response.status).toBe(201);
    const body = response.body as FlowStatesResponse;
    expect(body.ineligibleFlows.sort()).toEqual(['draft-card', 'pro-tour', 'team-card']);
    const tasks = flow(body, 'tasks');
    expect(tasks.$state).toMatchObject({
      started: true,
      completed: false,
      skipped: false,
      visible: true,
      currentStepId: 'a',
      currentStepIndex: 0,
    });
    expect(tasks.$state.flowResponses).toEqual([
      { flowSlug: 'tasks', actionType: 'STARTED_FLOW', stepId: '', data: '{}', createdAt: expect.any(String) },
    ]);
    expect(tasks.$state.lastActionAt).toBe(tasks.$state.flowResponses[0].createdAt);
  });

  it("creates an unknown user on the first transition, keeping a guest's progress", async () => {
    const guest = `guest_${randomUUID()}`;
    expect(await service.db.query('SELECT id FROM users WHERE id = $1', [guest])).toEqual([]);
    expect((await write(guest, 'tasks', 'a', 'STARTED_STEP')).status).toBe(201);
    expect(await service.db.query('SELECT id FROM users WHERE id = $1', [guest])).toEqual([{ id: guest }]);
    const read = await service.call('GET', `/v1/public/flowStates?userId=${guest}`);
    expect(flow(read.body, 'tasks').data.steps[0].$state.started).toBe(true);
  });

  it('starts a step and points the flow at it', async () => {
    const userId = newUser();
    const body = (await write(userId, 'tasks', 'b', 'STARTED_STEP')).body as FlowStatesResponse;
    const tasks = flow(body, 'tasks');
    expect(tasks.$state).toMatchObject({ started: true, currentStepId: 'b', currentStepIndex: 1 });
    expect(tasks.data.steps[1].$state).toMatchObject({ started: true, completed: false });
    expect(tasks.data.steps[1].$state.flowResponses.map((r) => r.actionType)).toEqual(['STARTED_STEP']);
  });

  it('completes a step with its data and moves the pointer to the next visible undone step', async () => {
    const userId = newUser();
    const body = (await write(userId, 'tasks', 'a', 'COMPLETED_STEP', { data: { answer: 42 } }))
      .body as FlowStatesResponse;
    const tasks = flow(body, 'tasks');
    expect(tasks.data.steps[0].$state).toMatchObject({ completed: true, started: true });
    expect(tasks.$state).toMatchObject({ started: true, completed: false, currentStepId: 'b', currentStepIndex: 1 });
    expect(JSON.parse(tasks.data.steps[0].$state.flowResponses[0].data)).toEqual({ answer: 42 });
    const [step] = await service.db.query<{ data: unknown }>(
      'SELECT data FROM step_states WHERE user_id = $1 AND step_id = $2',
      [userId, 'a'],
    );
    expect(step.data).toEqual({ answer: 42 });
  });

  it('skips invisible steps when moving the pointer', async () => {
    const userId = newUser();
    await service.call('POST', '/v1/public/users', { body: { userId, properties: { hideB: true, unlockC: true } } });
    const tasks = flow((await write(userId, 'tasks', 'a', 'COMPLETED_STEP')).body, 'tasks');
    expect(tasks.data.steps[1].$state.visible).toBe(false);
    expect(tasks.$state).toMatchObject({ currentStepId: 'c', currentStepIndex: 2 });
  });

  it('wraps the pointer to an earlier undone step when the later ones are done', async () => {
    const userId = newUser();
    await service.call('POST', '/v1/public/users', { body: { userId, properties: { unlockC: true } } });
    await write(userId, 'tasks', 'c', 'COMPLETED_STEP');
    const tasks = flow((await write(userId, 'tasks', 'b', 'SKIPPED_STEP')).body, 'tasks');
    expect(tasks.data.steps[1].$state).toMatchObject({ skipped: true, completed: false });
    expect(tasks.$state).toMatchObject({ currentStepId: 'a', currentStepIndex: 0, completed: false });
  });

  it('completes the flow when the last visible undone step is completed or skipped', async () => {
    const userId = newUser();
    await service.call('POST', '/v1/public/users', { body: { userId, properties: { unlockC: true } } });
    await write(userId, 'tasks', 'a', 'COMPLETED_STEP');
    await write(userId, 'tasks', 'b', 'SKIPPED_STEP');
    const tasks = flow((await write(userId, 'tasks', 'c', 'COMPLETED_STEP')).body, 'tasks');
    expect(tasks.$state).toMatchObject({ completed: true, visible: false });
    expect(tasks.$state.flowResponses.map((r) => r.actionType)).toEqual([
      'COMPLETED_STEP',
      'SKIPPED_STEP',
      'COMPLETED_STEP',
      'COMPLETED_FLOW',
    ]);
    expect(JSON.parse(tasks.$state.flowResponses[3].data)).toEqual({ reason: 'last-step' });
  });

  it('resets a step and points the flow back at it', async () => {
    const userId = newUser();
    await write(userId, 'tasks', 'a', 'COMPLETED_STEP');
    const tasks = flow((await write(userId, 'tasks', 'a', 'NOT_STARTED_STEP')).body, 'tasks');
    expect(tasks.data.steps[0].$state).toMatchObject({ completed: false, started: false, skipped: false });
    expect(tasks.$state).toMatchObject({ currentStepId: 'a', currentStepIndex: 0 });
    expect(await service.db.query('SELECT step_id FROM step_states WHERE user_id = $1', [userId])).toEqual([]);
  });

  it('completes and skips a whole flow', async () => {
    const completer = newUser();
    const completed = flow((await write(completer, 'tasks', '', 'COMPLETED_FLOW')).body, 'tasks');
    expect(completed.$state).toMatchObject({ completed: true, started: true, skipped: false, visible: false });
    const skipper = newUser();
    const skipped = flow((await write(skipper, 'tasks', 'a', 'SKIPPED_FLOW')).body, 'tasks');
    expect(skipped.$state).toMatchObject({ skipped: true, completed: false, visible: false });
    expect(skipped.$state.flowResponses[0]).toMatchObject({ actionType: 'SKIPPED_FLOW', stepId: 'a' });
  });

  it('restarts a flow: clears the flow and its steps and keeps the response log', async () => {
    const userId = newUser();
    await write(userId, 'tasks', 'a', 'COMPLETED_STEP');
    await write(userId, 'tasks', '', 'SKIPPED_FLOW');
    const tasks = flow((await write(userId, 'tasks', '', 'NOT_STARTED_FLOW')).body, 'tasks');
    expect(tasks.$state).toMatchObject({
      started: false,
      completed: false,
      skipped: false,
      visible: true,
      currentStepId: 'a',
    });
    expect(tasks.data.steps[0].$state.completed).toBe(false);
    // The answer carries the latest response of each step and of the flow; the log keeps all three.
    expect(tasks.$state.flowResponses.map((r) => r.actionType)).toEqual(['COMPLETED_STEP', 'NOT_STARTED_FLOW']);
    expect(await storedCounts(userId)).toEqual({ flows: 0, steps: 0, responses: 3 });
  });

  it('uses the client createdAt for lastActionAt and the response time', async () => {
    const userId = newUser();
    const createdAt = '2024-01-02T03:04:05.000Z';
    const tasks = flow((await write(userId, 'tasks', 'a', 'STARTED_STEP', { createdAt })).body, 'tasks');
    expect(tasks.$state.lastActionAt).toBe(createdAt);
    expect(tasks.data.steps[0].$state.lastActionAt).toBe(createdAt);
    expect(tasks.data.steps[0].$state.flowResponses[0].createdAt).toBe(createdAt);
  });
});

describe('derived state in the read', () => {
  it('reads blocked from startCriteria and visible from visibilityCriteria, as they change', async () => {
    const userId = newUser();
    const before = flow((await service.call('GET', `/v1/public/flowStates?userId=${userId}`)).body, 'tasks');
    expect(before.data.steps.map((s) => [s.id, s.$state.visible, s.$state.blocked])).toEqual([
      ['a', true, false],
      ['b', true, false],
      ['c', true, true],
    ]);
    await service.call('POST', '/v1/public/users', { body: { userId, properties: { unlockC: 1, hideB: true } } });
    const after = flow((await service.call('GET', `/v1/public/flowStates?userId=${userId}`)).body, 'tasks');
    expect(after.data.steps.map((s) => [s.id, s.$state.visible, s.$state.blocked])).toEqual([
      ['a', true, false],
      ['b', false, false],
      ['c', true, false],
    ]);
  });

  it('keeps the stored pointer while its step is visible and undone, else falls back to the first such step', async () => {
    const userId = newUser();
    await write(userId, 'tasks', 'b', 'STARTED_STEP');
    const onB = flow((await service.call('GET', `/v1/public/flowStates?userId=${userId}`)).body, 'tasks');
    expect(onB.$state).toMatchObject({ currentStepId: 'b', currentStepIndex: 1 });
    await service.call('POST', '/v1/public/users', { body: { userId, properties: { hideB: true } } });
    const hidden = flow((await service.call('GET', `/v1/public/flowStates?userId=${userId}`)).body, 'tasks');
    expect(hidden.$state).toMatchObject({ currentStepId: 'a', currentStepIndex: 0 });
  });
});

describe('repeats change nothing', () => {
  const repeats: Array<[ActionType, string]> = [
    ['STARTED_FLOW', ''],
    ['COMPLETED_FLOW', ''],
    ['SKIPPED_FLOW', ''],
    ['STARTED_STEP', 'a'],
    ['COMPLETED_STEP', 'a'],
    ['SKIPPED_STEP', 'b'],
  ];
  it.each(repeats)('repeating %s records one response and keeps the state', async (actionType, stepId) => {
    const userId = newUser();
    const first = await write(userId, 'tasks', stepId, actionType);
    expect(first.status).toBe(201);
    const before = await storedCounts(userId);
    const second = await write(userId, 'tasks', stepId, actionType);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(await storedCounts(userId)).toEqual(before);
  });

  it('resetting a step or restarting a flow with no state records nothing', async () => {
    const userId = newUser();
    expect((await write(userId, 'tasks', 'a', 'NOT_STARTED_STEP')).status).toBe(201);
    expect((await write(userId, 'tasks', '', 'NOT_STARTED_FLOW')).status).toBe(201);
    expect(await storedCounts(userId)).toEqual({ flows: 0, steps: 0, responses: 0 });
  });
});

describe('refused and no-op transitions', () => {
  async function expectRefused(userId: string, status: number, field: string, ...args: Parameters<typeof write>) {
    const before = await storedCounts(userId);
    const response = await write(...args);
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body).toMatchObject({ status, field });
    expect(response.body.detail).toEqual(expect.any(String));
    expect(await storedCounts(userId)).toEqual(before);
  }

  it('answers 404 for an unknown flow or step', async () => {
    const userId = newUser();
    await expectRefused(userId, 404, 'flowSlug', userId, 'no-such-flow', 'a', 'STARTED_STEP');
    await expectRefused(userId, 404, 'stepId', userId, 'tasks', 'no-such-step', 'COMPLETED_STEP');
    await expectRefused(userId, 404, 'stepId', userId, 'tasks', 'no-such-step', 'STARTED_FLOW');
    await expectRefused(userId, 400, 'stepId', userId, 'tasks', '', 'STARTED_STEP');
  });

  it('answers 409 for a blocked step, an invisible step, and a flow the user is not eligible for', async () => {
    const userId = newUser();
    await service.call('POST', '/v1/public/users', { body: { userId, properties: { hideB: true } } });
    await expectRefused(userId, 409, 'stepId', userId, 'tasks', 'c', 'COMPLETED_STEP');
    await expectRefused(userId, 409, 'stepId', userId, 'tasks', 'c', 'STARTED_STEP');
    await expectRefused(userId, 409, 'stepId', userId, 'tasks', 'b', 'SKIPPED_STEP');
    await expectRefused(userId, 409, 'flowSlug', userId, 'pro-tour', 'one', 'STARTED_STEP');
    await expectRefused(userId, 409, 'flowSlug', userId, 'draft-card', '', 'STARTED_FLOW');
  });

  it('answers every move but a restart in a finished flow with 201 and the true state, changing nothing', async () => {
    const userId = newUser();
    await write(userId, 'tasks', '', 'COMPLETED_FLOW');
    const before = await storedCounts(userId);
    for (const [stepId, actionType] of [
      ['', 'STARTED_FLOW'],
      ['', 'SKIPPED_FLOW'],
      ['a', 'COMPLETED_STEP'],
      ['a', 'SKIPPED_STEP'],
      ['a', 'NOT_STARTED_STEP'],
    ] as const) {
      const response = await write(userId, 'tasks', stepId, actionType);
      expect(response.status, actionType).toBe(201);
      expect(flow(response.body, 'tasks').$state).toMatchObject({ completed: true, skipped: false, visible: false });
    }
    expect(await storedCounts(userId)).toEqual(before);

    const skipper = newUser();
    await write(skipper, 'tasks', '', 'SKIPPED_FLOW');
    for (const [stepId, actionType] of [
      ['', 'COMPLETED_FLOW'],
      ['a', 'STARTED_STEP'],
      ['a', 'COMPLETED_STEP'],
    ] as const) {
      const response = await write(skipper, 'tasks', stepId, actionType);
      expect(response.status, actionType).toBe(201);
      expect(flow(response.body, 'tasks').$state).toMatchObject({ skipped: true, completed: false });
    }
    expect((await write(skipper, 'tasks', '', 'NOT_STARTED_FLOW')).status).toBe(201);
    const started = await write(skipper, 'tasks', 'a', 'STARTED_STEP');
    expect(flow(started.body, 'tasks').$state).toMatchObject({ skipped: false, started: true, currentStepId: 'a' });
  });

  it('answers skipping a completed step with 201 and the step still completed', async () => {
    const userId = newUser();
    await write(userId, 'tasks', 'a', 'COMPLETED_STEP');
    const response = await write(userId, 'tasks', 'a', 'SKIPPED_STEP');
    expect(response.status).toBe(201);
    expect(flow(response.body, 'tasks').data.steps[0].$state).toMatchObject({ completed: true, skipped: false });
    expect(await storedCounts(userId)).toMatchObject({ responses: 1 });
  });

  it('evaluates targeting against the group named in the write', async () => {
    const userId = newUser();
    const groupId = `group-${randomUUID()}`;
    await service.call('POST', '/v1/public/groups', { body: { groupId, userId, properties: { tier: 'gold' } } });
    await expectRefused(userId, 409, 'flowSlug', userId, 'team-card', 'one', 'COMPLETED_STEP');
    const response = await write(userId, 'team-card', 'one', 'COMPLETED_STEP', { groupId });
    expect(response.status).toBe(201);
    expect(flow(response.body, 'team-card').$state.completed).toBe(true);
  });
});
