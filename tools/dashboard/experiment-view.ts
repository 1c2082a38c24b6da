// <ob-experiment-view>: one experiment's page: its warnings, each variant's rate with its interval, the comparisons with the baseline, the methods, and the participants' CSV.
import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { property, state } from 'lit/decorators.js';
import type { ExperimentMethods, ExperimentReport, ExperimentVariantReport } from '../../src/api/wire.js';
import { api } from './api.js';
import { chartStyles, intervalChart } from './charts.js';
import { experimentVerdict } from './experiment-verdict.js';
import { count, percent, percentRange, points, pointsRange, pValue } from './format.js';
import shared from './styles.js';
import styles from './view.styles.js';

/** The methods an answer names, as a reader knows them. */
const METHOD_NAMES: Record<keyof ExperimentMethods, [string, string]> = {
  interval: ['Rate intervals', '95 % Wilson score interval'],
  difference: ['Difference intervals', "95 % interval by Newcombe's hybrid score method"],
  pValue: ['p-values', 'pooled two-proportion z-test, two-sided'],
  chanceToBeatBaseline: ['Chance to beat the baseline', "exact, under Beta posteriors (Evan Miller's closed form)"],
  sampleRatio: ['Sample ratio', 'chi-square goodness-of-fit test of the exposed counts against the weights'],
};

/**
 * @summary One experiment's report, compared with its baseline, with a banner when its figures cannot be read yet.
 * @event ob-error - A call failed; `detail` is the error.
 */
export class ObExperimentView extends LitElement {
  static override styles = [shared, chartStyles, styles];

  @property({ attribute: 'experiment-id' }) experimentId = '';
  /** Days of the flows' range, carried into the way back. */
  @property({ type: Number }) days = 30;
  @state() private report: ExperimentReport | undefined;
  @state() private busy = false;
  @state() private status = '';

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('experimentId')) void this.load();
  }

  private fail(error: unknown): void {
    this.dispatchEvent(new CustomEvent('ob-error', { detail: error, bubbles: true, composed: true }));
  }

  private async load(): Promise<void> {
    const asked = this.experimentId;
    if (this.report?.id !== asked) this.report = undefined;
    try {
      const report = await api.experiment(asked);
      if (asked === this.experimentId) this.report = report;
    } catch (error) {
      this.fail(error);
    }
  }

  private async download(): Promise<void> {
    this.busy = true;
    this.status = 'Preparing the CSV…';
    try {
      await api.downloadParticipants(this.experimentId);
      this.status = 'The CSV was downloaded.';
    } catch (error) {
      this.status = '';
      this.fail(error);
    } finally {
      this.busy = false;
    }
  }

  private renderBanners(report: ExperimentReport) {
    return html`${
      report.sampleRatio.mismatch
        ? html`<p class="alert banner" role="alert">
            <strong>Sample ratio mismatch:</strong> the split does not match the weights, so the figures cannot be
            trusted; look for a bug in assignment or exposure. (Chi-square test p ${pValue(report.sampleRatio.pValue)}.)
          </p>`
        : nothing
    }${
      report.exposed > 0 && !report.enoughData
        ? html`<p class="banner warn" role="status">
            <strong>Not enough data yet:</strong> every variant needs at least 5 conversions and 5 non-conversions.
          </p>`
        : nothing
    }`;
  }

  private renderRow(variant: ExperimentVariantReport) {
    const compared = !variant.baseline;
    return html`<tr class=${variant.baseline ? 'baseline' : nothing}>
      <th scope="row">
        ${variant.id}${variant.baseline ? html` <span class="badge">baseline</span>` : ''}
        <span class="slug">${variant.flow ?? 'no flow (control)'} · weight ${variant.weight}</span>
      </th>
      <td class="num">${count(variant.exposed)}</td>
      <td class="num">${count(variant.converted)}</td>
      <td class="num">${percent(variant.rate)}</td>
      <td class="num">${variant.interval ? percentRange(variant.interval) : '–'}</td>
      <td class="num">${compared && variant.difference !== null ? points(variant.difference) : '–'}</td>
      <td class="num">${compared && variant.differenceInterval ? pointsRange(variant.differenceInterval) : '–'}</td>
      <td class="num">${compared ? pValue(variant.pValue) : '–'}</td>
      <td class="num">
        ${compared && variant.chanceToBeatBaseline !== null ? percent(variant.chanceToBeatBaseline) : '–'}
      </td>
    </tr>`;
  }

  override render() {
    const report = this.report;
    const back = html`<a class="back" href="#/experiments?days=${this.days}">← All experiments</a>`;
    if (!report)
      return html`${back}
        <p class="muted" role="status">Loading the experiment…</p>`;
    const verdict = experimentVerdict(report);
    return html`${back}
      <div class="title-row">
        <h1 tabindex="-1">${report.id}</h1>
        <span class="badge ${report.status === 'running' ? '' : 'plain'}">${report.status}</span>
        ${report.winner ? html`<span class="badge plain">winner: ${report.winner}</span>` : ''}
        <span class="hint">Goal: <code>${report.goal.event}</code> within ${report.goal.within} of exposure</span>
      </div>
      ${this.renderBanners(report)}
      <section class="kpis" aria-label="Totals">
        <div class="kpi">
          <span class="kpi-label">Exposed</span><span class="kpi-value">${count(report.exposed)}</span>
        </div>
        <div class="kpi">
          <span class="kpi-label">Converted</span
          ><span class="kpi-value">${count(report.variants.reduce((sum, v) => sum + v.converted, 0))}</span>
        </div>
        <div class="kpi"><span class="kpi-label">Baseline</span><span class="kpi-value">${report.baseline}</span></div>
        <div class="kpi">
          <span class="kpi-label">Sample ratio p-value</span
          ><span class="kpi-value">${pValue(report.sampleRatio.pValue)}</span>
        </div>
      </section>
      ${
        // A warning is in its banner already.
        verdict.tone === 'bad' || verdict.tone === 'warn'
          ? nothing
          : html`<p class="verdict ${verdict.tone} lead">${verdict.text}</p>`
      }
      <div class="stack">
        <section class="card" aria-labelledby="rates-title">
          <div class="card-head">
            <h2 id="rates-title">Conversion rate by variant</h2>
            <span class="hint">Dot: the rate; whisker: its 95 % interval; dashed line: the baseline's rate</span>
          </div>
          ${intervalChart(report.variants)}
        </section>
        <section class="card flush" aria-labelledby="variants-title">
          <div class="card-head padded"><h2 id="variants-title">Variants against ${report.baseline}</h2></div>
          <div class="scroll" tabindex="0" role="region" aria-label="Variants table">
            <table class="variants-table">
              <thead>
                <tr>
                  <th scope="col">Variant</th>
                  <th scope="col" class="num">Exposed</th>
                  <th scope="col" class="num">Converted</th>
                  <th scope="col" class="num">Rate</th>
                  <th scope="col" class="num">Rate interval</th>
                  <th scope="col" class="num">Difference</th>
                  <th scope="col" class="num">Difference interval</th>
                  <th scope="col" class="num">p-value</th>
                  <th scope="col" class="num">Chance to beat</th>
                </tr>
              </thead>
              <tbody>
                ${report.variants.map((variant) => this.renderRow(variant))}
              </tbody>
            </table>
          </div>
        </section>
        <section class="card" aria-labelledby="methods-title">
          <div class="card-head"><h2 id="methods-title">Methods</h2></div>
          <dl class="methods">
            ${(Object.keys(METHOD_NAMES) as Array<keyof ExperimentMethods>).map(
              (key) =>
                html`<div>
                  <dt>${METHOD_NAMES[key][0]}</dt>
                  <dd>${METHOD_NAMES[key][1]} <code>${report.methods[key]}</code></dd>
                </div>`,
            )}
          </dl>
        </section>
        <section class="card" aria-labelledby="participants-title">
          <div class="card-head">
            <h2 id="participants-title">Participants</h2>
            <button type="button" @click=${this.download} ?disabled=${this.busy || report.exposed === 0}>
              Download participants CSV
            </button>
          </div>
          <p class="note">
            One row per exposed user: user, variant, when they were exposed and when they converted (empty if not).
          </p>
          <span class="hint" role="status">${this.status}</span>
        </section>
      </div>`;
  }
}
