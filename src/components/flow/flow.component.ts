// <onboarding-flow>: renders any flow by its type; for CUSTOM flows the page draws the UI from a slot or a <template>.
import { html, nothing, type PropertyValues } from 'lit';
import { BUTTON_ACTIONS, type ButtonAction } from '../../api/wire.js';
import { OnboardingElement } from '../shared/onboarding-element.js';
import { tagOf, wantElement } from '../shared/on-demand.js';
import baseStyles from '../shared/base.styles.js';
import styles from './flow.styles.js';
import { doc } from '../../page/document.js';

type ActionName = Exclude<ButtonAction, false>;

/**
 * @summary Renders a flow of any type by its type (`<onboarding-announcement>`, `-banner`, `-card`, `-checklist`,
 * `-form`, `-survey`, `-tour`). For CUSTOM flows it renders nothing itself: while the flow is active it shows its
 * slotted content, and stamps a child `<template>` into its light DOM. In either, `data-onboarding-text="title"`
 * (or `subtitle`) receives the current step's text, and clicking an element with
 * `data-onboarding-action="flow.forward"` (any button action) runs that action. `currentFlow` and `currentStep`
 * expose the model, and `onboarding-step-change` reports every change.
 * @tag onboarding-flow
 *
 * @slot - Content for a CUSTOM flow, shown while the flow is eligible, not completed and not dismissed.
 *
 * @event onboarding-action - Before an action runs from a `data-onboarding-action` element; cancel it to veto or take over.
 * @event onboarding-step-change - The flow or current step changed; `detail.flow` and `detail.step` hold the model.
 *
 * @csspart element - The element rendered for a typed flow.
 *
 * @cssproperty --onboarding-surface - Passed on to the rendered element, like every --onboarding-* property.
 */
export class OnboardingFlow extends OnboardingElement {
  static override styles = [baseStyles, styles];

  #stamped: Element | undefined;
  #inner: OnboardingElement | undefined;
  /** The element tag this flow waits for while the script tag loads it on demand (form, survey, tour). */
  #awaited = '';

  override connectedCallback(): void {
    super.connectedCallback();
    this.addEventListener('click', this.#onClick);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.removeEventListener('click', this.#onClick);
  }

  protected override isShowing(): boolean {
    // A typed flow is tracked by the element it renders; only a CUSTOM flow is this element's own.
    return this.currentFlow?.type === 'CUSTOM' && super.isShowing();
  }

  protected override willUpdate(changed: PropertyValues): void {
    super.willUpdate(changed);
    const flow = this.activeFlow;
    const tag = flow ? tagOf(flow.type) : '';
    // False for a tag that never loads on demand (CUSTOM's), and always in the ESM build, which defines every element.
    const awaited = flow && !customElements.get(tag) && wantElement(tag, flow) ? tag : '';
    if (awaited && awaited !== this.#awaited) void customElements.whenDefined(awaited).then(() => this.requestUpdate());
    this.#awaited = awaited;
  }

  protected override firstUpdated(changed: PropertyValues): void {
    super.firstUpdated(changed);
    // The inner element reports its own step changes; the page hears them once, from this element.
    this.renderRoot.addEventListener('onboarding-step-change', (event) => {
      if (event.target !== this) event.stopPropagation();
    });
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    if (this.currentFlow?.type === 'CUSTOM') this.#stamp();
  }

  readonly #onClick = (event: Event): void => {
    const source = (event.target as Element | null)?.closest?.('[data-onboarding-action]');
    if (!source || !this.contains(source)) return;
    const action = source.getAttribute('data-onboarding-action') as ActionName;
    if (!(BUTTON_ACTIONS as readonly string[]).includes(action) || !this.activeFlow) return;
    this.act(action, 'primary', undefined, undefined, event);
  };

  /** Stamps the child <template> while the flow is active, and fills its text slots with the current step's text. */
  #stamp(): void {
    const step = this.currentStep;
    const template = [...this.children].find(
      (child): child is HTMLTemplateElement => child instanceof HTMLTemplateElement,
    );
    if (!step) {
      this.#stamped?.remove();
      this.#stamped = undefined;
    } else if (template && !this.#stamped) {
      const container = doc('createElement')('div');
      container.append(template.content.cloneNode(true));
      this.append(container);
      this.#stamped = container;
    }
    if (!step) return;
    for (const target of this.querySelectorAll('[data-onboarding-text]')) {
      const key = target.getAttribute('data-onboarding-text');
      // textContent only: step text never becomes markup in the page.
      target.textContent = key === 'title' || key === 'subtitle' ? this.plain(step[key]) : '';
    }
  }

  override render() {
    const flow = this.currentFlow;
    if (!flow) return nothing;
    const tag = tagOf(flow.type);
    // Nothing while the element loads, and nothing if it never does.
    if (this.#awaited) return nothing;
    if (flow.type === 'CUSTOM' || !customElements.get(tag)) return this.activeFlow ? html`<slot></slot>` : nothing;
    if (this.#inner?.localName !== tag) {
      this.#inner = doc('createElement')(tag) as OnboardingElement;
      this.#inner.setAttribute('part', 'element');
    }
    Object.assign(this.#inner, {
      flow: this.flow,
      theme: this.theme,
      strings: this.strings,
      variables: this.variables,
    });
    return this.#inner;
  }
}
