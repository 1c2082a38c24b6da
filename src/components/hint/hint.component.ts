// <onboarding-hint>: a HINT flow as one pulsing beacon per open step, on its target; a beacon opens its step in a tooltip. Not modal.
import { html, nothing, type PropertyValues } from 'lit';
import baseStyles from '../shared/base.styles.js';
import { TargetSet } from '../targets/target-set.js';
import { HintBase } from './hint-base.js';
import tooltipStyles from '../targets/tooltip.styles.js';
import styles from './hint.styles.js';

/**
 * @summary A HINT flow: each open step (visible, not done, not blocked) puts a pulsing beacon on the element its
 * `selector` finds, all at once and independently, in the top layer (inside an open modal `<dialog>` when the target
 * is). The beacon is a button named "Hint: <title>"; it opens the step in a tooltip beside the target (the tour's look:
 * title, text, media, buttons, close, arrow), focus moving into it and back to the beacon. Escape, the close button and
 * the step's buttons (by default `step.complete`, "Got it") close it and record the step completed; once every step is
 * done or skipped the flow is completed. Selectors reach into open shadow roots and same-origin frames. A target missing
 * for `props.targetTimeout` ms (default 5000) raises `onboarding-target-missing`; its beacon then waits for it
 * (`props.missingTarget: hide`, the default) or the step is skipped (`skip`). A step with `page` shows only on that
 * page. Not modal: hints show beside everything else, but yield to a modal flow (an announcement, a tour with an
 * overlay): their beacons are hidden while it covers the page. The pulse stops under `prefers-reduced-motion`.
 * @tag onboarding-hint
 *
 * @event onboarding-action - Before a button, the close button, Escape or a missing target runs its action; cancel it to veto or take over.
 * @event onboarding-show - A hint's tooltip opened.
 * @event onboarding-hide - A hint's tooltip closed.
 * @event onboarding-step-change - The flow or current step changed.
 * @event onboarding-target-missing - A step's target stayed missing for its timeout.
 *
 * @csspart beacon - A step's beacon, the button that opens its tooltip.
 * @csspart base - The tooltip popover.
 * @csspart arrow - The arrow pointing at the target.
 * @csspart title - The step title.
 * @csspart subtitle - The step text.
 * @csspart media - The step's image or video.
 * @csspart actions - The button row.
 * @csspart primary-button - The step's primary button, or "Got it".
 * @csspart secondary-button - The step's secondary button.
 * @csspart close-button - The close button.
 *
 * @cssproperty --onboarding-beacon - Colour of the beacon (default: the accent colour).
 * @cssproperty --onboarding-surface - Background of the tooltip and its arrow.
 * @cssproperty --onboarding-text - Text colour.
 * @cssproperty --onboarding-muted - Secondary text colour.
 * @cssproperty --onboarding-border - Border colour.
 * @cssproperty --onboarding-accent - Beacon and button colour.
 * @cssproperty --onboarding-radius - Corner radius.
 * @cssproperty --onboarding-font - Font shorthand.
 * @cssproperty --onboarding-shadow - Tooltip shadow.
 * @cssproperty --onboarding-tooltip-width - Tooltip width.
 */
export class OnboardingHint extends HintBase {
  static override styles = [baseStyles, tooltipStyles, styles];

  readonly #targets = new TargetSet(this, ({ stepId }) => {
    const step = this.activeFlow?.steps.find((s) => s.id === stepId);
    if (step && this.option(step, 'missingTarget') === 'skip') this.act('step.skip', 'timeout', step);
  });

  protected override shownTargets(): Map<string, Element> {
    return this.#targets.found();
  }

  protected override willUpdate(changed: PropertyValues): void {
    super.willUpdate(changed);
    const flow = this.activeFlow;
    const open =
      flow?.steps.filter(({ state }) => state.visible && !state.completed && !state.skipped && !state.blocked) ?? [];
    this.#targets.follow(open.map((step) => this.targetStep(flow!, step)));
  }

  override render() {
    const flow = this.activeFlow;
    if (!flow || this.covered.value) return nothing;
    const found = this.#targets.found();
    const steps = flow.steps.filter((step) => found.has(step.id));
    const open = steps.find((step) => step.id === this.opened);
    return html`${steps.map((step) => this.renderBeacon(flow, step))}${open ? this.renderTooltip(flow, open, true, this.t('gotIt')) : nothing}`;
  }
}
