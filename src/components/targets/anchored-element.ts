// The base of the elements that point at page elements (tour, hint, tooltip): their options, the step their target controller follows, and a move into a dialog and back that keeps their state.
import type { Flow, Step } from '../../flows/flow.js';
import { OnboardingElement } from '../shared/onboarding-element.js';
import type { TargetStep } from './target-controller.js';

/**
 * An OnboardingElement that `followIntoDialog` may move: while `moving`, its connect and disconnect callbacks ignore
 * the move (and with `moveBefore` they are not called at all), so its controllers, its place in the modal queue and
 * its open popovers stay as they were. A real removal calls `released()`.
 */
export class AnchoredElement extends OnboardingElement {
  /** Set while the element is moved into or out of a dialog. */
  moving = false;

  override connectedCallback(): void {
    if (!this.moving) super.connectedCallback();
  }

  override disconnectedCallback(): void {
    if (this.moving) return;
    super.disconnectedCallback();
    this.released();
  }

  /** Moved with `moveBefore`: nothing to do, the element keeps its state. */
  connectedMoveCallback(): void {}

  /** The element was removed from the page (not moved): stop following targets. */
  protected released(): void {}

  /** A presentation option (`placement`, `targetTimeout`, `missingTarget`, …): the step's, else the flow's. */
  protected option(step: Step | undefined, name: string): unknown {
    return step?.props?.[name] ?? this.currentFlow?.data.props?.[name];
  }

  /** What a TargetController follows for `step`. */
  protected targetStep(flow: Flow, step: Step): TargetStep {
    return {
      flowSlug: flow.slug,
      stepId: step.id,
      selector: step.selector,
      page: step.page,
      timeout: Number(this.option(step, 'targetTimeout') ?? 5000),
    };
  }
}
