// <ob-flows-list>: every flow in the window, with its starts, completions, completion rate and median time to complete.
import { html, LitElement, type PropertyValues } from 'lit';
import { property, state } from 'lit/decorators.js';
import type { AnalyticsFlowsResponse } from '../../src/api/wire.js';
import { api } from './api.js';
import { bar, chartStyles } from './charts.js';
import { count, duration, percent, TYPE_LABELS } from './format.js';
import shared from './styles.js';
import styles from './view.styles.js';

/**
 * @summary The flows table, busiest first, with totals above it. Each flow's name links to its report.
 * @event ob-error - A call failed; `detail` is the error.
 */
export class ObFlowsList extends LitElement {
  static override styles = [shared, chartStyles, styles];

  /** Days up to and including today. */
  @property({ type: Number }) days = 30;
  @state() private report: AnalyticsFlowsResponse | undefined;

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('days')) void this.load();
  }

  private async load(): Promise<void> {
    const days = this.days;
    try {
      const report = await api.flows({ days });
      if (days === this.days) this.report = report;
    } catch (error) {
      this.dispatchEvent(new CustomEvent('ob-error', { detail: error, bubbles: true, composed: true }));
    }
  }

  override render() {
    const report = this.report;
    if (!report) return html`<p class="muted" role="status">Loading flows…</p>`;
    const flows = [...report.flows].sort((a, b) => b.started - a.started || a.name.localeCompare(b.name));
    const started = flows.reduce((sum, f) => sum + f.started, 0);
    const completed = flows.reduce((sum, f) => sum + f.completed, 0);
    const active = flows.filter((f) => f.started > 0).length;
    return html` <div class="title-row">
        <h1 tabindex="-1">Flows</h1>
        <span class="hint">Users who started each flow in the last ${this.days} days, and what became of them</span>
      </div>
      <section class="kpis" aria-label="Totals">
        <div class="kpi">
          <span class="kpi-label">Flows seen</span
          ><span class="kpi-value">${active}<small> of ${flows.length}</small></span>
        </div>
        <div class="kpi"><span class="kpi-label">Started</span><span class="kpi-value">${count(started)}</span></div>
        <div class="kpi">
          <span class="kpi-label">Completed</span><span class="kpi-value">${count(completed)}</span>
        </div>
        <div class="kpi">
          <span class="kpi-label">Completion rate</span
          ><span class="kpi-value">${percent(started ? completed / started : null)}</span>
        </div>
      </section>
      <section class="card flush" aria-labelledby="flows-title">
        <h2 id="flows-title" class="sr-only">All flows</h2>
        ${
          flows.length === 0
            ? html`<p class="empty">No flows yet. Add a YAML file to the flow folder and it appears here.</p>`
            : html`<div class="scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Flow</th>
                      <th scope="col">Type</th>
                      <th scope="col" class="num">Started</th>
                      <th scope="col" class="num">Completed</th>
                      <th scope="col" class="num">Skipped</th>
                      <th scope="col" class="wide">Completion rate</th>
                      <th scope="col" class="num">Median time</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${flows.map(
                      (f) =>
                        html`<tr>
                          <td>
                            <a class="flow-link" href="#/flows/${encodeURIComponent(f.slug)}?days=${this.days}"
                              >${f.name}</a
                            >
                            <span class="slug"
                              >${f.slug}${f.status && f.status !== 'ACTIVE' ? html` · ${f.status.toLowerCase()}` : ''}${f.status === null ? ' · removed' : ''}</span
                            >
                          </td>
                          <td><span class="badge plain">${TYPE_LABELS[f.type] ?? f.type}</span></td>
                          <td class="num">${count(f.started)}</td>
                          <td class="num">${count(f.completed)}</td>
                          <td class="num">${count(f.skipped)}</td>
                          <td>
                            <span class="rate"
                              >${bar(f.completionRate ?? 0, 'good')}<span class="num"
                                >${percent(f.completionRate)}</span
                              ></span
                            >
                          </td>
                          <td class="num">${duration(f.medianSecondsToComplete)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
        }
      </section>`;
  }
}
