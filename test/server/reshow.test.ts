// Flows that come back (reshow) over loopback HTTP: a dismissed flow shows again on the service's clock, at most `times` times,
// and the analytics tell a showing from a reshowing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsFlowResponse, FlowState, FlowStatesResponse } from '../../src/api/wire.js';
import { ROLLUPS_FROM_FACTS_SQL } from '../../server/analytics/progress.js';
import { checkFlowText } from '../../server/flows/definitions.js';
import { bannerFlowYaml, checklistYaml, PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

const DAY = 86_400_000;
let clock = Date.now();
let service: TestService;

beforeAll(async () => {
  service = await startTestService(
    {
      'back.yaml': `reshow: { after: 7d, times: 2 }\n${bannerFlowYaml('back')}`,
      'once.yaml': bannerFlowYaml('once'),
      // A collection whose first flow comes back: it takes its place again, before the second.
      'pair-first.yaml': `reshow: { after: 1d, times: 1 }\n${bannerFlowYaml('pair-first')}`,
      'pair-second.yaml': bannerFlowYaml('pair-second'),
      // Analytics of reshowings: a flow of its own, so the other tests' users are not in its counts.
      'counted.yaml': `reshow: { after: 1d, times: 2 }\n${checklistYaml('counted')}`,
      'collections.yaml': 'collections:\n  - id: pair\n    type: CUSTOM\n    flows: [pair-first, pair-second]\n',
    },
    { now: () => new Date(clock) },
  );
});
afterAll(() => service?.close());

const newUser = () => `user-${randomUUID()}`;
const flowIn = (states: FlowStatesResponse, slug: string): FlowState['$state'] =>
  states.eligibleFlows.find((f) => f.flowSlug === slug)!.$state;
const read = async (userId: string, slug: string) =>
  flowIn((await service.call('GET', `/v1/public/flowStates?userId=${userId}`)).body, slug);
const act = async (userId: string, flowSlug: string, actionType: string, stepId?: string) => {
  const answer = await service.call('POST', '/v1/public/flowStates', {
    body: { userId, flowSlug, actionType, ...(stepId ? { stepId } : {}) },
  });
  expect(answer.status).toBe(201);
  return flowIn(answer.body, flowSlug);
};

describe('reshow', () => {
  it('shows a dismissed flow again after `after`, at most `times` times', async () => {
    const user = newUser();
    expect(await read(user, 'back')).toMatchObject({ skipped: false, visible: true, reshows: 0 });
    expect(await act(user, 'back', 'SKIPPED_FLOW')).toMatchObject({ skipped: true, visible: false, reshows: 0 });
    clock += 6 * DAY;
    expect(await read(user, 'back')).toMatchObject({ skipped: true, visible: false });
    clock += DAY;
    expect(await read(user, 'back')).toMatchObject({ skipped: false, visible: true, reshows: 1 });
    expect(await act(user, 'back', 'SKIPPED_FLOW')).toMatchObject({ skipped: true, visible: false, reshows: 1 });
    clock += 7 * DAY;
    expect(await read(user, 'back')).toMatchObject({ skipped: false, visible: true, reshows: 2 });
    expect(await act(user, 'back', 'SKIPPED_FLOW')).toMatchObject({ skipped: true, visible: false, reshows: 2 });
    clock += 30 * DAY;
    expect(await read(user, 'back')).toMatchObject({ skipped: true, visible: false, reshows: 2 });
  });

  it('never brings back a completed flow', async () => {
    const user = newUser();
    await act(user, 'back', 'SKIPPED_FLOW');
    clock += 8 * DAY;
    expect(await act(user, 'back', 'COMPLETED_FLOW')).toMatchObject({
      completed: true,
      skipped: false,
      visible: false,
      reshows: 1,
    });
    clock += 30 * DAY;
    expect(await read(user, 'back')).toMatchObject({ completed: true, visible: false });
  });

  it('leaves a flow without reshow as it was', async () => {
    const user = newUser();
    await act(user, 'once', 'SKIPPED_FLOW');
    clock += 365 * DAY;
    const state = await read(user, 'once');
    expect(state).toMatchObject({ skipped: true, visible: false });
    expect(state).not.toHaveProperty('reshows');
  });

  it('refuses a bad reshow with its line', () => {
    const { problems } = checkFlowText(`reshow:\n  after: 0d\n  times: 1.5\n${bannerFlowYaml('bad')}`);
    expect(problems.map((p) => `${p.path} ${p.line}`)).toEqual(['reshow.after 2', 'reshow.times 3']);
  });

  it('puts a flow that came back in its place in its collection again, before the flows after it', async () => {
    const user = newUser();
    expect(await read(user, 'pair-first')).toMatchObject({ visible: true });
    expect(await read(user, 'pair-second')).toMatchObject({ visible: false });
    await act(user, 'pair-first', 'SKIPPED_FLOW');
    expect(await read(user, 'pair-second')).toMatchObject({ visible: true });
    clock += 2 * DAY;
    expect(await read(user, 'pair-first')).toMatchObject({ skipped: false, visible: true, reshows: 1 });
    expect(await read(user, 'pair-second')).toMatchObject({ visible: false });
    const order = (await service.call('GET', `/v1/public/flowStates?userId=${user}`)).body.collections.computedOrder;
    expect(order.map((row: { flowId: string; visible: boolean }) => [row.flowId, row.visible])).toEqual([
      ['pair-first', true],
      ['pair-second', false],
    ]);
  });
});

describe('reshow in analytics', () => {
  const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const report = async (slug: string, from: number): Promise<AnalyticsFlowResponse> => {
    const answer = await service.call(
      'GET',
      `/v1/analytics/flows/${slug}?from=${dateOf(from)}&to=${dateOf(clock + DAY)}`,
      { key: PRIVATE_KEY },
    );
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };

  it('counts the users who acted on a comeback, their comebacks, and who completed or dismissed it after', async () => {
    const start = clock;
    const [completes, twice, ignores, onlyLooks, neverSkips, restarts] = Array.from({ length: 6 }, newUser);
    for (const user of [completes, twice, ignores, onlyLooks, restarts]) await act(user, 'counted', 'SKIPPED_FLOW');
    await act(neverSkips, 'counted', 'COMPLETED_FLOW');
    clock += DAY;
    // Back after a day: one completes a step, then the flow; one dismisses it again; one restarts it, which is no comeback.
    await act(completes, 'counted', 'COMPLETED_STEP', 'one');
    expect(await act(completes, 'counted', 'COMPLETED_FLOW')).toMatchObject({ completed: true, reshows: 1 });
    expect(await act(twice, 'counted', 'SKIPPED_FLOW')).toMatchObject({ skipped: true, reshows: 1 });
    expect(await read(onlyLooks, 'counted')).toMatchObject({ visible: true, reshows: 1 });
    await act(restarts, 'counted', 'NOT_STARTED_FLOW');
    await act(restarts, 'counted', 'SKIPPED_FLOW');
    clock += DAY;
    expect(await act(twice, 'counted', 'SKIPPED_FLOW')).toMatchObject({ skipped: true, reshows: 2 });

    const answer = await report('counted', start);
    expect(answer.flow).toMatchObject({ started: 6, completed: 2, skipped: 5 });
    expect(answer.reshow).toEqual({ users: 2, comebacks: 3, completed: 1, skipped: 1, completionRate: 0.5 });

    // Kept at write time as the facts say, and a deleted user taken out.
    const columns = `flow_slug, to_char(day, 'YYYY-MM-DD') AS day, flow_version, reshown::int, comebacks::int, reshow_completed::int, reshow_skipped::int`;
    const where = `WHERE flow_slug = 'counted' AND step_id = '' ORDER BY 1, 2, 3`;
    expect(await service.db.query(`SELECT ${columns} FROM analytics_daily ${where}`)).toEqual(
      await service.db.query(`SELECT ${columns} FROM (${ROLLUPS_FROM_FACTS_SQL.daily}) AS r ${where}`),
    );
    expect((await service.call('DELETE', `/v1/users?foreignId=${twice}`, { key: PRIVATE_KEY })).status).toBe(204);
    expect((await report('counted', start)).reshow).toEqual({
      users: 1,
      comebacks: 1,
      completed: 1,
      skipped: 0,
      completionRate: 1,
    });
  });

  it('reports zeros for a flow with reshow that nobody saw come back, and nothing for a flow without it', async () => {
    const user = newUser();
    await act(user, 'once', 'SKIPPED_FLOW');
    const none = await report('pair-second', clock - DAY);
    expect(none).not.toHaveProperty('reshow');
    expect((await report('pair-first', clock - DAY)).reshow).toEqual({
      users: 0,
      comebacks: 0,
      completed: 0,
      skipped: 0,
      completionRate: null,
    });
  });
});
