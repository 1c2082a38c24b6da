// Flows that come back (reshow) over loopback HTTP: a dismissed flow shows again on the service's clock, at most `times` times.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowState, FlowStatesResponse } from '../../src/api/wire.js';
import { checkFlowText } from '../../server/flows/definitions.js';
import { bannerFlowYaml, startTestService, type TestService } from '../support/service.js';

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
      'collections.yaml': 'collections:\n  - id: pair\n    type: CUSTOM\n    flows: [pair-first, pair-second]\n',
    },
    { now: () => new Date(clock) },
  );
});
afterAll(() => service?.close());

const newUser = () => `user-${randomUUID()}`;
const flowIn = (states: FlowStatesResponse, slug: string): FlowState['$state'] => states.eligibleFlows.find((f) => f.flowSlug === slug)!.$state;
const read = async (userId: string, slug: string) => flowIn((await service.call('GET', `/v1/public/flowStates?userId=${userId}`)).body, slug);
const act = async (userId: string, flowSlug: string, actionType: string) => {
  const answer = await service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug, actionType } });
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
    expect(await act(user, 'back', 'COMPLETED_FLOW')).toMatchObject({ completed: true, skipped: false, visible: false, reshows: 1 });
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
    expect(order.map((row: { flowId: string; visible: boolean }) => [row.flowId, row.visible])).toEqual([['pair-first', true], ['pair-second', false]]);
  });
});
