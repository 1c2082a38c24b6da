import { describe, expect, it } from 'vitest';
import type { FlowState } from '../../src/api/wire.js';
import { buildFlow } from '../../src/flows/flow.js';
import { parseDefinitions } from '../../src/stores/flows.js';

const definitions = parseDefinitions([
  {
    id: 1,
    slug: 'tour',
    name: 'Tour',
    type: 'CHECKLIST',
    status: 'ACTIVE',
    version: 3,
    targetingLogic: '',
    createdAt: '2026-01-01T00:00:00.000Z',
    modifiedAt: '2026-01-01T00:00:00.000Z',
    codeSnippet: '',
    data: JSON.stringify({ steps: [{ id: 'a', title: 'A' }, { id: 'b', title: 'B' }, { id: 'c', title: 'C' }] }),
  },
]);

const step = (id: string, over: Partial<FlowState['data']['steps'][number]['$state']> = {}) => ({
  id,
  $state: { started: false, completed: false, skipped: false, visible: true, blocked: false, flowResponses: [], ...over },
});

describe('buildFlow', () => {
  it('joins definition and state into steps, current step and progress', () => {
    const state: FlowState = {
      flowSlug: 'tour',
      flowName: 'Tour',
      flowType: 'CHECKLIST',
      version: 3,
      data: { steps: [step('a', { completed: true }), step('b', { started: true }), step('c', { visible: false })] },
      $state: { currentStepId: 'b', currentStepIndex: 1, started: true, completed: false, skipped: false, visible: true, flowResponses: [] },
    };
    const flow = buildFlow(definitions.tour!, state);
    expect(flow.version).toBe(3);
    expect(flow.steps.map((s) => [s.id, s.index, s.title])).toEqual([['a', 0, 'A'], ['b', 1, 'B'], ['c', 2, 'C']]);
    expect(flow.currentStep?.id).toBe('b');
    expect(flow.progress).toBe(0.5);
    expect(flow.isStarted).toBe(true);
    expect(flow.steps[2]!.state.visible).toBe(false);
  });

  it('leaves out a definition whose data is not JSON', () => {
    expect(parseDefinitions([{ ...definitions.tour!.record, slug: 'broken', data: '{nope' }])).toEqual({});
  });
});
