// How Onboarding.debug() reaches its code (debug.ts): the ESM build hands it over at once; the script tag's loads dist/onboarding-debug.js on the first call, which hands it over as it runs.

/** What a flow waits for on this page, as `Onboarding.debug()` reports it. */
export type WaitingFor = 'page' | 'element' | 'click' | 'delay' | 'target' | 'modal';

/** One flow the script holds, as `Onboarding.debug()` reports it. */
export interface FlowDebug {
  flowSlug: string;
  /** The flow's `$state.visible` as the service sent it: false when targeted out, finished or held back (collection, limit). */
  visible: boolean;
  /** Whether an element draws the flow on this page now. */
  open: boolean;
  /** What it waits for on this page; null when it is open, or when nothing in the page holds it back. */
  waitingFor: WaitingFor | null;
}

export interface DebugOptions {
  /** Also prints the flows with `console.table`. @default false */
  log?: boolean;
}

export type Debugger = (options?: DebugOptions) => Promise<FlowDebug[]>;

/** Why each flow is or is not open on this page. Never rejects. */
export let debugFlows: Debugger;

/** Set by the ESM entry (debug.ts's explainFlows), by the script tag's chunk loader, and by the chunk as it runs. */
export function setDebugger(given: Debugger): void {
  debugFlows = given;
}
