// How init forwards events to analytics tools (`forward`): the ESM build hands forward.ts over at once; the script tag's loads it from dist/onboarding-forward.js when init asks, keeping the events of the meantime.
import type { Emitter, OnboardingEventName } from './events.js';
import type { ForwardTarget } from './forward.js';

/** Where dist/onboarding-forward.js leaves forward.ts's forwardEvents for the script tag's build. */
export const FORWARD_CHUNK = Symbol.for('onboarding.forward');

/** Subscribes forwarding to the SDK's events; `early` are events emitted before it came, sent first, in order. */
export type Forwarder = (
  on: Emitter['on'],
  forward: ForwardTarget | ForwardTarget[],
  early?: Array<[OnboardingEventName, unknown]>,
) => void;

let forwarder: Forwarder | undefined;

/** Set by the ESM entry (forward.ts's forwardEvents) and by the script tag's chunk loader. */
export function setForwarder(given: Forwarder): void {
  forwarder = given;
}

/** Starts forwarding the SDK's events to `forward`. */
export const startForwarding: Forwarder = (on, forward) => forwarder?.(on, forward);
