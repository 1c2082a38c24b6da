// The base of the elements that point at page elements (tour, hint, tooltip): one that can be moved into a dialog and back without losing its state.
import { OnboardingElement } from '../shared/onboarding-element.js';

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
}
