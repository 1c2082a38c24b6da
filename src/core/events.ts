// SDK events: `on(name, handler)` subscriptions, and the flow and step events read off a state change.
import type { FlowState, TargetMissingProperties } from '../api/wire.js';
import type { Flow, Step } from '../flows/flow.js';

export type FlowEventName = 'flow.start' | 'flow.complete' | 'flow.skip' | 'flow.restart';
export type StepEventName = 'step.start' | 'step.complete' | 'step.skip' | 'step.reset';

export interface FlowEvent {
  flow: Flow;
}
export interface StepEvent {
  flow: Flow;
  step: Step;
}
export interface ChangeEvent {
  /** Every eligible flow, by slug, after the change. */
  flows: Record<string, Flow>;
}
/** A step's target (`selector`) stayed missing for its timeout on a page; also recorded with the flow's analytics. */
export type TargetMissingEvent = TargetMissingProperties;
export interface OnboardingErrorEvent {
  /** A short stable code, e.g. `write-refused`, `load-failed`. */
  code: string;
  error: unknown;
}

/**
 * The service put the user in an experiment (a state answer lists it); raised once per page for each user and
 * experiment.
 */
export interface ExperimentExposedEvent {
  /** The experiment's id in experiments.yaml. */
  experiment: string;
  /** The variant the user is in. */
  variant: string;
  /** When the service recorded the exposure (ISO 8601); a guest's stays with the user it is linked to. */
  exposedAt: string;
}

/** The resource centre opened or closed, or its unread count changed. */
export interface ResourceCenterChange {
  /** Whether its panel is open. */
  open: boolean;
  /** Its badge: unread announcements plus open checklist tasks. */
  unread: number;
}

export type OnboardingEventMap = { [name in FlowEventName]: FlowEvent } & { [name in StepEventName]: StepEvent } & {
  change: ChangeEvent;
  error: OnboardingErrorEvent;
  'target-missing': TargetMissingEvent;
  'resource-center': ResourceCenterChange;
  'experiment.exposed': ExperimentExposedEvent;
};
export type OnboardingEventName = keyof OnboardingEventMap;

export interface Emitter {
  on<N extends OnboardingEventName>(name: N, handler: (event: OnboardingEventMap[N]) => void): () => void;
  emit<N extends OnboardingEventName>(name: N, event: OnboardingEventMap[N]): void;
}

export function createEmitter(onHandlerError: (error: unknown, name: string) => void): Emitter {
  const handlers = new Map<string, Set<(event: never) => void>>();
  return {
    on(name, handler) {
      let set = handlers.get(name);
      if (!set) handlers.set(name, (set = new Set()));
      set.add(handler);
      return () => void set.delete(handler);
    },
    emit(name, event) {
      for (const handler of [...(handlers.get(name) ?? [])]) {
        try {
          (handler as (event: unknown) => void)(event);
        } catch (error) {
          // A failing handler must not stop the others, nor reach the code that changed the state.
          onHandlerError(error, name);
        }
      }
    },
  };
}

export interface StateChange {
  name: FlowEventName | StepEventName;
  slug: string;
  stepId?: string;
}

type Flags = { started: boolean; completed: boolean; skipped: boolean };
const touched = (s: Flags) => s.started || s.completed || s.skipped;

/** Flow and step events between two states of the same user; flows that appear or vanish raise none. */
export function diffFlowStates(previous: Record<string, FlowState>, next: Record<string, FlowState>): StateChange[] {
  const changes: StateChange[] = [];
  for (const [slug, after] of Object.entries(next)) {
    const before = previous[slug];
    // The same object: nothing in this flow changed (the view keeps unchanged flows' objects).
    if (!before || before === after) continue;
    const a = before.$state;
    const b = after.$state;
    const restarted = touched(a) && !touched(b);
    if (restarted) changes.push({ name: 'flow.restart', slug });
    if (!a.started && b.started) changes.push({ name: 'flow.start', slug });
    const stepsBefore = new Map(before.data.steps.map((step) => [step.id, step.$state]));
    for (const step of after.data.steps) {
      const x = stepsBefore.get(step.id);
      const y = step.$state;
      if (!x) continue;
      // A restart resets every step; it is one change, reported once as flow.restart.
      if (!restarted && touched(x) && !touched(y)) changes.push({ name: 'step.reset', slug, stepId: step.id });
      if (!x.started && y.started) changes.push({ name: 'step.start', slug, stepId: step.id });
      if (!x.completed && y.completed) changes.push({ name: 'step.complete', slug, stepId: step.id });
      if (!x.skipped && y.skipped) changes.push({ name: 'step.skip', slug, stepId: step.id });
    }
    if (!a.completed && b.completed) changes.push({ name: 'flow.complete', slug });
    if (!a.skipped && b.skipped) changes.push({ name: 'flow.skip', slug });
  }
  return changes;
}
