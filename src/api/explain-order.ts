// The order a person reads an explanation in, shared by the dashboard's People page and `onboarding-flows explain`: flows held back first, and in each flow its failed rules first.
import type { ExplainReason, FlowExplanation } from './wire.js';

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
