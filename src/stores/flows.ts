// The flow stores: definitions (the content state answers carry) joined with the user's flow states.
import { atom } from 'nanostores';
import type { ComputedCollectionFlow, FlowState } from '../api/wire.js';
import { reportError } from '../core/errors.js';
import { buildFlow, type Flow, type FlowDefinition, type Transition } from '../flows/flow.js';

export type { FlowDefinition } from '../flows/flow.js';

/** Flow definitions by slug: the latest version of each flow's content the script holds. */
export const $flowDefinitions = atom<Record<string, FlowDefinition>>({});

/** The current user's state in every eligible flow, by slug: the service's last answer with pending writes applied. */
export const $flowStates = atom<Record<string, FlowState>>({});

/** Where the current user stands in each collection (`collections.computedOrder` of the last answer), in priority order. */
export const $collections = atom<ComputedCollectionFlow[]>([]);

/** The start rule (`startWhen`) a flow waits for: its pages, an element, a click, or its delay. */
export type StartWait = 'page' | 'element' | 'click' | 'delay';

/**
 * Eligible flows the page's start rules (`startWhen`) hold back now: closed, their state unchanged (page/start-rules.ts).
 * Once the rules run, a Map to the rule each flow waits for; while they load, a Set of the flows that have rules (a
 * Set, as the script that loads them keeps no reasons: each byte of it is every page's).
 */
export const $held = atom<ReadonlySet<string> | ReadonlyMap<string, StartWait>>(new Set());

/** Slugs the current user is not eligible for. */
export const $ineligibleFlows = atom<string[]>([]);

/** The current user's ID: `guest_…` or a real ID. */
export const $userId = atom<string | null>(null);

const done = Promise.resolve();

/** The slot the core injects its transition function through at init: what every Flow and Step action runs. */
export const $transitionSlot = atom<Transition>(() => done);

type Built = { definition: FlowDefinition; state: FlowState; transition: Transition; held: boolean; flow: Flow };
let built: Record<string, Built> = {};

/**
 * Eligible flows, joined: one Flow object per slug that has both a definition and a state. A flow whose
 * definition and state are the same objects as last time keeps its Flow object, so one click rebuilds one flow.
 * An atom its sources keep up to date, not a `computed`: that would bring nanostores' lifecycle code into every
 * page's script for this one store.
 */
export const $flows = atom<Record<string, Flow>>({});

function join(): void {
  const definitions = $flowDefinitions.get();
  const states = $flowStates.get();
  const transition = $transitionSlot.get();
  const holding = $held.get();
  const flows: Record<string, Flow> = {};
  const next: Record<string, Built> = {};
  for (const slug in states) {
    const definition = definitions[slug];
    const state = states[slug];
    if (!definition) continue;
    const known = built[slug];
    const held = holding.has(slug);
    if (
      known &&
      known.definition === definition &&
      known.state === state &&
      known.transition === transition &&
      known.held === held
    ) {
      next[slug] = known;
      flows[slug] = known.flow;
      continue;
    }
    try {
      const flow = buildFlow(definition, state, transition);
      // Held back by its start rules: not visible here, whatever the service says; its state is not touched.
      if (held) flow.isVisible = false;
      next[slug] = { definition, state, transition, held, flow };
      flows[slug] = flow;
    } catch (error) {
      // The guards keep such a definition out; should one get past them, it is left out, not thrown at the page.
      reportError('render-failed', error);
    }
  }
  built = next;
  $flows.set(flows);
}

// Registered before any other listener, so whoever hears a source change finds $flows joined already.
for (const source of [$flowDefinitions, $flowStates, $transitionSlot, $held]) source.listen(join);
