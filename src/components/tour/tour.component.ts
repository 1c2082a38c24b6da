// <onboarding-tour>: a TOUR flow's steps anchored to page elements, in the top layer, positioned with floating-ui.
import { html, nothing, type PropertyValues } from 'lit';
import { emit } from '../shared/events.js';
import { deepActiveElement, ModalSlot } from '../shared/modal-slot.js';
import { cover } from '../shared/modal-queue.js';
import { AnchoredElement } from '../targets/anchored-element.js';
import { runAction } from '../shared/actions.js';
import baseStyles from '../shared/base.styles.js';
import { anchor, followIntoDialog, raise, reveal } from '../targets/anchor.js';
import { TargetController } from '../targets/target-controller.js';
import { watchTarget } from '../../page/watch.js';
import tooltipStyles from '../targets/tooltip.styles.js';
import styles from './tour.styles.js';

/**
 * @summary A TOUR flow: each step points at the element its `selector` finds, in a popover in the top layer, so it is
 * never under the page's stacking contexts (inside an open modal `<dialog>` when the target is). Positioned with
 * floating-ui (flip, shift, arrow, auto-update), clear of fixed headers; the target is scrolled into view through every
 * scrolling ancestor. Selectors reach into open shadow roots and same-origin frames (`host-el >>> .inner`,
 * `iframe#editor >>> .toolbar`). The target is watched for as the page changes: late, re-rendered, hidden and back. One
 * missing for `props.targetTimeout` ms (default 5000) raises `onboarding-target-missing`; then the step is skipped
 * (`props.missingTarget: skip`) or the tour stays hidden until it comes (`hide`, the default). A step with `page` shows
 * only on that page and waits on others. `advanceOn: click` moves on when the user clicks the target, `advanceOn:
 * { appears: selector }` when that element appears. `props.overlay` dims the page and `props.spotlight` all but the
 * target; both block clicks on the page but on the target (on nothing with `canClickTarget: false`). Keys: → next,
 * ← back (mirrored in RTL), Esc dismisses. A step without a selector is centred. The tour resumes after reload at the
 * step the user reached.
 * @tag onboarding-tour
 *
 * @event onboarding-action - Before Next, Back, a button, a key or dismiss runs its action; cancel it to veto or take over.
 * @event onboarding-show - The tour popover opened.
 * @event onboarding-hide - The tour popover closed.
 * @event onboarding-step-change - The flow or current step changed.
 * @event onboarding-target-missing - A step's target stayed missing for its timeout.
 *
 * @csspart base - The tooltip popover.
 * @csspart arrow - The arrow pointing at the target.
 * @csspart overlay - The dimming overlay (with `props.overlay` or `props.spotlight`); it takes the page's clicks but the target's.
 * @csspart spotlight - The clear area around the target (with `props.spotlight`).
 * @csspart counter - The "Step n of m" text.
 * @csspart title - The step title.
 * @csspart subtitle - The step text.
 * @csspart media - The step's image or video.
 * @csspart actions - The button row.
 * @csspart primary-button - Next, Done, or the step's primary button.
 * @csspart secondary-button - Back, or the step's secondary button.
 * @csspart close-button - The dismiss button.
 *
 * @cssproperty --onboarding-surface - Background of the tooltip and its arrow.
 * @cssproperty --onboarding-text - Text colour.
 * @cssproperty --onboarding-muted - Secondary text colour.
 * @cssproperty --onboarding-border - Border colour.
 * @cssproperty --onboarding-accent - Button colour.
 * @cssproperty --onboarding-radius - Corner radius.
 * @cssproperty --onboarding-font - Font shorthand.
 * @cssproperty --onboarding-shadow - Tooltip shadow.
 * @cssproperty --onboarding-backdrop - Overlay and spotlight dimming colour.
 * @cssproperty --onboarding-tour-width - Tooltip width.
 */
export class OnboardingTour extends AnchoredElement {
  static override styles = [baseStyles, tooltipStyles, styles];

  readonly #targets = new TargetController(this, () => {
    const flow = this.activeFlow;
    if (this.#option('missingTarget') !== 'skip' || !flow) return;
    const step = flow.currentStep;
    const proceed = emit(
      this,
      'onboarding-action',
      { flowSlug: flow.slug, stepId: step?.id, action: 'step.skip', trigger: 'timeout' },
      true,
    );
    if (proceed) void runAction(flow, step, 'step.skip');
  });
  readonly #modal: ModalSlot = new ModalSlot(this, 'TOUR', (): { slug: string; priority: unknown } | undefined => {
    const flow = this.activeFlow;
    if (!flow?.currentStep || this.#targets.missing || this.#targets.offPage) return undefined;
    // The slot is kept between steps, so nothing else opens while the next target is awaited.
    return this.#targets.target !== undefined || this.#modal.granted
      ? { slug: flow.slug, priority: flow.data.props?.priority }
      : undefined;
  });
  #stopAnchor: (() => void) | undefined;
  #stopAdvance: (() => void) | undefined;
  /** The target and step the tooltip is anchored for; another of either anchors it afresh. */
  #anchored: [Element | null | undefined, string] = [undefined, ''];
  #returnFocus: HTMLElement | null = null;
  #opened = '';

  protected override released(): void {
    this.#detach();
    this.#opened = '';
    cover(this, 0);
  }

  protected override isShowing(): boolean {
    return this.#modal.granted && this.#targets.target !== undefined && super.isShowing();
  }

  protected override willUpdate(changed: PropertyValues): void {
    super.willUpdate(changed);
    const flow = this.activeFlow;
    const step = flow?.currentStep;
    this.#targets.follow(flow && step ? this.targetStep(flow, step) : undefined);
    if (this.#targets.target !== this.#anchored[0] || this.#stepKey() !== this.#anchored[1]) this.#detach();
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    const tooltip = this.find<HTMLElement>('[part="base"]');
    if (tooltip && !this.#stopAnchor) {
      if (!this.#opened) this.#returnFocus = deepActiveElement();
      this.#attach(tooltip);
      tooltip.focus({ preventScroll: true });
      if (!this.#opened) {
        this.#opened = this.activeFlow!.slug;
        emit(this, 'onboarding-show', { flowSlug: this.#opened });
      }
    } else if (!tooltip && this.#opened) {
      this.#detach();
      followIntoDialog(this, null);
      const slug = this.#opened;
      this.#opened = '';
      if (this.#returnFocus?.isConnected) this.#returnFocus.focus({ preventScroll: true });
      this.#returnFocus = null;
      emit(this, 'onboarding-hide', { flowSlug: slug });
    }
    // An overlay makes the tour modal: other flows' beacons yield to it.
    cover(this, this.find('.overlay'));
  }

  /** An option of the current step, else of the flow. */
  #option(name: string): unknown {
    return this.option(this.activeFlow?.currentStep, name);
  }

  /** Anchors the tooltip to the target (or centres it), in the dialog that holds the target, above all else. */
  #attach(tooltip: HTMLElement): void {
    const target = this.#targets.target ?? null;
    this.#anchored = [target, this.#stepKey()];
    followIntoDialog(this, target);
    const overlay = this.find<HTMLElement>('[part="overlay"]');
    if (overlay) raise(overlay);
    raise(tooltip);
    this.#advanceOn(target);
    // The blocker takes every click on the page, until the step's target (if it may be clicked) has its hole.
    const blocker = this.find<HTMLElement>('.blocker');
    if (blocker) blocker.style.clipPath = '';
    if (!target) {
      // A centred step: the same tooltip may have been anchored a step ago.
      tooltip.style.left = tooltip.style.top = '';
      delete tooltip.dataset.placement;
      this.#stopAnchor = () => {};
      return;
    }
    reveal(target);
    const spotlight = this.find<HTMLElement>('[part="spotlight"]');
    const clickable = this.#option('canClickTarget') !== false;
    this.#stopAnchor = anchor(target, tooltip, {
      placement: this.#option('placement'),
      arrow: this.find<HTMLElement>('[part="arrow"]'),
      placed: (rect) => {
        const x = rect.left - 4;
        const y = rect.top - 4;
        const w = rect.width + 8;
        const h = rect.height + 8;
        if (spotlight) {
          spotlight.style.left = `${x}px`;
          spotlight.style.top = `${y}px`;
          spotlight.style.width = `${w}px`;
          spotlight.style.height = `${h}px`;
        }
        // The blocker takes the page's clicks, but for a hole where the target is.
        if (blocker && clickable)
          blocker.style.clipPath = `polygon(evenodd,0 0,100% 0,100% 100%,0 100%,0 0,${x}px ${y}px,${x + w}px ${y}px,${x + w}px ${y + h}px,${x}px ${y + h}px,${x}px ${y}px)`;
      },
    });
  }

  /** Moves on when the user clicks the target (`advanceOn: click`) or an element appears (`advanceOn: { appears }`). */
  #advanceOn(target: Element | null): void {
    const rule = this.activeFlow?.currentStep?.advanceOn as 'click' | { appears?: unknown } | undefined;
    const forward = (trigger: 'target' | 'appears') => this.act('flow.forward', trigger);
    if (rule === 'click' && target) {
      const onClick = () => forward('target');
      target.addEventListener('click', onClick, { capture: true });
      this.#stopAdvance = () => target.removeEventListener('click', onClick, { capture: true });
    } else if (rule && typeof rule === 'object' && typeof rule.appears === 'string') {
      this.#stopAdvance = watchTarget(rule.appears, (found) => found && forward('appears'));
    }
  }

  #detach(): void {
    this.#stopAnchor?.();
    this.#stopAnchor = undefined;
    this.#stopAdvance?.();
    this.#stopAdvance = undefined;
    this.#anchored = [undefined, ''];
  }

  #stepKey(): string {
    const flow = this.activeFlow;
    return flow?.currentStep ? `${flow.slug}:${flow.currentStep.id}` : '';
  }

  #onKeydown(event: KeyboardEvent): void {
    const flow = this.activeFlow;
    if (!flow) return;
    const rtl = getComputedStyle(this).direction === 'rtl';
    const forward = rtl ? 'ArrowLeft' : 'ArrowRight';
    const backward = rtl ? 'ArrowRight' : 'ArrowLeft';
    const steps = this.visibleSteps(flow);
    const first = steps[0]?.id === flow.currentStep?.id;
    if (event.key === 'Escape') {
      event.preventDefault();
      if (flow.data.props?.dismissible !== false) this.act('flow.skip', 'escape');
    } else if (event.key === forward && !(event.target instanceof HTMLInputElement)) {
      event.preventDefault();
      this.act('flow.forward', 'key');
    } else if (event.key === backward && !first) {
      event.preventDefault();
      this.act('flow.back', 'key');
    }
  }

  override render() {
    const flow = this.activeFlow;
    const step = flow?.currentStep;
    const target = this.#targets.target;
    if (!flow || !step || target === undefined || !this.#modal.granted) return nothing;
    const steps = this.visibleSteps(flow);
    const n = steps.findIndex((s) => s.id === step.id) + 1;
    const m = steps.length;
    const spotlight = this.#option('spotlight') === true && target;
    const overlay = spotlight || this.#option('overlay') === true;
    return html`${
        overlay
          ? html`<div
              part="overlay"
              class="overlay ${spotlight ? 'with-spotlight' : ''}"
              popover="manual"
              aria-hidden="true"
            >
              ${spotlight ? html`<div part="spotlight" class="spotlight"></div>` : nothing}
              <div class="blocker"></div>
            </div>`
          : nothing
      }
      <div
        part="base"
        class="surface tooltip ${target ? 'anchored' : 'centred'}"
        popover="manual"
        role="dialog"
        aria-labelledby="title"
        aria-describedby="body"
        tabindex="-1"
        @keydown=${this.#onKeydown}
      >
        ${target ? html`<div part="arrow" class="arrow"></div>` : nothing}
        <div class="content">
          <div class="head">
            <span part="counter" class="counter">${this.t('stepOf', { n, m })}</span>
            ${this.renderClose(flow)}
          </div>
          ${this.renderMedia(step)}
          <h2 part="title" id="title" class="title">${step.title ? this.rich(step.title) : flow.name}</h2>
          <div part="subtitle" id="body" class="text">${this.rich(step.subtitle)}</div>
          <div part="actions" class="actions">
            ${
              step.secondaryButton
                ? this.renderButton(step.secondaryButton, 'secondary', { fallbackAction: 'flow.back' })
                : n > 1
                  ? this.renderButton(undefined, 'secondary', {
                      fallbackTitle: this.t('back'),
                      fallbackAction: 'flow.back',
                    })
                  : nothing
            }
            ${this.renderButton(step.primaryButton, 'primary', { fallbackTitle: this.t(n < m ? 'next' : 'done'), fallbackAction: 'flow.forward' })}
          </div>
        </div>
      </div>`;
  }
}
