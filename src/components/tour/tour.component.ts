// <onboarding-tour>: a TOUR flow's steps anchored to page elements, in the top layer, positioned with floating-ui.
import { html, nothing, type PropertyValues } from 'lit';
import { arrow, autoUpdate, computePosition, flip, offset, shift, type Placement } from '@floating-ui/dom';
import { emit } from '../shared/events.js';
import { deepActiveElement, ModalSlot } from '../shared/modal-slot.js';
import { OnboardingElement } from '../shared/onboarding-element.js';
import { runAction } from '../shared/actions.js';
import baseStyles from '../shared/base.styles.js';
import { deepQuery } from './deep-query.js';
import styles from './tour.styles.js';

const PLACEMENTS = new Set(['top', 'bottom', 'left', 'right', 'top-start', 'top-end', 'bottom-start', 'bottom-end', 'left-start', 'left-end', 'right-start', 'right-end']);
const POLL_MS = 150;

function showPopover(element: HTMLElement): void {
  try {
    if (!element.matches(':popover-open')) element.showPopover();
  } catch {
    // Without the Popover API the styles keep the element fixed and on top instead.
  }
}

/**
 * @summary A TOUR flow: each step points at the element its `selector` finds, in a popover in the top layer, so it is
 * never under the page's stacking contexts. Positioned with floating-ui (flip, shift, arrow, auto-update); the target
 * is scrolled into view. Selectors reach into open shadow roots (`host-el >>> .inner`, or searched automatically).
 * A target that is not there yet is waited for (`props.targetTimeout` ms, default 5000); then the step is skipped
 * (`props.missingTarget: skip`) or the tour stays hidden (`hide`, the default). `props.overlay` dims the page and
 * `props.spotlight` dims all but the target. Keys: → next, ← back (mirrored in RTL), Esc dismisses. A step without
 * a selector is centred. The tour resumes after reload at the step the user reached.
 * @tag onboarding-tour
 *
 * @event onboarding-action - Before Next, Back, a button, a key or dismiss runs its action; cancel it to veto or take over.
 * @event onboarding-show - The tour popover opened.
 * @event onboarding-hide - The tour popover closed.
 * @event onboarding-step-change - The flow or current step changed.
 *
 * @csspart base - The tooltip popover.
 * @csspart arrow - The arrow pointing at the target.
 * @csspart overlay - The dimming overlay (with `props.overlay` or `props.spotlight`).
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
export class OnboardingTour extends OnboardingElement {
  static override styles = [baseStyles, styles];
  static override properties = { target: { state: true }, missing: { state: true } };

  readonly #modal: ModalSlot = new ModalSlot(this, 'TOUR', (): { slug: string; priority: unknown } | undefined => {
    const flow = this.activeFlow;
    if (!flow?.currentStep || this.missing) return undefined;
    // The slot is kept between steps, so nothing else opens while the next target is awaited.
    return this.target !== undefined || this.#modal.granted ? { slug: flow.slug, priority: flow.data.props?.priority } : undefined;
  });
  #stepKey = '';
  #poll: ReturnType<typeof setInterval> | undefined;
  #stopAutoUpdate: (() => void) | undefined;
  #returnFocus: HTMLElement | null = null;
  #opened = '';

  /** The step's target: an element, null for a centred step, undefined while it is awaited. */
  private target: Element | null | undefined;
  private missing = false;

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#stopWaiting();
    this.#detach();
    this.#stepKey = '';
    this.#opened = '';
  }

  protected override isShowing(): boolean {
    return this.#modal.granted && this.target !== undefined && super.isShowing();
  }

  protected override willUpdate(changed: PropertyValues): void {
    super.willUpdate(changed);
    const flow = this.activeFlow;
    const key = flow?.currentStep ? `${flow.slug}:${flow.currentStep.id}` : '';
    if (key === this.#stepKey) return;
    this.#stepKey = key;
    this.#stopWaiting();
    this.#detach();
    this.target = undefined;
    this.missing = false;
    if (key) this.#findTarget();
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    const tooltip = this.find<HTMLElement>('[part="base"]');
    if (tooltip && !this.#stopAutoUpdate) {
      if (!this.#opened) this.#returnFocus = deepActiveElement();
      const overlay = this.find<HTMLElement>('[part="overlay"]');
      if (overlay) showPopover(overlay);
      showPopover(tooltip);
      this.#attach(tooltip);
      tooltip.focus({ preventScroll: true });
      if (!this.#opened) {
        this.#opened = this.activeFlow!.slug;
        emit(this, 'onboarding-show', { flowSlug: this.#opened });
      }
    } else if (!tooltip && this.#opened) {
      this.#detach();
      const slug = this.#opened;
      this.#opened = '';
      if (this.#returnFocus?.isConnected) this.#returnFocus.focus({ preventScroll: true });
      this.#returnFocus = null;
      emit(this, 'onboarding-hide', { flowSlug: slug });
    }
  }

  #option(name: string): unknown {
    const step = this.activeFlow?.currentStep;
    return step?.props?.[name] ?? this.activeFlow?.data.props?.[name];
  }

  /** Looks for the target now and then every POLL_MS until it appears or the timeout passes. */
  #findTarget(): void {
    const selector = this.activeFlow?.currentStep?.selector;
    if (typeof selector !== 'string' || !selector.trim()) {
      this.target = null;
      return;
    }
    const timeout = Number(this.#option('targetTimeout') ?? 5000);
    const started = Date.now();
    const look = () => {
      const found = deepQuery(selector);
      if (found && found.getClientRects().length > 0) {
        this.#stopWaiting();
        this.target = found;
        this.missing = false;
      } else if (!this.missing && Date.now() - started >= timeout) {
        this.#onMissingTarget();
      }
    };
    look();
    if (this.target === undefined) this.#poll = setInterval(look, POLL_MS);
  }

  #onMissingTarget(): void {
    const flow = this.activeFlow;
    if (this.#option('missingTarget') === 'skip' && flow) {
      this.#stopWaiting();
      const step = flow.currentStep;
      const proceed = emit(this, 'onboarding-action', { flowSlug: flow.slug, stepId: step?.id, action: 'step.skip', trigger: 'timeout' }, true);
      if (proceed) void runAction(flow, step, 'step.skip');
      return;
    }
    // Hidden: the slot goes to others, and the target is still watched for in case it turns up later.
    this.missing = true;
  }

  #stopWaiting(): void {
    clearInterval(this.#poll);
    this.#poll = undefined;
  }

  #attach(tooltip: HTMLElement): void {
    const target = this.target;
    if (!target) {
      // A centred step: the same tooltip may have been anchored a step ago.
      tooltip.style.left = tooltip.style.top = '';
      delete tooltip.dataset.placement;
      this.#stopAutoUpdate = () => {};
      return;
    }
    const rect = target.getBoundingClientRect();
    if (rect.bottom < 0 || rect.top > innerHeight || rect.right < 0 || rect.left > innerWidth) {
      const reduce = matchMedia('(prefers-reduced-motion: reduce)').matches;
      target.scrollIntoView({ block: 'center', inline: 'nearest', behavior: reduce ? 'auto' : 'smooth' });
    }
    this.#stopAutoUpdate = autoUpdate(target, tooltip, () => void this.#position(target, tooltip));
  }

  #detach(): void {
    this.#stopAutoUpdate?.();
    this.#stopAutoUpdate = undefined;
  }

  async #position(target: Element, tooltip: HTMLElement): Promise<void> {
    if (!target.isConnected) {
      // The target went away (an SPA re-render): hide and wait for it again.
      this.#detach();
      this.target = undefined;
      this.#findTarget();
      return;
    }
    const requested = String(this.#option('placement') ?? 'bottom');
    const arrowElement = this.find<HTMLElement>('[part="arrow"]');
    const { x, y, placement, middlewareData } = await computePosition(target, tooltip, {
      strategy: 'fixed',
      placement: (PLACEMENTS.has(requested) ? requested : 'bottom') as Placement,
      middleware: [offset(12), flip({ padding: 8 }), shift({ padding: 8 }), ...(arrowElement ? [arrow({ element: arrowElement, padding: 8 })] : [])],
    });
    // CSSOM writes, not style attributes: they work under a CSP without 'unsafe-inline'.
    tooltip.style.left = `${x}px`;
    tooltip.style.top = `${y}px`;
    tooltip.dataset.placement = placement;
    if (arrowElement && middlewareData.arrow) {
      const side = placement.split('-')[0]!;
      const opposite = { top: 'bottom', bottom: 'top', left: 'right', right: 'left' }[side]!;
      arrowElement.style.left = middlewareData.arrow.x != null ? `${middlewareData.arrow.x}px` : '';
      arrowElement.style.top = middlewareData.arrow.y != null ? `${middlewareData.arrow.y}px` : '';
      arrowElement.style.right = arrowElement.style.bottom = '';
      arrowElement.style.setProperty(opposite, '-6px');
    }
    const spotlight = this.find<HTMLElement>('[part="spotlight"]');
    if (spotlight) {
      const rect = target.getBoundingClientRect();
      spotlight.style.left = `${rect.left - 4}px`;
      spotlight.style.top = `${rect.top - 4}px`;
      spotlight.style.width = `${rect.width + 8}px`;
      spotlight.style.height = `${rect.height + 8}px`;
    }
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
    if (!flow || !step || this.target === undefined || !this.#modal.granted) return nothing;
    const steps = this.visibleSteps(flow);
    const n = steps.findIndex((s) => s.id === step.id) + 1;
    const m = steps.length;
    const spotlight = this.#option('spotlight') === true && this.target;
    const overlay = spotlight || this.#option('overlay') === true;
    return html`${overlay
        ? html`<div part="overlay" class="overlay ${spotlight ? 'with-spotlight' : ''}" popover="manual" aria-hidden="true">
            ${spotlight ? html`<div part="spotlight" class="spotlight"></div>` : nothing}
          </div>`
        : nothing}
      <div
        part="base"
        class="surface tooltip ${this.target ? 'anchored' : 'centred'}"
        popover="manual"
        role="dialog"
        aria-labelledby="title"
        aria-describedby="body"
        tabindex="-1"
        @keydown=${this.#onKeydown}
      >
        ${this.target ? html`<div part="arrow" class="arrow"></div>` : nothing}
        <div class="content">
        <div class="head">
          <span part="counter" class="counter">${this.t('stepOf', { n, m })}</span>
          ${this.renderClose(flow)}
        </div>
        ${this.renderMedia(step)}
        <h2 part="title" id="title" class="title">${step.title ? this.rich(step.title) : flow.name}</h2>
        <div part="subtitle" id="body" class="text">${this.rich(step.subtitle)}</div>
        <div part="actions" class="actions">
          ${step.secondaryButton
            ? this.renderButton(step.secondaryButton, 'secondary', { fallbackAction: 'flow.back' })
            : n > 1
              ? this.renderButton(undefined, 'secondary', { fallbackTitle: this.t('back'), fallbackAction: 'flow.back' })
              : nothing}
          ${this.renderButton(step.primaryButton, 'primary', { fallbackTitle: this.t(n < m ? 'next' : 'done'), fallbackAction: 'flow.forward' })}
        </div>
        </div>
      </div>`;
  }
}
