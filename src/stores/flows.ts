// The flow stores: definitions from GET /v1/public/flows joined with the user's flow states.
import { atom, computed } from 'nanostores';
import type { Flow as FlowRecord, FlowData, FlowState, FlowStatesResponse } from '../api/wire.js';
import { buildFlow, type Flow } from '../flows/flow.js';

export interface FlowDefinition {
  record: FlowRecord;
  data: FlowData;
}

/** Flow definitions by slug (the latest version the service listed). */
export const $flowDefinitions = atom<Record<string, FlowDefinition>>({});

/** The current user's state in every eligible flow, by slug, as the service last reported it (or optimistically changed). */
export const $flowStates = atom<Record<string, FlowState>>({});

/** Slugs the current user is not eligible for. */
export const $ineligibleFlows = atom<string[]>([]);

/** The current user's ID: `guest_…` or a real ID. */
export const $userId = atom<string | null>(null);

/** Eligible flows, joined: one Flow object per slug that has both a definition and a state. */
export const $flows = computed([$flowDefinitions, $flowStates], (definitions, states) => {
  const flows: Record<string, Flow> = {};
  for (const [slug, state] of Object.entries(states)) {
    const definition = definitions[slug];
    if (definition) flows[slug] = buildFlow(definition, state);
  }
  return flows;
});

export function parseDefinitions(records: FlowRecord[]): Record<string, FlowDefinition> {
  const out: Record<string, FlowDefinition> = {};
  for (const record of records) {
    try {
      out[record.slug] = { record, data: JSON.parse(record.data) as FlowData };
    } catch {
      // A definition whose data is not JSON cannot render; it is left out rather than breaking the others.
    }
  }
  return out;
}

export function applyFlowStates(response: FlowStatesResponse): void {
  $flowStates.set(Object.fromEntries(response.eligibleFlows.map((state) => [state.flowSlug, state])));
  $ineligibleFlows.set(response.ineligibleFlows);
}
