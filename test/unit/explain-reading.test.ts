// The order and the sides a person reads an explanation in, as the People page and `onboarding-flows explain` show it.
import { describe, expect, it } from 'vitest';
import { failedFirst, flowProgress, heldBackFirst, readSides } from '../../src/api/explain-reading.js';
import type { ExplainReason, FlowExplanation } from '../../src/api/wire.js';

const reason = (rule: 'status' | 'schedule' | 'collection' | 'limit', passed: boolean): ExplainReason =>
  ({ rule, passed, detail: `${rule} ${passed}` }) as ExplainReason;

const state = (fields: { started?: boolean; completed?: boolean; dismissed?: boolean }): ExplainReason => ({
  rule: 'state',
  passed: true,
  detail: '',
  started: false,
  completed: false,
  dismissed: false,
  reshowAt: null,
  ...fields,
});

const flow = (flowSlug: string, shown: boolean, reasons: ExplainReason[] = []): FlowExplanation => ({
  flowSlug,
  name: flowSlug,
  type: 'BANNER',
  shown,
  heldBy: reasons.find((r) => !r.passed)?.rule ?? null,
  reasons,
});

describe('reading an explanation', () => {
  it('puts the failed rules first, each part in the order the service applies them', () => {
    const reasons = [
      reason('status', true),
      reason('schedule', false),
      reason('collection', true),
      reason('limit', false),
    ];
    expect(failedFirst(reasons).map((r) => r.detail)).toEqual([
      'schedule false',
      'limit false',
      'status true',
      'collection true',
    ]);
  });

  it("puts the flows not shown first, each part in the catalog's order", () => {
    const flows = [flow('a', true), flow('b', false), flow('c', true), flow('d', false)];
    expect(heldBackFirst(flows).map((f) => f.flowSlug)).toEqual(['b', 'd', 'a', 'c']);
  });

  it("names the user's state in a flow from its state rule", () => {
    expect(flowProgress(flow('a', true, [state({})]))).toBe('not started');
    expect(flowProgress(flow('a', true, [state({ started: true })]))).toBe('started');
    expect(flowProgress(flow('a', false, [state({ started: true, completed: true })]))).toBe('completed');
    expect(flowProgress(flow('a', false, [state({ started: true, dismissed: true })]))).toBe('dismissed');
    expect(flowProgress(flow('a', true))).toBe('not started');
  });

  it("keeps a comparison's sides that read the user, not the literals the rule wrote", () => {
    const operands = [
      { expression: 'user.properties.plan', value: 'free' },
      { expression: "'pro'", value: 'pro' },
      { expression: "user.eventCount('exported', duration('168h'))", value: 1 },
      { expression: '3', value: 3 },
      { expression: '-2.5', value: -2.5 },
      { expression: '"x\\"y"', value: 'x"y' },
      { expression: 'true', value: true },
      { expression: 'null', value: null },
    ];
    expect(readSides({ expression: '', value: false, operands }).map((o) => o.expression)).toEqual([
      'user.properties.plan',
      "user.eventCount('exported', duration('168h'))",
    ]);
    expect(readSides({ expression: 'has(user.properties.plan)', value: true })).toEqual([]);
  });
});
