// One flow's explanation on the People page: whether it is shown, its state, and every rule with what it read, the failed ones first.
import { html, nothing, type TemplateResult } from 'lit';
import { failedFirst, flowProgress, readSides } from '../../src/api/explain-reading.js';
import type { ExplainReason, FlowExplanation, TargetingClause } from '../../src/api/wire.js';
import { TYPE_LABELS, value } from './format.js';

/** How the page names each rule. */
export const RULE_LABELS: Record<ExplainReason['rule'], string> = {
  status: 'Status',
  schedule: 'Schedule',
  targeting: 'Targeting',
  state: 'State',
  collection: 'Collection',
  limit: 'Limit',
  experiment: 'Experiment',
  startWhen: 'Start rules',
};

/** What a reason read, beyond its rule, outcome and sentence: the fields the service sent, empty ones left out (a targeting's are drawn apart). */
function facts(reason: ExplainReason): Array<[string, unknown]> {
  const skip = new Set([
    'rule',
    'passed',
    'detail',
    ...(reason.rule === 'targeting' ? ['expression', 'value', 'clauses'] : []),
  ]);
  return Object.entries(reason).filter(([name, v]) => !skip.has(name) && v !== null && v !== undefined);
}

function renderClause(clause: TargetingClause): TemplateResult {
  return html`<li class="clause ${clause.value === true ? 'true' : 'false'}">
    <code>${clause.expression}</code> <span class="is">is</span> <strong>${value(clause.value)}</strong>
    ${clause.error ? html`<span class="error">(${clause.error})</span>` : nothing}
    ${
      readSides(clause).length
        ? html`<ul class="operands">
            ${readSides(clause).map((o) => html`<li><code>${o.expression}</code> = <code>${value(o.value)}</code></li>`)}
          </ul>`
        : nothing
    }
  </li>`;
}

function renderReason(reason: ExplainReason): TemplateResult {
  const shown = facts(reason);
  return html`<li class="reason ${reason.passed ? 'passed' : 'failed'}" data-rule=${reason.rule}>
    <span class="mark">${reason.passed ? 'Passed' : 'Failed'}</span>
    <span class="rule">${RULE_LABELS[reason.rule] ?? reason.rule}</span>
    <span class="detail">${reason.detail}</span>
    ${
      reason.rule === 'targeting' && reason.expression
        ? html`<div class="more">
            <code>${reason.expression}</code>
            ${
              reason.clauses.length
                ? html`<ul class="clauses">
                    ${reason.clauses.map(renderClause)}
                  </ul>`
                : nothing
            }
          </div>`
        : nothing
    }
    ${
      shown.length
        ? html`<dl class="facts">
            ${shown.map(
              ([name, v]) =>
                html`<div>
                  <dt>${name}</dt>
                  <dd>${value(v)}</dd>
                </div>`,
            )}
          </dl>`
        : nothing
    }
  </li>`;
}

/** A flow: open when it is not shown, so what held it back is the first thing read (its sentence is its first rule's). */
export function renderFlow(flow: FlowExplanation): TemplateResult {
  const held = flow.reasons.find((reason) => !reason.passed);
  return html`<details class="flow ${flow.shown ? 'shown' : 'held'}" data-flow=${flow.flowSlug} ?open=${!flow.shown}>
    <summary>
      <span class="flow-name">${flow.name}</span>
      <span class="slug">${flow.flowSlug} · ${TYPE_LABELS[flow.type] ?? flow.type}</span>
      <span class="badge ${flow.shown ? '' : 'off'}">${flow.shown ? 'Shown' : 'Not shown'}</span>
      <span class="badge plain">${flowProgress(flow)}</span>
      ${held ? html`<span class="held-by">Held by <strong>${RULE_LABELS[held.rule] ?? held.rule}</strong></span>` : nothing}
    </summary>
    <ol class="reasons" aria-label="Rules of ${flow.name}, failed first">
      ${failedFirst(flow.reasons).map(renderReason)}
    </ol>
  </details>`;
}
