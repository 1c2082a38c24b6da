// The flow model: content taken from state answers and checked, joined with state into Flow and Step objects.
import { describe, expect, it, vi } from 'vitest';
import { isDefinition } from '../../src/api/guards.js';
import type { FlowData, FlowState } from '../../src/api/wire.js';
import { definitionOf, stateOnly } from '../../src/core/cache.js';
import { onError } from '../../src/core/errors.js';
import { buildFlow, type FlowDefinition } from '../../src/flows/flow.js';
import { $flowDefinitions, $flows, $flowStates } from '../../src/stores/flows.js';

const definitions: Record<string, FlowDefinition> = {
  tour: {
    slug: 'tour',
    name: 'Tour',
    type: 'CHECKLIST',
    version: 3,
    data: {
      steps: [
        { id: 'a', title: 'A' },
        { id: 'b', title: 'B' },
        { id: 'c', title: 'C' },
      ],
    },
  },
};

const step = (id: string, over: Partial<FlowState['data']['steps'][number]['$state']> = {}) => ({
  id,
  $state: {
    started: false,
    completed: false,
    skipped: false,
    visible: true,
    blocked: false,
    flowResponses: [],
    ...over,
  },
});

describe('buildFlow', () => {
  it('joins definition and state into steps, current step and progress', () => {
    const state: FlowState = {
      flowSlug: 'tour',
      flowName: 'Tour',
      flowType: 'CHECKLIST',
      version: 3,
      data: { steps: [step('a', { completed: true }), step('b', { started: true }), step('c', { visible: false })] },
      $state: {
        currentStepId: 'b',
        currentStepIndex: 1,
        started: true,
        completed: false,
        skipped: false,
        visible: true,
        flowResponses: [],
      },
    };
    const flow = buildFlow(definitions.tour, state);
    expect(flow.version).toBe(3);
    expect(flow.steps.map((s) => [s.id, s.index, s.title])).toEqual([
      ['a', 0, 'A'],
      ['b', 1, 'B'],
      ['c', 2, 'C'],
    ]);
    expect(flow.currentStep?.id).toBe('b');
    expect(flow.progress).toBe(0.5);
    expect(flow.isStarted).toBe(true);
    expect(flow.steps[2].state.visible).toBe(false);
  });

  it('reports progress 1 for a flow completed before its last step', () => {
    const state: FlowState = {
      flowSlug: 'tour',
      flowName: 'Tour',
      flowType: 'CHECKLIST',
      version: 3,
      data: { steps: [step('a', { completed: true }), step('b', { started: true }), step('c')] },
      $state: {
        currentStepId: 'b',
        currentStepIndex: 1,
        started: true,
        completed: true,
        skipped: false,
        visible: true,
        flowResponses: [],
      },
    };
    expect(buildFlow(definitions.tour, state).progress).toBe(1);
    expect(
      buildFlow(definitions.tour, { ...state, $state: { ...state.$state, completed: false, skipped: true } }).progress,
    ).toBeCloseTo(1 / 3);
  });

  it('takes a definition from the content a state answer carries, and the state without it', () => {
    const answered: FlowState = {
      flowSlug: 'tour',
      flowName: 'Tour',
      flowType: 'CHECKLIST',
      version: 3,
      data: {
        title: 'Get going',
        props: { dismissible: false },
        steps: [{ ...step('a'), title: 'A', primaryButton: { title: 'Go' } }],
      },
      $state: {
        currentStepId: 'a',
        currentStepIndex: 0,
        started: false,
        completed: false,
        skipped: false,
        visible: true,
        flowResponses: [],
      },
    };
    expect(definitionOf(answered)).toEqual({
      slug: 'tour',
      name: 'Tour',
      type: 'CHECKLIST',
      version: 3,
      data: {
        title: 'Get going',
        props: { dismissible: false },
        steps: [{ id: 'a', title: 'A', primaryButton: { title: 'Go' } }],
      },
    });
    expect(stateOnly(answered).data).toEqual({ steps: [step('a')] });
    expect(definitionOf({ ...answered, flowType: 'POPUP' as never })).toBeUndefined();
    expect(definitionOf({ ...answered, flowName: 7 as never })).toBeUndefined();
  });

  it('refuses a cached definition without a slug, a name, a known type, a version, or steps with string ids', () => {
    const tour = definitions.tour;
    expect(isDefinition(tour)).toBe(true);
    for (const bad of [
      null,
      { ...tour, slug: 7 },
      { ...tour, name: undefined },
      { ...tour, type: 'POPUP' },
      { ...tour, version: '3' },
      { ...tour, data: { title: 'No steps' } },
      { ...tour, data: { steps: [{ title: 'No id' }] } },
      { ...tour, data: { steps: [null] } },
    ]) {
      expect(isDefinition(bad)).toBe(false);
    }
  });

  it('keeps the Flow object of a flow whose definition and state did not change', () => {
    const state = (flowSlug: string): FlowState => ({
      flowSlug,
      flowName: flowSlug,
      flowType: 'CHECKLIST',
      version: 3,
      data: { steps: [step('a')] },
      $state: {
        currentStepId: 'a',
        currentStepIndex: 0,
        started: false,
        completed: false,
        skipped: false,
        visible: true,
        flowResponses: [],
      },
    });
    const one = state('tour');
    $flowDefinitions.set({ tour: definitions.tour, other: { ...definitions.tour, slug: 'other' } });
    $flowStates.set({ tour: one, other: state('other') });
    const before = $flows.get();
    $flowStates.set({ tour: one, other: state('other') });
    const after = $flows.get();
    expect(after.tour).toBe(before.tour);
    expect(after.other).not.toBe(before.other);
    $flowDefinitions.set({});
    $flowStates.set({});
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
      $state: {
        currentStepId: 'a',
        currentStepIndex: 0,
        started: false,
        completed: false,
        skipped: false,
        visible: true,
        flowResponses: [],
      },
    });
    // Past the guards, as a page that sets the store itself could do.
    const broken = { ...definitions.tour, slug: 'broken', data: { title: 'No steps' } as unknown as FlowData };
    $flowDefinitions.set({ tour: definitions.tour, broken });
    $flowStates.set({ tour: state('tour'), broken: state('broken') });
    expect(Object.keys($flows.get())).toEqual(['tour']);
    expect(codes).toEqual(['render-failed']);
    stop();
    $flowDefinitions.set({});
    $flowStates.set({});
    vi.restoreAllMocks();
  });
});
