// Keeps one TargetController per step of an element that points at several targets at once (a hint's beacons).
import type { ReactiveControllerHost } from 'lit';
import { TargetController, type TargetStep } from './target-controller.js';

export class TargetSet {
  readonly #controllers = new Map<string, TargetController>();

  constructor(
    private readonly host: ReactiveControllerHost & HTMLElement,
    /** Called when a step's target is found missing, after the `onboarding-target-missing` event. */
    private readonly onMissing: (step: TargetStep) => void = () => {},
  ) {}

  /** Follows exactly `steps`: each new one gets a controller, each gone one stops. The same steps again change nothing. */
  follow(steps: TargetStep[]): void {
    const ids = new Set(steps.map((step) => step.stepId));
    for (const [id, controller] of this.#controllers) {
      if (ids.has(id)) continue;
      this.host.removeController(controller);
      controller.hostDisconnected();
      this.#controllers.delete(id);
    }
    for (const step of steps) {
      let controller = this.#controllers.get(step.stepId);
      if (!controller)
        this.#controllers.set(step.stepId, (controller = new TargetController(this.host, this.onMissing)));
      controller.follow(step);
    }
  }

  /** The targets found now, by step id (steps whose target is awaited, missing or on another page are not in it). */
  found(): Map<string, Element> {
    const found = new Map<string, Element>();
    for (const [id, controller] of this.#controllers) if (controller.target) found.set(id, controller.target);
    return found;
  }
}
