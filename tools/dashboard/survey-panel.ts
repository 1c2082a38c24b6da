// <ob-survey-panel>: a survey's answers in the window: the NPS score and its 0–10 spread, ratings, choices and the latest comments.
import { html, LitElement } from 'lit';
import { property } from 'lit/decorators.js';
import type { SurveyStepReport } from '../../src/api/wire.js';
import { bar, chartStyles, scoreColumns } from './charts.js';
import { count, percent, time } from './format.js';
import shared from './styles.js';
import styles from './survey-panel.styles.js';

type Report<K extends SurveyStepReport['kind']> = Extract<SurveyStepReport, { kind: K }>;

/** @summary One card per survey step, in the survey's order. */
export class ObSurveyPanel extends LitElement {
  static override styles = [shared, chartStyles, styles];

  @property({ attribute: false }) steps: SurveyStepReport[] = [];

  private nps(step: Report<'nps'>) {
    const share = (n: number) => (step.responses ? n / step.responses : 0);
    const tone = step.score === null ? '' : step.score >= 30 ? 'good' : step.score >= 0 ? 'warn' : 'bad';
    return html`<div class="split">
      <div class="nps">
        <div class="score ${tone}">
          <span class="score-value"
            >${step.score === null ? '–' : `${step.score > 0 ? '+' : ''}${Math.round(step.score)}`}</span
          >
          <span class="hint">Net Promoter Score</span>
        </div>
        <dl class="groups">
          <div>
            <dt><span class="dot good"></span>Promoters (9–10)</dt>
            <dd>${percent(share(step.promoters))} <span class="muted">· ${count(step.promoters)}</span></dd>
          </div>
          <div>
            <dt><span class="dot warn"></span>Passives (7–8)</dt>
            <dd>${percent(share(step.passives))} <span class="muted">· ${count(step.passives)}</span></dd>
          </div>
          <div>
            <dt><span class="dot bad"></span>Detractors (0–6)</dt>
            <dd>${percent(share(step.detractors))} <span class="muted">· ${count(step.detractors)}</span></dd>
          </div>
        </dl>
      </div>
      <figure>
        ${scoreColumns(step.distribution)}
        <figcaption class="sr-only">
          Answers by score: ${step.distribution.map((n, i) => `${i}: ${n}`).join(', ')}.
        </figcaption>
      </figure>
    </div>`;
  }

  private rating(step: Report<'rating'>) {
    return html`<p class="big">${step.average ?? '–'}<small> / ${step.distribution.length} average</small></p>
      <figure>
        ${scoreColumns(step.distribution, 1, () => 'accent')}
        <figcaption class="sr-only">
          Answers by rating: ${step.distribution.map((n, i) => `${i + 1}: ${n}`).join(', ')}.
        </figcaption>
      </figure>`;
  }

  private choices(step: Report<'single' | 'multiple'>) {
    const top = Math.max(1, ...step.options.map((o) => o.count));
    return html`<ul class="choices">
      ${step.options.map(
        (option) =>
          html`<li>
            <span class="label">${option.label}</span>${bar(option.count / top)}<span class="num"
              >${count(option.count)}</span
            >
          </li>`,
      )}
    </ul>`;
  }

  private comments(step: Report<'text'>) {
    if (step.comments.length === 0) return html`<p class="muted">No comments in this window.</p>`;
    // Scrolls when long, so it takes focus: keyboard users scroll it too.
    return html`<div class="comments-scroll" tabindex="0" role="region" aria-label="Latest comments">
      <ul class="comments">
        ${step.comments.map(
          (c) =>
            html`<li>
              <blockquote>${c.value}</blockquote>
              <p class="hint">${c.userId} · ${time(c.createdAt)}</p>
            </li>`,
        )}
      </ul>
    </div>`;
  }

  override render() {
    return html`<div class="panel">
      ${this.steps.map((step) => {
        const heading =
          step.kind === 'nps'
            ? 'NPS'
            : step.kind === 'text'
              ? 'Comments'
              : step.kind === 'rating'
                ? 'Rating'
                : 'Choice';
        const body =
          step.kind === 'nps'
            ? this.nps(step)
            : step.kind === 'rating'
              ? this.rating(step)
              : step.kind === 'text'
                ? this.comments(step)
                : this.choices(step);
        const more =
          step.kind === 'text' && step.responses > step.comments.length
            ? ` · latest ${step.comments.length} shown`
            : '';
        return html`<section class="card ${step.kind}" aria-labelledby="s-${step.stepId}">
          <div class="card-head">
            <h2 id="s-${step.stepId}">${heading}<span class="question">${step.title ?? step.stepId}</span></h2>
            <span class="hint">${count(step.responses)} ${step.responses === 1 ? 'response' : 'responses'}${more}</span>
          </div>
          ${body}
        </section>`;
      })}
    </div>`;
  }
}
