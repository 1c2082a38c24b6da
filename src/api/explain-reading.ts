// How a person reads an explanation, shared by the dashboard's People page and `onboarding-flows explain`: flows held back first, in each flow its failed rules first, and a clause's sides without its literals.
import type { ExplainReason, FlowExplanation, TargetingClause } from './wire.js';

/** The reasons with those that failed first; each part keeps the order the service applies the rules in. */
export const failedFirst = (reasons: readonly ExplainReason[]): ExplainReason[] => [
  ...reasons.filter((reason) => !reason.passed),
  ...reasons.filter((reason) => reason.passed),
];

/** The flows not shown first, then those shown; each part keeps the catalog's order. */
export const heldBackFirst = (flows: readonly FlowExplanation[]): FlowExplanation[] => [
  ...flows.filter((flow) => !flow.shown),
  ...flows.filter((flow) => flow.shown),
];

/** What a user has done with a flow, from its `state` reason: "completed", "dismissed", "started" or "not started". */
export function flowProgress(flow: FlowExplanation): 'completed' | 'dismissed' | 'started' | 'not started' {
  const state = flow.reasons.find((reason) => reason.rule === 'state');
  if (!state || state.rule !== 'state') return 'not started';
  if (state.completed) return 'completed';
  if (state.dismissed) return 'dismissed';
  return state.started ? 'started' : 'not started';
}

/** A CEL literal: a number, a quoted string, true, false or null. */
const LITERAL = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?u?|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|true|false|null)$/;

/** A comparison's sides worth reading: what the user's data made of them, not the literals the rule wrote (`'pro'`, `3`). */
export const readSides = (clause: TargetingClause): Array<{ expression: string; value: unknown }> =>
  (clause.operands ?? []).filter((operand) => !LITERAL.test(operand.expression.trim()));
