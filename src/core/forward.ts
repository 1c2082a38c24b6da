// Forwards flow, step and experiment events to PostHog (posthog.capture) or Segment (analytics.track) on the page, only when init({ forward }) asks.
import type {
  Emitter,
  ExperimentExposedEvent,
  FlowEventName,
  OnboardingEventName,
  StepEvent,
  StepEventName,
} from './events.js';

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

const EXPOSED = 'experiment.exposed';
/** localStorage key of the exposures this browser forwarded: "<experiment> <exposedAt>" lines, the newest first. */
export const FORWARDED_KEY = 'onboarding:forwarded-exposures';
/** How many forwarded exposures are remembered, the oldest dropped first: far more than a browser sees. */
const REMEMBERED = 100;

/**
 * Subscribes to the SDK's events and sends each to the targets on the page, with `flowSlug`, `flowVersion`
 * and `stepId`, or an exposure's `experimentId` and `variant`. A library not on the page is skipped at each event, so
 * one loaded later still gets them. `early` are events emitted before this ran (while the script tag loaded it), sent
 * first, in order.
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
  const handlers: Partial<Record<string, (event: never) => void>> = {};
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
  // The page announces an exposure once per user; this sends it once per browser, reloads and a linked guest's user
  // included (one exposure keeps its time). Storage that throws remembers for this page only.
  let remembered = '';
  on(
    EXPOSED,
    (handlers[EXPOSED] = ({ experiment, variant, exposedAt }: ExperimentExposedEvent) => {
      const key = `${experiment} ${exposedAt}`;
      try {
        remembered = localStorage.getItem(FORWARDED_KEY) ?? remembered;
      } catch {
        // Unreadable: this page's memory decides.
      }
      const sent = remembered ? remembered.split('\n') : [];
      if (sent.includes(key)) return;
      remembered = [key, ...sent].slice(0, REMEMBERED).join('\n');
      try {
        localStorage.setItem(FORWARDED_KEY, remembered);
      } catch {
        // Full or disabled: remembered for this page.
      }
      send(EXPOSED, { experimentId: experiment, variant });
    }),
  );
  for (const [name, event] of early) handlers[name]?.(event as never);
}
