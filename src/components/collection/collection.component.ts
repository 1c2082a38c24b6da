// <onboarding-collection>: draws a collection's current flow (collections.yaml; the service picks it) with the element for its type.
import { css, html, LitElement, nothing } from 'lit';
import type { Flow } from '../../flows/flow.js';
import { $collections, $flows } from '../../stores/flows.js';
import { wantElement } from '../shared/on-demand.js';
import { StoreController } from '../shared/store-controller.js';

/** Whether the user is shown `flow` now: eligible, visible (the service holds back a collection's others), not finished. */
const open = (flow: Flow | undefined) => Boolean(flow && flow.isVisible && !flow.isCompleted && !flow.isSkipped);

/**
 * @summary Draws the current flow of a collection from `collections.yaml`: the first of its flows, in the collection's
 * order, that the user is shown now. The service shows a collection's flows one at a time, the next after its
 * cool-off; this element follows it, through `<onboarding-flow>`, so a card is drawn as a card and a banner as a
 * banner, each loaded as it is needed. Nothing while the collection has nothing to show.
 * @tag onboarding-collection
 *
 * @csspart flow - The `<onboarding-flow>` drawing the current flow.
 */
export class OnboardingCollection extends LitElement {
  static override styles = css`
    :host {
      display: contents;
    }
  `;
  static override properties = { collection: { reflect: true }, theme: { reflect: true } };

  readonly #order = new StoreController(this, $collections);
  readonly #flows = new StoreController(this, $flows);

  /** The collection's `id` in collections.yaml. */
  collection = '';

  /** `light` or `dark`, passed on to the flow's element; without it, it follows `prefers-color-scheme`. */
  theme: 'light' | 'dark' | undefined;

  /** The slug of the flow the collection shows now, if any. */
  get currentFlow(): string | undefined {
    const flows = this.#flows.value;
    return this.#order.value.find((row) => row.collectionId === this.collection && open(flows[row.flowId]))?.flowId;
  }

  override render() {
    const slug = this.currentFlow;
    // The script tag loads <onboarding-flow> on demand too; drawn in this shadow root, it is not seen placed.
    if (slug && !customElements.get('onboarding-flow')) wantElement('onboarding-flow');
    return slug
      ? html`<onboarding-flow part="flow" flow=${slug} theme=${this.theme ?? nothing}></onboarding-flow>`
      : nothing;
  }
}
