// <ob-experiments-list>: the experiments of experiments.yaml, each with its status, goal, variants, users exposed and a one-line verdict.
import { html, LitElement } from 'lit';
import { property, state } from 'lit/decorators.js';
import type { ExperimentReport, ExperimentsReportResponse } from '../../src/api/wire.js';
import { api } from './api.js';
import { experimentVerdict } from './experiment-verdict.js';
import { count } from './format.js';
import shared from './styles.js';
import styles from './view.styles.js';

/** The address of an experiment's page; `days` is carried only so that the way back keeps the flows' range. */
export const experimentHref = (id: string, days: number) => `#/experiments/${encodeURIComponent(id)}?days=${days}`;

/**
 * @summary The experiments table, in file order; each experiment's id links to its page.
 * @event ob-error - A call failed; `detail` is the error.
 */
export class ObExperimentsList extends LitElement {
  static override styles = [shared, styles];

  /** Days of the flows' range, carried into the links. Experiments count every exposure since they began. */
  @property({ type: Number }) days = 30;
  @state() private answer: ExperimentsReportResponse | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  private async load(): Promise<void> {
    try {
      this.answer = await api.experiments();
    } catch (error) {
      this.dispatchEvent(new CustomEvent('ob-error', { detail: error, bubbles: true, composed: true }));
    }
  }

  private renderRow(experiment: ExperimentReport) {
    const verdict = experimentVerdict(experiment);
    return html`<tr>
      <td>
        <a class="flow-link" href=${experimentHref(experiment.id, this.days)}>${experiment.id}</a>
      </td>
      <td><span class="badge ${experiment.status === 'running' ? '' : 'plain'}">${experiment.status}</span></td>
      <td><code>${experiment.goal.event}</code> <span class="slug">within ${experiment.goal.within}</span></td>
      <td>
        <ul class="variants">
          ${experiment.variants.map(
            (variant) =>
              html`<li>
                ${variant.id} <span class="hint">${variant.flow ?? 'no flow'} · weight ${variant.weight}</span>
              </li>`,
          )}
        </ul>
      </td>
      <td class="num">${count(experiment.exposed)}</td>
      <td class="verdict ${verdict.tone}">${verdict.text}</td>
    </tr>`;
  }

  override render() {
    const experiments = this.answer?.experiments;
    if (!experiments) return html`<p class="muted" role="status">Loading experiments…</p>`;
    return html`<div class="title-row">
        <h1 tabindex="-1">Experiments</h1>
        <span class="hint">Every user exposed since each experiment began, and what became of them</span>
      </div>
      <section class="card flush" aria-labelledby="experiments-title">
        <h2 id="experiments-title" class="sr-only">All experiments</h2>
        ${
          experiments.length === 0
            ? html`<p class="empty">
                No experiments yet. Add experiments.yaml beside the flow files and they appear here.
              </p>`
            : html`<div class="scroll" tabindex="0" role="region" aria-label="Experiments table">
                <table class="experiments">
                  <thead>
                    <tr>
                      <th scope="col">Experiment</th>
                      <th scope="col">Status</th>
                      <th scope="col">Goal</th>
                      <th scope="col">Variants</th>
                      <th scope="col" class="num">Exposed</th>
                      <th scope="col">Verdict</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${experiments.map((experiment) => this.renderRow(experiment))}
                  </tbody>
                </table>
              </div>`
        }
      </section>`;
  }
}
