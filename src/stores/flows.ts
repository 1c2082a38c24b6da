// The flow stores: definitions from GET /v1/public/flows joined with the user's flow states.
import { atom, computed } from 'nanostores';
import type { Flow as FlowRecord, FlowData, FlowState } from '../api/wire.js';
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
    if (definition) flows[slug] = buildFlow(definition, state, runTransition);
  }
  return flows;
});

/** Parses listed definitions, reusing the parsed entry of every slug whose version did not change. */
export function parseDefinitions(records: FlowRecord[], previous: Record<string, FlowDefinition> = {}): Record<string, FlowDefinition> {
  const out: Record<string, FlowDefinition> = {};
  for (const record of records) {
    const known = previous[record.slug];
    if (known && known.record.version === record.version && known.record.id === record.id) {
      out[record.slug] = known;
      continue;
    }
    try {
      out[record.slug] = { record, data: JSON.parse(record.data) as FlowData };
    } catch {
      // A definition whose data is not JSON cannot render; it is left out rather than breaking the others.
    }
  }
  return out;
}

/** Puts a flow-state read straight into the stores (tests and pages that render without the core). */
export function applyFlowStates(response: { eligibleFlows: FlowState[]; ineligibleFlows: string[] }): void {
  $flowStates.set(Object.fromEntries(response.eligibleFlows.map((state) => [state.flowSlug, state])));
  $ineligibleFlows.set(response.ineligibleFlows);
}
