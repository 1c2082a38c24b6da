// <ob-collections>: the collections of collections.yaml, each with its type, cool-off and flows in priority order.
import { css, html, LitElement } from 'lit';
import { property, state } from 'lit/decorators.js';
import type { CollectionReport, CollectionsResponse } from '../../src/api/wire.js';
import { api } from './api.js';
import { flowHref } from './flow-view.js';
import { TYPE_LABELS } from './format.js';
import shared from './styles.js';
import styles from './view.styles.js';

/**
 * @summary The collections in force, in file order; each flow links to its report. Draws nothing without collections.
 * @event ob-error - A call failed; `detail` is the error.
 */
export class ObCollections extends LitElement {
  static override styles = [
    shared,
    styles,
    css`
      :host {
        display: block;
        margin-top: 28px;
      }
      .collections {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(280px, 1fr));
        gap: 20px;
      }
      h3 {
        margin: 0;
        font-size: 1rem;
      }
      ol {
        margin: 12px 0 0;
        padding-left: 1.5em;
        display: grid;
        gap: 6px;
      }
    `,
  ];

  /** Days up to and including today, carried into the flows' links. */
  @property({ type: Number }) days = 30;
  @state() private answer: CollectionsResponse | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    // The collections do not depend on the range, only the links do: one call per visit of the flows page.
    void this.load();
  }

  private async load(): Promise<void> {
    try {
      this.answer = await api.collections();
    } catch (error) {
      this.dispatchEvent(new CustomEvent('ob-error', { detail: error, bubbles: true, composed: true }));
    }
  }

  private renderCollection(collection: CollectionReport) {
    const titleId = `collection-${collection.id}`;
    return html`<section class="card" aria-labelledby=${titleId}>
      <div class="card-head">
        <h3 id=${titleId}>${collection.id}</h3>
        <span class="badge plain">${collection.type === 'DEFAULT' ? 'Default' : 'Custom'}</span>
      </div>
      <p class="hint">
        ${collection.coolOff === '0' ? 'No cool-off between flows' : `Cool-off ${collection.coolOff} between flows`}
      </p>
      <ol aria-label="Flows of ${collection.id}, first shown first">
        ${collection.flows.map(
          (flow) =>
            html`<li>
              ${
                flow.name === null
                  ? html`<span class="slug">${flow.slug} · removed</span>`
                  : html`<a class="flow-link" href=${flowHref(flow.slug, this.days)}>${flow.name}</a>
                      <span class="slug"
                        >${flow.slug} ·
                        ${TYPE_LABELS[flow.type!] ?? flow.type}${flow.status !== 'ACTIVE' ? ` · ${flow.status?.toLowerCase()}` : ''}</span
                      >`
              }
            </li>`,
        )}
      </ol>
    </section>`;
  }

  override render() {
    const collections = this.answer?.collections ?? [];
    if (collections.length === 0) return '';
    return html`<section aria-labelledby="collections-title">
      <div class="title-row">
        <h2 id="collections-title">Collections</h2>
        <span class="hint">Each shows its flows one at a time, in this order</span>
      </div>
      <div class="collections">${collections.map((collection) => this.renderCollection(collection))}</div>
    </section>`;
  }
}
