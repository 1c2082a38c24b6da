// <ob-flow-view>: one flow's report: its totals, its goal, its split by locale, its reshowings, its trend by day, its step funnel, a survey's answers, a resource centre's use, and every answer.
import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { property, state } from 'lit/decorators.js';
import type {
  AnalyticsFlowResponse,
  FlowGoalReport,
  FlowReshowCounts,
  FlowType,
  LocaleCounts,
} from '../../src/api/wire.js';
import { api } from './api.js';
import { bar, chartStyles, trendChart } from './charts.js';
import { count, day, duration, localeName, percent, TYPE_LABELS } from './format.js';
import shared from './styles.js';
import styles from './view.styles.js';

/** The address of a flow's report with these filters. */
export const flowHref = (slug: string, days: number, version?: number) =>
  `#/flows/${encodeURIComponent(slug)}?days=${days}${version ? `&version=${version}` : ''}`;

const share = (part: number, whole: number) => (whole > 0 ? part / whole : 0);

/** The flow types whose steps point at an element of the page: their funnel shows the users whose target was missing. */
const TARGETED: ReadonlySet<FlowType> = new Set(['HINT', 'TOOLTIP', 'TOUR']);

/**
 * @summary One flow's report. The funnel and trend count the users who first started the flow in the window.
 * @event ob-error - A call failed; `detail` is the error.
 */
export class ObFlowView extends LitElement {
  static override styles = [shared, chartStyles, styles];

  @property() slug = '';
  /** Days up to and including today. */
  @property({ type: Number }) days = 30;
  /** Only users who started on this version; 0 for every version. */
  @property({ type: Number }) version = 0;
  @state() private report: AnalyticsFlowResponse | undefined;

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('slug') || changed.has('days') || changed.has('version')) void this.load();
  }

  private async load(): Promise<void> {
    const asked = `${this.slug}|${this.days}|${this.version}`;
    if (this.report && this.report.flow.slug !== this.slug) this.report = undefined;
    try {
      const report = await api.flow(this.slug, { days: this.days, version: this.version || undefined });
      if (asked === `${this.slug}|${this.days}|${this.version}`) this.report = report;
    } catch (error) {
      this.dispatchEvent(new CustomEvent('ob-error', { detail: error, bubbles: true, composed: true }));
    }
  }

  private chooseVersion(event: Event): void {
    location.hash = flowHref(this.slug, this.days, Number((event.target as HTMLSelectElement).value));
  }

  private renderFunnel(report: AnalyticsFlowResponse) {
    const started = report.flow.started;
    const targeted = TARGETED.has(report.flow.type);
    const of = (n: number, whole: number) => html`<span class="of">${whole > 0 ? percent(n / whole) : ''}</span>`;
    return html`<section class="card" aria-labelledby="funnel-title">
      <div class="card-head">
        <h2 id="funnel-title">Step funnel</h2>
        <span class="hint">Share of users who reached each step</span>
      </div>
      <div class="scroll">
        <table class="funnel" aria-describedby=${targeted ? 'missing-note' : nothing}>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col" class="wide">Reached</th>
              <th scope="col" class="num">Completed</th>
              <th scope="col" class="num">Skipped</th>
              <th scope="col" class="num">Dropped</th>
              ${targeted ? html`<th scope="col" class="num">Target missing</th>` : ''}
            </tr>
          </thead>
          <tbody>
            ${report.steps.map(
              (step, index) =>
                html`<tr>
                  <th scope="row">
                    <span class="step-index">${index + 1}</span
                    >${step.title ?? step.stepId}${step.title === null ? html` <span class="badge plain">removed</span>` : ''}
                  </th>
                  <td>
                    <span class="rate"
                      >${bar(share(step.reached, started))}<span class="num">${count(step.reached)}</span></span
                    >
                  </td>
                  <td class="num">${count(step.completed)} ${of(step.completed, step.reached)}</td>
                  <td class="num">${count(step.skipped)} ${of(step.skipped, step.reached)}</td>
                  <td class="num ${step.dropped > 0 ? 'dropped' : ''}">
                    ${count(step.dropped)} ${of(step.dropped, step.reached)}
                  </td>
                  ${targeted ? html`<td class="num ${step.targetMissing > 0 ? 'missing' : ''}">${step.targetMissing > 0 ? count(step.targetMissing) : '–'}</td>` : ''}
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
      ${
        targeted
          ? html`<p class="note" id="missing-note">
              Target missing: users whose page could not find the step's element, each counted once, on the day of their
              first report. A number that grows after a release usually means a selector no longer matches the page.
            </p>`
          : ''
      }
    </section>`;
  }

  /** A flow with a `goal`: of the users who first started it in the window, those who recorded its event in time. */
  private renderGoal(goal: FlowGoalReport) {
    return html`<section class="card" aria-labelledby="goal-title">
      <div class="card-head">
        <h2 id="goal-title">Goal</h2>
        <span class="hint"><code>${goal.event}</code> within ${goal.within} of a user's first start</span>
      </div>
      <div class="scroll">
        <table class="goal">
          <tbody>
            <tr>
              <th scope="row">Seen (first started in this window)</th>
              <td class="num">${count(goal.seen)}</td>
            </tr>
            <tr>
              <th scope="row">Converted</th>
              <td class="num">${count(goal.converted)}</td>
            </tr>
            <tr>
              <th scope="row">Conversion rate</th>
              <td>
                <span class="rate">${bar(goal.rate, 'good')}<span class="num">${percent(goal.rate)}</span></span>
              </td>
            </tr>
          </tbody>
        </table>
      </div>
    </section>`;
  }

  /** A flow with `reshow`: of the users who started it, those who acted on it after it came back, and what they did then. */
  private renderReshow(reshow: FlowReshowCounts) {
    const of = (n: number) => html`<span class="of">${reshow.users > 0 ? percent(n / reshow.users) : ''}</span>`;
    return html`<section class="card" aria-labelledby="reshow-title">
      <div class="card-head">
        <h2 id="reshow-title">Came back</h2>
        <span class="hint">Users who acted on the flow after it came back</span>
      </div>
      <div class="scroll">
        <table class="reshow">
          <tbody>
            <tr>
              <th scope="row">Acted on a comeback</th>
              <td class="num">${count(reshow.users)}</td>
            </tr>
            <tr>
              <th scope="row">Comebacks acted on</th>
              <td class="num">${count(reshow.comebacks)}</td>
            </tr>
            <tr>
              <th scope="row">Completed after it came back</th>
              <td class="num">${count(reshow.completed)} ${of(reshow.completed)}</td>
            </tr>
            <tr>
              <th scope="row">Dismissed it again</th>
              <td class="num">${count(reshow.skipped)} ${of(reshow.skipped)}</td>
            </tr>
          </tbody>
        </table>
      </div>
      <p class="note">
        A dismissed flow with reshow shows again after a while. A comeback is counted when the user next acts in the
        flow (a start, a step, a completion or a dismissal); one who only saw it is not.
      </p>
    </section>`;
  }

  /** A resource centre: users who opened it, clicks per block and item, and what users searched for and did not find. */
  private renderResourceCenter(report: AnalyticsFlowResponse) {
    const clicks = report.clicks ?? [];
    const searches = report.noResultSearches ?? [];
    return html`<section class="card" aria-labelledby="centre-title">
      <div class="card-head">
        <h2 id="centre-title">Resource centre</h2>
        <span class="hint">Opened by ${count(report.opens ?? 0)} users</span>
      </div>
      <div class="scroll">
        <table class="reshow centre">
          <caption>
            Clicks
          </caption>
          <thead>
            <tr>
              <th scope="col">Block</th>
              <th scope="col">Item</th>
              <th scope="col" class="num">Clicks</th>
              <th scope="col" class="num">Users</th>
            </tr>
          </thead>
          <tbody>
            ${
              clicks.length
                ? clicks.map(
                    (row) =>
                      html`<tr>
                        <th scope="row">${row.block}</th>
                        <td>${row.item ?? '—'}</td>
                        <td class="num">${count(row.clicks)}</td>
                        <td class="num">${count(row.users)}</td>
                      </tr>`,
                  )
                : html`<tr>
                    <td colspan="4" class="empty">No clicks in this window.</td>
                  </tr>`
            }
          </tbody>
        </table>
        <table class="reshow centre">
          <caption>
            Searches with no results
          </caption>
          <thead>
            <tr>
              <th scope="col">Query</th>
              <th scope="col" class="num">Users</th>
            </tr>
          </thead>
          <tbody>
            ${
              searches.length
                ? searches.map(
                    (row) =>
                      html`<tr>
                        <th scope="row">${row.query}</th>
                        <td class="num">${count(row.users)}</td>
                      </tr>`,
                  )
                : html`<tr>
                    <td colspan="2" class="empty">Every search found something.</td>
                  </tr>`
            }
          </tbody>
        </table>
      </div>
      <p class="note">What users looked for and did not find is the content to write next.</p>
    </section>`;
  }

  /** The totals split by the translation each user first started the flow in: one row per locale, most starts first. */
  private renderLocales(locales: LocaleCounts[], started: number) {
    return html`<section class="card" aria-labelledby="locales-title">
      <div class="card-head">
        <h2 id="locales-title">By locale</h2>
        <span class="hint">Users by the translation they first started in</span>
      </div>
      <div class="scroll">
        <table class="locales">
          <thead>
            <tr>
              <th scope="col">Locale</th>
              <th scope="col" class="wide">Started</th>
              <th scope="col" class="num">Completed</th>
              <th scope="col" class="num">Skipped</th>
              <th scope="col" class="num">Median time</th>
            </tr>
          </thead>
          <tbody>
            ${locales.map(
              (row) =>
                html`<tr>
                  <th scope="row">
                    ${localeName(row.locale)}${row.locale ? html`<span class="locale-code">${row.locale}</span>` : ''}
                  </th>
                  <td>
                    <span class="rate"
                      >${bar(share(row.started, started))}<span class="num">${count(row.started)}</span></span
                    >
                  </td>
                  <td class="num">${count(row.completed)} <span class="of">${percent(row.completionRate)}</span></td>
                  <td class="num">${count(row.skipped)}</td>
                  <td class="num">${duration(row.medianSecondsToComplete)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
      <p class="note">
        The flow's translation for the locale the page sent when the user first started it (else their user property
        <code>locale</code>): the exact one, else its language's, else the source text.
      </p>
    </section>`;
  }

  private renderTrend(report: AnalyticsFlowResponse) {
    return html`<section class="card" aria-labelledby="trend-title">
      <div class="card-head">
        <h2 id="trend-title">Trend by day <span class="hint">users by the day they first started</span></h2>
        <span class="legend" aria-hidden="true"><span>Started</span><span class="completed">Completed</span></span>
      </div>
      ${trendChart(report.days)}
      <details>
        <summary>Show the numbers</summary>
        <div class="scroll days">
          <table>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col" class="num">Started</th>
                <th scope="col" class="num">Completed</th>
                <th scope="col" class="num">Skipped</th>
              </tr>
            </thead>
            <tbody>
              ${[...report.days].reverse().map(
                (d) =>
                  html`<tr>
                    <th scope="row">${day(d.date)}</th>
                    <td class="num">${d.started}</td>
                    <td class="num">${d.completed}</td>
                    <td class="num">${d.skipped}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
      </details>
    </section>`;
  }

  override render() {
    const report = this.report;
    const back = html`<a class="back" href="#/?days=${this.days}">← All flows</a>`;
    if (!report)
      return html`${back}
        <p class="muted" role="status">Loading the report…</p>`;
    const flow = report.flow;
    return html`${back}
      <div class="title-row">
        <h1 tabindex="-1">${flow.name}</h1>
        <span class="badge">${TYPE_LABELS[flow.type] ?? flow.type}</span>
        ${flow.status !== 'ACTIVE' ? html`<span class="badge plain">${flow.status ? flow.status.toLowerCase() : 'removed'}</span>` : ''}
        <label class="version"
          >Version
          <select @change=${this.chooseVersion}>
            <option value="0" ?selected=${!this.version}>All versions</option>
            ${Array.from({ length: flow.version }, (_, i) => flow.version - i).map((v) => html`<option value=${v} ?selected=${this.version === v}>v${v}${v === flow.version ? ' (current)' : ''}</option>`)}
          </select>
        </label>
      </div>
      <section class="kpis" aria-label="Totals">
        <div class="kpi">
          <span class="kpi-label">Started</span><span class="kpi-value">${count(flow.started)}</span>
        </div>
        <div class="kpi">
          <span class="kpi-label">Completed</span
          ><span class="kpi-value">${count(flow.completed)}<small> ${percent(flow.completionRate)}</small></span>
        </div>
        <div class="kpi">
          <span class="kpi-label">Skipped</span
          ><span class="kpi-value"
            >${count(flow.skipped)}<small> ${flow.started ? percent(flow.skipped / flow.started) : ''}</small></span
          >
        </div>
        <div class="kpi">
          <span class="kpi-label">Median time to complete</span
          ><span class="kpi-value">${duration(flow.medianSecondsToComplete)}</span>
        </div>
      </section>
      <div class="stack">
        ${report.goal ? this.renderGoal(report.goal) : ''}${this.renderTrend(report)}${this.renderFunnel(report)}${
          // One locale alone is the totals again.
          report.locales.length > 1 || (report.locales.length === 1 && report.locales[0].locale !== '')
            ? this.renderLocales(report.locales, flow.started)
            : ''
        }${report.reshow ? this.renderReshow(report.reshow) : ''}${
          flow.type === 'RESOURCE_CENTER' ? this.renderResourceCenter(report) : ''
        }
      </div>
      ${report.survey ? html`<ob-survey-panel .steps=${report.survey.steps}></ob-survey-panel>` : ''}
      <ob-answers
        slug=${flow.slug}
        days=${this.days}
        version=${this.version}
        ?optional=${flow.type !== 'FORM' && flow.type !== 'SURVEY'}
      ></ob-answers>`;
  }
}
