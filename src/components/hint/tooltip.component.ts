// <onboarding-tooltip>: a TOOLTIP flow's step anchored to its target, opened by hovering or focusing the target, or by a beacon. Not modal.
import { html, nothing, type PropertyValues } from 'lit';
import type { Step } from '../../flows/flow.js';
import baseStyles from '../shared/base.styles.js';
import { describeTarget, HoverIntent } from '../targets/hover.js';
import { TargetController } from '../targets/target-controller.js';
import { HintBase } from './hint-base.js';
import tooltipStyles from '../targets/tooltip.styles.js';
import styles from './hint.styles.js';

/**
 * @summary A TOOLTIP flow: its step anchored to the element its `selector` finds, in the top layer. With
 * `props.trigger: hover` (the default) it opens while the pointer or focus is on the target or on the tooltip, and
 * closes a moment after both leave, or on Escape; its text is the target's accessible description (`aria-description`).
 * A step without buttons is a `role="tooltip"`; one with buttons is a non-modal dialog that Tab on the target moves
 * into. With `trigger: beacon` a pulsing beacon on the target opens it, as a hint's does, and Escape closes it. The
 * close button and the buttons (by default `step.complete`), and Escape in beacon mode, record the step and so the flow
 * completed. A target missing for `props.targetTimeout` ms (default 5000) raises `onboarding-target-missing`; then the
 * tooltip waits for it (`props.missingTarget: hide`) or its step is skipped (`skip`). Not modal.
 * @tag onboarding-tooltip
 *
 * @event onboarding-action - Before a button, the close button or Escape runs its action; cancel it to veto or take over.
 * @event onboarding-show - The tooltip opened.
 * @event onboarding-hide - The tooltip closed.
 * @event onboarding-step-change - The flow or current step changed.
 * @event onboarding-target-missing - The target stayed missing for its timeout.
 *
 * @csspart beacon - The beacon that opens the tooltip (`trigger: beacon`).
 * @csspart base - The tooltip popover.
 * @csspart arrow - The arrow pointing at the target.
 * @csspart title - The step title.
 * @csspart subtitle - The step text.
 * @csspart media - The step's image or video.
 * @csspart actions - The button row.
 * @csspart primary-button - The step's primary button.
 * @csspart secondary-button - The step's secondary button.
 * @csspart close-button - The close button (when the tooltip has buttons or a beacon).
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
export class OnboardingTooltip extends HintBase {
  static override styles = [baseStyles, tooltipStyles, styles];

  readonly #target = new TargetController(this, () => {
    const step = this.activeFlow?.currentStep;
    if (step && this.option(step, 'missingTarget') === 'skip') this.act('step.skip', 'timeout', step);
  });
  readonly #hover = new HoverIntent(
    (open) => (open ? this.openStep(this.activeFlow?.currentStep?.id ?? '', null) : this.closeStep()),
    () => this.#hasButtons(this.activeFlow?.currentStep) && this.focusTooltip(this.#target.target ?? null),
  );
  #described: [Element | undefined, string] = [undefined, ''];
  #undescribe = () => {};

  protected override released(): void {
    super.released();
    this.#hover.watch(undefined);
    this.#describe(undefined, '');
  }

  protected override shownTargets(): Map<string, Element> {
    const step = this.activeFlow?.currentStep;
    const target = this.#target.target;
    return new Map(step && target ? [[step.id, target]] : []);
  }

  protected override willUpdate(changed: PropertyValues): void {
    super.willUpdate(changed);
    const flow = this.activeFlow;
    const step = flow?.currentStep;
    this.#target.follow(flow && step ? this.targetStep(flow, step) : undefined);
    this.#hover.watch((step && !this.#beacon(step) && this.#target.target) || undefined);
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    const step = this.activeFlow?.currentStep;
    const hovered = (step && !this.#beacon(step) && this.#target.target) || undefined;
    this.#describe(hovered, step ? [this.plain(step.title), this.plain(step.subtitle)].filter(Boolean).join(': ') : '');
  }

  protected override escape(): void {
    const step = this.activeFlow?.currentStep;
    if (step && this.#beacon(step)) super.escape();
    else this.#hover.dismiss();
  }

  protected override tooltipHover(event: Event): void {
    const step = this.activeFlow?.currentStep;
    if (step && !this.#beacon(step)) this.#hover.handleEvent(event);
  }

  #beacon(step: Step): boolean {
    return this.option(step, 'trigger') === 'beacon';
  }

  #hasButtons(step: Step | undefined): boolean {
    return Boolean(step?.primaryButton || step?.secondaryButton);
  }

  /** Describes the hovered target by the tooltip's text (the same target and text again change nothing). */
  #describe(target: Element | undefined, text: string): void {
    if (target === this.#described[0] && text === this.#described[1]) return;
    this.#undescribe();
    this.#described = [target, text];
    this.#undescribe = target ? describeTarget(target, text) : () => {};
  }

  override render() {
    const flow = this.activeFlow;
    const step = flow?.currentStep;
    if (!flow || !step || !this.#target.target || this.covered.value) return nothing;
    const beacon = this.#beacon(step);
    return html`${beacon ? this.renderBeacon(flow, step) : nothing}${
      this.opened === step.id ? this.renderTooltip(flow, step, beacon || this.#hasButtons(step)) : nothing
    }`;
  }
}
