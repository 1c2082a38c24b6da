// The flow model: definitions parsed and checked, joined with state into Flow and Step objects.
import { describe, expect, it, vi } from 'vitest';
import type { FlowData, FlowState } from '../../src/api/wire.js';
import { onError } from '../../src/core/report.js';
import { buildFlow } from '../../src/flows/flow.js';
import { $flowDefinitions, $flows, $flowStates, parseDefinitions } from '../../src/stores/flows.js';

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

  it('reports progress 1 for a flow completed before its last step', () => {
    const state: FlowState = {
      flowSlug: 'tour',
      flowName: 'Tour',
      flowType: 'CHECKLIST',
      version: 3,
      data: { steps: [step('a', { completed: true }), step('b', { started: true }), step('c')] },
      $state: { currentStepId: 'b', currentStepIndex: 1, started: true, completed: true, skipped: false, visible: true, flowResponses: [] },
    };
    expect(buildFlow(definitions.tour!, state).progress).toBe(1);
    expect(buildFlow(definitions.tour!, { ...state, $state: { ...state.$state, completed: false, skipped: true } }).progress).toBeCloseTo(1 / 3);
  });

  it('leaves out a definition whose data is not JSON', () => {
    expect(parseDefinitions([{ ...definitions.tour!.record, slug: 'broken', data: '{nope' }])).toEqual({});
  });

  it('refuses a record without a string slug, data without steps, or a step without a string id, and keeps what the slug had', () => {
    const tour = definitions.tour!.record;
    const refused: unknown[] = [];
    const records = [
      null,
      { ...tour, slug: 7 },
      { ...tour, slug: 'no-steps', data: JSON.stringify({ title: 'No steps' }) },
      { ...tour, slug: 'bad-step', data: JSON.stringify({ steps: [{ title: 'No id' }] }) },
      { ...tour, slug: 'null-step', data: JSON.stringify({ steps: [null] }) },
      { ...tour, version: 4, data: JSON.stringify({ steps: 'none' }) },
    ];
    const parsed = parseDefinitions(records, definitions, (record) => refused.push(record));
    expect(Object.keys(parsed)).toEqual(['tour']);
    expect(parsed.tour).toBe(definitions.tour);
    expect(refused).toEqual(records);
  });

  it('leaves out a flow whose definition cannot be built, reports it, and keeps the others', () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const codes: string[] = [];
    const stop = onError((_error, code) => codes.push(code));
    const state = (flowSlug: string): FlowState => ({
      flowSlug,
      flowName: flowSlug,
      flowType: 'CHECKLIST',
      version: 3,
      data: { steps: [step('a')] },
      $state: { currentStepId: 'a', currentStepIndex: 0, started: false, completed: false, skipped: false, visible: true, flowResponses: [] },
    });
    // Past the guards, as a page that sets the store itself could do.
    const broken = { record: { ...definitions.tour!.record, slug: 'broken' }, data: { title: 'No steps' } as unknown as FlowData };
    $flowDefinitions.set({ tour: definitions.tour!, broken });
    $flowStates.set({ tour: state('tour'), broken: state('broken') });
    expect(Object.keys($flows.get())).toEqual(['tour']);
    expect(codes).toEqual(['render-failed']);
    stop();
    $flowDefinitions.set({});
    $flowStates.set({});
    vi.restoreAllMocks();
  });
});
