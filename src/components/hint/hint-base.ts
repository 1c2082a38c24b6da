// What <onboarding-hint> and <onboarding-tooltip> share: beacons and a step's tooltip, anchored to their targets in the top layer, not modal.
import { html, nothing, type PropertyValues } from 'lit';
import type { Flow, Step } from '../../flows/flow.js';
import { emit, type ActionTrigger } from '../shared/events.js';
import { AnchoredElement } from '../targets/anchored-element.js';
import { anchor, followIntoDialog, modalDialogOf, raise, reveal } from '../targets/anchor.js';
import { HINT_STRINGS } from './hint.strings.js';
import { doc } from '../../page/document.js';
import { $covered } from '../shared/modal-queue.js';
import { StoreController } from '../shared/store-controller.js';

/** A beacon's size in pixels: a 24 px button (a fair pointer target) around a 12 px dot. */
const BEACON = 24;

const overlaps = (a: DOMRect, b: DOMRect) =>
  a.right > b.left && a.left < b.right && a.bottom > b.top && a.top < b.bottom;

export class HintBase extends AnchoredElement {
  static override properties = { opened: { state: true } };
  static override ownStrings = HINT_STRINGS;

  /** Each popover shown (a beacon or the tooltip), with its target and the function that stops anchoring it. */
  readonly #anchors = new Map<HTMLElement, [Element, () => void]>();
  #parent: Node | null = null;
  #returnFocus: Element | null = null;
  #focusOnOpen = false;
  #shown = '';
  #hadFocus = false;

  /** Set while a modal flow covers the page (its backdrop makes the rest inert): beacons and tooltips hide till it closes. */
  protected readonly covered = new StoreController(this, $covered);

  /** The id of the step whose tooltip is open, or ''. */
  protected opened = '';

  protected override released(): void {
    this.#stopAll();
    this.#shown = '';
  }

  protected override isShowing(): boolean {
    return Boolean(this.find('[data-step]')) && super.isShowing();
  }

  protected override willUpdate(changed: PropertyValues): void {
    super.willUpdate(changed);
    const step = this.activeFlow?.steps.find((s) => s.id === this.opened);
    if (!step || step.state.completed || step.state.skipped) this.opened = '';
    this.#hadFocus = Boolean(this.shadowRoot?.activeElement);
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    const targets = this.shownTargets();
    const open = targets.get(this.opened);
    // Inside the open modal dialog that holds the open step's target, or else any shown target: only there can it be seen and clicked.
    followIntoDialog(this, open && modalDialogOf(open) ? open : ([...targets.values()].find(modalDialogOf) ?? null));
    if (this.parentNode !== this.#parent) {
      // Moved: every popover is shown again, above what is open now.
      this.#parent = this.parentNode;
      this.#stopAll();
    }
    const live = new Set<HTMLElement>();
    for (const popover of this.renderRoot.querySelectorAll<HTMLElement>('[data-step]')) {
      const target = targets.get(popover.dataset.step!);
      if (!target) continue;
      live.add(popover);
      const anchored = this.#anchors.get(popover);
      if (anchored?.[0] === target) continue;
      anchored?.[1]();
      raise(popover);
      this.#anchors.set(popover, [target, this.#anchor(popover, target)]);
    }
    for (const [popover, [, stop]] of this.#anchors) {
      if (live.has(popover)) continue;
      stop();
      this.#anchors.delete(popover);
    }
    this.#announce();
    // Focus was in a tooltip that closed or on a beacon that went (its step done): back where the tooltip was opened
    // from, or else to another beacon, unless the user moved on (focus is then on the page, not lost to its body).
    const active = doc('activeElement');
    if (this.#hadFocus && !this.shadowRoot?.activeElement && (!active || active === doc('body'))) {
      const back = this.#returnFocus?.isConnected ? this.#returnFocus : this.find('.beacon');
      if (back instanceof HTMLElement) back.focus({ preventScroll: true });
    }
  }

  /** The targets of the steps shown, by step id. */
  protected shownTargets(): Map<string, Element> {
    return new Map();
  }

  /** Opens `id`'s tooltip; with `returnFocus`, focus moves into it and goes back there when it closes. */
  protected openStep(id: string, returnFocus: Element | null): void {
    this.#returnFocus = returnFocus;
    this.#focusOnOpen = Boolean(returnFocus);
    this.opened = id;
  }

  /** Closes the tooltip; with a trigger, its step is recorded completed (a dismissal counts as done). */
  protected closeStep(trigger?: ActionTrigger): void {
    const step = this.currentFlow?.steps.find((s) => s.id === this.opened);
    this.opened = '';
    if (trigger && step) this.act('step.complete', trigger, step);
  }

  /** Moves focus into the open tooltip (keyboard users reaching it from its target); it goes back to `returnFocus` when it closes. */
  protected focusTooltip(returnFocus: Element | null): boolean {
    const tooltip = this.find<HTMLElement>('.tooltip');
    if (!tooltip) return false;
    this.#returnFocus = returnFocus;
    tooltip.focus({ preventScroll: true });
    return true;
  }

  /** Escape in the tooltip or on its beacon: closes it and records its step completed. */
  protected escape(): void {
    if (this.opened) this.closeStep('escape');
  }

  /** The pointer or focus entering or leaving the tooltip. */
  protected tooltipHover(_event: Event): void {}

  #anchor(popover: HTMLElement, target: Element): () => void {
    if (popover.classList.contains('beacon')) {
      // Centred on the target's top edge, over its end corner (start in RTL); hidden while that is out of sight.
      return anchor(target, popover, {
        placement: 'top-end',
        gap: -BEACON / 2,
        placed: (rect) => popover.classList.toggle('away', !overlaps(popover.getBoundingClientRect(), rect)),
      });
    }
    if (this.#focusOnOpen) reveal(target);
    const step = this.currentFlow?.steps.find((s) => s.id === popover.dataset.step);
    return anchor(target, popover, {
      placement: this.option(step, 'placement'),
      arrow: popover.querySelector<HTMLElement>('.arrow'),
    });
  }

  #stopAll(): void {
    for (const [, stop] of this.#anchors.values()) stop();
    this.#anchors.clear();
  }

  /** Focus into a tooltip opened by a click or a key; `onboarding-show` and `onboarding-hide`. */
  #announce(): void {
    const tooltip = this.find<HTMLElement>('.tooltip');
    const shown = tooltip ? `${this.currentFlow?.slug}:${tooltip.dataset.step}` : '';
    if (shown === this.#shown) return;
    const slug = this.currentFlow?.slug ?? '';
    if (tooltip && this.#focusOnOpen) tooltip.focus({ preventScroll: true });
    if (!this.#shown) emit(this, 'onboarding-show', { flowSlug: slug });
    else if (!shown) emit(this, 'onboarding-hide', { flowSlug: slug });
    this.#shown = shown;
  }

  #onKeydown(event: KeyboardEvent): void {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    this.escape();
  }

  /** The beacon of `step`: a button named after the step that opens its tooltip, and closes it again. */
  protected renderBeacon(flow: Flow, step: Step) {
    const open = this.opened === step.id;
    return html`<button
      part="beacon"
      class="beacon"
      type="button"
      popover="manual"
      data-step=${step.id}
      aria-label=${this.t('hint', { title: this.plain(step.title) || flow.name })}
      aria-haspopup="dialog"
      aria-expanded=${open ? 'true' : 'false'}
      @click=${(event: Event) => (open ? this.closeStep() : this.openStep(step.id, event.currentTarget as Element))}
      @keydown=${this.#onKeydown}
    ></button>`;
  }

  /**
   * The tooltip of `step`: a non-modal dialog with a close button and the step's buttons (`fallbackTitle` names a
   * primary button for a step without one), or, for a hover tooltip with nothing to press (`dialog` false), a tooltip.
   */
  protected renderTooltip(flow: Flow, step: Step, dialog: boolean, fallbackTitle?: string) {
    const hover = (event: Event) => this.tooltipHover(event);
    const buttons = dialog && (step.primaryButton || step.secondaryButton || fallbackTitle);
    return html`<div
      part="base"
      class="surface tooltip"
      popover="manual"
      data-step=${step.id}
      role=${dialog ? 'dialog' : 'tooltip'}
      aria-label=${step.title ? nothing : flow.name}
      aria-labelledby=${step.title ? 'title' : nothing}
      aria-describedby="body"
      tabindex="-1"
      @keydown=${this.#onKeydown}
      @mouseenter=${hover}
      @mouseleave=${hover}
      @focusin=${hover}
      @focusout=${hover}
    >
      <div part="arrow" class="arrow"></div>
      <div class="content">
        ${
          step.title || dialog
            ? html`<div class="head">
                ${step.title ? html`<h2 part="title" id="title" class="title">${this.rich(step.title)}</h2>` : nothing}
                ${
                  dialog
                    ? html`<button
                        part="close-button"
                        class="close"
                        type="button"
                        aria-label=${this.t('close')}
                        @click=${() => this.closeStep('close')}
                      >
                        <span aria-hidden="true">×</span>
                      </button>`
                    : nothing
                }
              </div>`
            : nothing
        }
        ${this.renderMedia(step)}
        <div part="subtitle" id="body" class="text">${this.rich(step.subtitle)}</div>
        ${
          buttons
            ? html`<div part="actions" class="actions">
                ${this.renderButton(step.secondaryButton, 'secondary', { step, fallbackAction: 'step.complete' })}
                ${this.renderButton(step.primaryButton, 'primary', { step, fallbackTitle, fallbackAction: 'step.complete' })}
              </div>`
            : nothing
        }
      </div>
    </div>`;
  }
}
