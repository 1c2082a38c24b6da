// The localStorage cache within its budgets: with more flows than fit, the first that fit are kept and read back, and nothing breaks.
import { beforeEach, describe, expect, it } from 'vitest';
import type { FlowState, FlowStatesResponse } from '../../src/api/wire.js';
import {
  CONTENT_BUDGET,
  readContent,
  readState,
  STATE_BUDGET,
  writeContent,
  writeState,
} from '../../src/core/cache.js';
import { createSafeStorage } from '../../src/core/storage.js';
import type { FlowDefinition } from '../../src/flows/flow.js';

const STEPS = 20;
const definition = (i: number): FlowDefinition => ({
  slug: `flow-${i}`,
  name: `Flow ${i}`,
  type: 'BANNER',
  version: 1,
  data: {
    title: `Flow ${i}`,
    steps: Array.from({ length: STEPS }, (_, s) => ({
      id: `s${s}`,
      title: `Step ${s} of flow ${i}`,
      subtitle: 'x'.repeat(120),
    })),
  },
});
const state = (i: number): FlowState => ({
  flowSlug: `flow-${i}`,
  flowName: `Flow ${i}`,
  flowType: 'BANNER',
  version: 1,
  data: {
    steps: Array.from({ length: STEPS }, (_, s) => ({
      id: `s${s}`,
      $state: { started: true, completed: false, skipped: false, visible: true, blocked: false, flowResponses: [] },
    })),
  },
  $state: {
    currentStepId: 's0',
    currentStepIndex: 0,
    started: true,
    completed: false,
    skipped: false,
    visible: true,
    flowResponses: [],
  },
});

beforeEach(() => localStorage.clear());

describe('the cache with 1000 flows', () => {
  it('keeps the content of the first flows that fit the budget, current flows first, and reads them back', () => {
    const storage = createSafeStorage();
    const definitions = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`flow-${i}`, definition(i)]));
    writeContent(storage, definitions, ['flow-999', 'flow-998'], '');
    expect(localStorage.getItem('onboarding:content')!.length).toBeLessThanOrEqual(CONTENT_BUDGET);
    const read = readContent(storage);
    const slugs = Object.keys(read);
    expect(slugs.length).toBeGreaterThan(100);
    expect(slugs.length).toBeLessThan(1000);
    expect(slugs.slice(0, 2)).toEqual(['flow-999', 'flow-998']);
    expect(read['flow-0']).toEqual(definitions['flow-0']);
  });

  it('keeps the state of the first flows that fit, and reads it back for its user only', () => {
    const storage = createSafeStorage();
    const states: FlowStatesResponse = {
      eligibleFlows: Array.from({ length: 1000 }, (_, i) => state(i)),
      ineligibleFlows: ['gone'],
    };
    writeState(storage, 'user-1', states);
    expect(localStorage.getItem('onboarding:state')!.length).toBeLessThanOrEqual(STATE_BUDGET);
    const read = readState(storage, 'user-1')!;
    expect(read.eligibleFlows.length).toBeGreaterThan(100);
    expect(read.eligibleFlows.length).toBeLessThan(1000);
    expect(read.eligibleFlows[0]).toEqual(states.eligibleFlows[0]);
    expect(read.ineligibleFlows).toEqual(['gone']);
    expect(readState(storage, 'user-2')).toBeUndefined();
  });
});
