// Forwards flow and step events to PostHog (posthog.capture) or Segment (analytics.track) on the page, only when init({ forward }) asks.
import type { Emitter, FlowEventName, OnboardingEventName, StepEvent, StepEventName } from './events.js';

/** Where `init({ forward })` sends events: the analytics library's global must be on the page. */
export type ForwardTarget = 'posthog' | 'segment';

/** Our SDK event → the event name sent, the service's webhook names (so every stream lines up). */
const NAMES: Partial<Record<FlowEventName | StepEventName, string>> = {
  'flow.start': 'flow.started',
  'flow.complete': 'flow.completed',
  'flow.skip': 'flow.skipped',
  'step.complete': 'step.completed',
  'step.skip': 'step.skipped',
};

/** A completed step of these flow types is also sent under this name. Answers stay out: they may be personal. */
const ANSWERED: Record<string, string> = { FORM: 'form.submitted', SURVEY: 'survey.answered' };

/**
 * Subscribes to the SDK's events and sends each to the targets on the page, with `flowSlug`, `flowVersion`
 * and `stepId`. A library not on the page is skipped at each event, so one loaded later still gets them. `early` are
 * events emitted before this ran (while the script tag loaded it), sent first, in order.
 */
export function forwardEvents(
  on: Emitter['on'],
  forward: ForwardTarget | ForwardTarget[],
  early: Array<[OnboardingEventName, unknown]> = [],
): void {
  const targets = ([] as string[]).concat(forward);
  const send = (name: string, properties: Record<string, unknown>) => {
    const w = window as {
      posthog?: { capture?(n: string, p: object): void };
      analytics?: { track?(n: string, p: object): void };
    };
    if (targets.includes('posthog')) w.posthog?.capture?.(name, properties);
    if (targets.includes('segment')) w.analytics?.track?.(name, properties);
  };
  const handlers: Partial<Record<string, (event: Partial<StepEvent>) => void>> = {};
  for (const [event, name] of Object.entries(NAMES)) {
    on(
      event as StepEventName,
      (handlers[event] = ({ flow, step }: Partial<StepEvent>) => {
        // A flow event has no step: stepId is left undefined, which JSON leaves out.
        const properties = { flowSlug: flow!.slug, flowVersion: flow!.version, stepId: step?.id };
        send(name, properties);
        const answered = event === 'step.complete' && ANSWERED[flow!.type];
        if (answered) send(answered, properties);
      }),
    );
  }
  for (const [name, event] of early) handlers[name]?.(event as Partial<StepEvent>);
}
