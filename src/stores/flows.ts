// The flow stores: definitions from GET /v1/public/flows joined with the user's flow states.
import { atom, computed } from 'nanostores';
import { flowDataOf, isObject, isString } from '../api/guards.js';
import type { Flow as FlowRecord, FlowData, FlowState } from '../api/wire.js';
import { reportError } from '../core/report.js';
import { buildFlow, type Flow, type Transition } from '../flows/flow.js';

export interface FlowDefinition {
  record: FlowRecord;
  data: FlowData;
}

/** Flow definitions by slug (the latest version the service listed). */
export const $flowDefinitions = atom<Record<string, FlowDefinition>>({});

/** The current user's state in every eligible flow, by slug: the service's last answer with pending writes applied. */
export const $flowStates = atom<Record<string, FlowState>>({});

/** Slugs the current user is not eligible for. */
export const $ineligibleFlows = atom<string[]>([]);

/** The current user's ID: `guest_…` or a real ID. */
export const $userId = atom<string | null>(null);

let transition: Transition | undefined;

/** Lets the core receive the actions of every Flow and Step object. */
export function setTransition(run: Transition): void {
  transition = run;
}

const runTransition: Transition = (...args) => (transition ? transition(...args) : Promise.resolve());

/** Eligible flows, joined: one Flow object per slug that has both a definition and a state. */
export const $flows = computed([$flowDefinitions, $flowStates], (definitions, states) => {
  const flows: Record<string, Flow> = {};
  for (const [slug, state] of Object.entries(states)) {
    const definition = definitions[slug];
    if (!definition) continue;
    try {
      flows[slug] = buildFlow(definition, state, runTransition);
    } catch (error) {
      // The guards keep such a definition out; should one get past them, it is left out, not thrown at the page.
      reportError('render-failed', error);
    }
  }
  return flows;
});

/**
 * Parses listed definitions, reusing the parsed entry of every slug whose version did not change. A record that
 * is no usable definition (no string slug, or data that is not JSON with a `steps` array of objects with string
 * ids) is passed to `refuse` and left out, rather than breaking the others; its slug keeps the definition it had.
 */
export function parseDefinitions(
  records: readonly unknown[],
  previous: Record<string, FlowDefinition> = {},
  refuse: (record: unknown) => void = () => {},
): Record<string, FlowDefinition> {
  const out: Record<string, FlowDefinition> = {};
  for (const item of records) {
    const record = item as FlowRecord;
    const known = isObject(item) && isString(record.slug) ? previous[record.slug] : undefined;
    if (known && known.record.version === record.version && known.record.id === record.id) {
      out[record.slug] = known;
      continue;
    }
    const data = flowDataOf(record);
    if (data) out[record.slug] = { record, data };
    else {
      refuse(item);
      if (known) out[record.slug] = known;
    }
  }
  return out;
}

/** Puts a flow-state read straight into the stores (tests and pages that render without the core). */
export function applyFlowStates(response: { eligibleFlows: FlowState[]; ineligibleFlows: string[] }): void {
  $flowStates.set(Object.fromEntries(response.eligibleFlows.map((state) => [state.flowSlug, state])));
  $ineligibleFlows.set(response.ineligibleFlows);
}
