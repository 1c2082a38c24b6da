// <onboarding-announcement>: a modal native <dialog> in the top layer for an ANNOUNCEMENT flow's current step.
import { html, nothing, type PropertyValues } from 'lit';
import { emit } from '../shared/events.js';
import { deepActiveElement, ModalSlot } from '../shared/modal-slot.js';
import { trapTab } from './trap-tab.js';
import { cover } from '../shared/modal-queue.js';
import { OnboardingElement } from '../shared/onboarding-element.js';
import { StoreController } from '../shared/store-controller.js';
import { $flows } from '../../stores/flows.js';
import { inFeedOnly } from '../../core/resource-center-feed.js';
import baseStyles from '../shared/base.styles.js';
import styles from './announcement.styles.js';

/**
 * @summary A modal dialog for an ANNOUNCEMENT flow: title, text, image or video, buttons, step dots and a close button.
 * It opens in the top layer when the modal queue gives it the slot; focus is trapped, Escape dismisses,
 * and focus returns to where it was. An announcement an eligible resource centre lists in its feed without
 * `popup: true` does not open by itself: it is read in the centre.
 * @tag onboarding-announcement
 *
 * @event onboarding-action - Before a button, the close button or Escape runs its action; cancel it to veto or take over.
 * @event onboarding-show - The dialog opened.
 * @event onboarding-hide - The dialog closed.
 * @event onboarding-step-change - The flow or current step shown changed.
 *
 * @csspart base - The dialog.
 * @csspart media - The step's image or video.
 * @csspart title - The step title.
 * @csspart subtitle - The step text.
 * @csspart counter - The "Step n of m" text of multi-step flows.
 * @csspart dots - The step dots of multi-step flows.
 * @csspart actions - The button row.
 * @csspart primary-button - The primary button or link.
 * @csspart secondary-button - The secondary button or link.
 * @csspart close-button - The close button.
 *
 * @cssproperty --onboarding-surface - Background.
 * @cssproperty --onboarding-text - Text colour.
 * @cssproperty --onboarding-muted - Secondary text colour.
 * @cssproperty --onboarding-border - Border colour.
 * @cssproperty --onboarding-accent - Button, link and current-dot colour.
 * @cssproperty --onboarding-radius - Corner radius.
 * @cssproperty --onboarding-font - Font shorthand.
 * @cssproperty --onboarding-shadow - Dialog shadow.
 * @cssproperty --onboarding-backdrop - Backdrop colour.
 * @cssproperty --onboarding-announcement-width - Dialog width.
 */
export class OnboardingAnnouncement extends OnboardingElement {
  static override styles = [baseStyles, styles];

  // Listed in a resource centre's feed without `popup: true`, it is read there and does not open by itself.
  readonly #feedOnly = new StoreController(this, $flows, (flows) => inFeedOnly(this.flow, flows));
  readonly #modal = new ModalSlot(this, 'ANNOUNCEMENT', () => {
    const flow = this.activeFlow;
    return flow?.currentStep && !inFeedOnly(flow.slug, this.#feedOnly.value)
      ? { slug: flow.slug, priority: flow.data.props?.priority }
      : undefined;
  });
  #returnFocus: HTMLElement | null = null;
  #opened = '';

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#afterClose();
  }

  protected override isShowing(): boolean {
    return this.#modal.granted && super.isShowing();
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    const dialog = this.find<HTMLDialogElement>('dialog');
    if (dialog && !dialog.open) {
      this.#returnFocus = this.#opened ? this.#returnFocus : deepActiveElement();
      try {
        dialog.showModal();
      } catch {
        return;
      }
      this.#opened = this.activeFlow!.slug;
      cover(this, 1);
      emit(this, 'onboarding-show', { flowSlug: this.#opened });
    } else if (!dialog && this.#opened) {
      this.#afterClose();
    }
  }

  #afterClose(): void {
    if (!this.#opened) return;
    const slug = this.#opened;
    this.#opened = '';
    cover(this, 0);
    const target = this.#returnFocus;
    this.#returnFocus = null;
    if (target?.isConnected) target.focus({ preventScroll: true });
    emit(this, 'onboarding-hide', { flowSlug: slug });
  }

  #dismiss(event: Event): void {
    event.preventDefault();
    const flow = this.activeFlow;
    if (flow && flow.data.props?.dismissible !== false) this.act('flow.skip', 'escape');
  }

  #onKeydown(event: KeyboardEvent): void {
    if (event.key === 'Escape') this.#dismiss(event);
    else trapTab(event, event.currentTarget as Element, this.shadowRoot!);
  }

  override render() {
    const flow = this.activeFlow;
    const step = flow?.currentStep;
    if (!flow || !step || !this.#modal.granted) return nothing;
    const steps = this.visibleSteps(flow);
    const n = steps.findIndex((s) => s.id === step.id) + 1;
    const m = steps.length;
    return html`<dialog
      part="base"
      class="surface"
      aria-labelledby="title"
      aria-describedby="body"
      @keydown=${this.#onKeydown}
      @cancel=${this.#dismiss}
    >
      <div class="head">
        ${m > 1 ? html`<span part="counter" class="counter">${this.t('stepOf', { n, m })}</span>` : nothing}
        ${this.renderClose(flow)}
      </div>
      ${this.renderMedia(step)}
      <h2 part="title" id="title" class="title">${step.title ? this.rich(step.title) : flow.name}</h2>
      <div part="subtitle" id="body" class="text">${this.rich(step.subtitle)}</div>
      ${
        m > 1
          ? html`<div part="dots" class="dots" aria-hidden="true">
              ${steps.map((s) => html`<span class=${s.id === step.id ? 'dot current' : 'dot'}></span>`)}
            </div>`
          : nothing
      }
      <div part="actions" class="actions">
        ${
          step.secondaryButton
            ? this.renderButton(step.secondaryButton, 'secondary', { fallbackAction: 'flow.skip' })
            : n > 1
              ? this.renderButton(undefined, 'secondary', {
                  fallbackTitle: this.t('back'),
                  fallbackAction: 'flow.back',
                })
              : nothing
        }
        ${this.renderButton(step.primaryButton, 'primary', { fallbackTitle: this.t(n < m ? 'next' : 'done'), fallbackAction: 'flow.forward' })}
      </div>
    </dialog>`;
  }
}
