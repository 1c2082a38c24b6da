// The boundary guards: values that can go over the wire, IDs, and flow states deep enough to build flows from.
import { describe, expect, it } from 'vitest';
import { isFlowStates, isId, isJson } from '../../src/api/guards.js';

const flags = { started: false, completed: false, skipped: false, visible: true };
const flow = (over: Record<string, unknown> = {}) => ({
  flowSlug: 'tour',
  flowName: 'Tour',
  flowType: 'TOUR',
  version: 1,
  data: { steps: [{ id: 'a', $state: { ...flags, blocked: false, flowResponses: [] } }] },
  $state: { ...flags, currentStepId: 'a', currentStepIndex: 0, flowResponses: [] },
  ...over,
});

describe('guards', () => {
  it('takes a value that JSON.stringify turns into text, or no value at all', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    for (const value of [undefined, null, 0, 'text', [1, { a: [] }], { nested: { fine: true }, dropped: () => 1 }])
      expect(isJson(value)).toBe(true);
    for (const value of [BigInt(1), { n: BigInt(1) }, circular, () => 1, Symbol('s')])
      expect(isJson(value)).toBe(false);
  });

  it('takes IDs of 1 to 256 characters without control characters', () => {
    for (const id of ['u', 'user-42', 'Ünïcode ✓', 'x'.repeat(256)]) expect(isId(id)).toBe(true);
    for (const id of ['', 'x'.repeat(257), 'a\nb', 'a\u0000b', 'a\u007fb', 7, null]) expect(isId(id)).toBe(false);
  });

  it('takes a flow-state read only when every flow and step has what the script reads', () => {
    expect(isFlowStates({ eligibleFlows: [flow()], ineligibleFlows: ['other'] })).toBe(true);
    expect(isFlowStates({ eligibleFlows: [], ineligibleFlows: [] })).toBe(true);
    for (const broken of [
      null,
      { eligibleFlows: [null], ineligibleFlows: [] },
      { eligibleFlows: [flow({ flowSlug: 1 })], ineligibleFlows: [] },
      { eligibleFlows: [flow({ version: '1' })], ineligibleFlows: [] },
      { eligibleFlows: [flow({ data: {} })], ineligibleFlows: [] },
      { eligibleFlows: [flow({ data: { steps: [{ id: 'a' }] } })], ineligibleFlows: [] },
      { eligibleFlows: [flow({ $state: { ...flags, started: 'yes' } })], ineligibleFlows: [] },
      { eligibleFlows: [flow()], ineligibleFlows: [null] },
      { eligibleFlows: [flow()] },
    ]) {
      expect(isFlowStates(broken)).toBe(false);
    }
  });
});
