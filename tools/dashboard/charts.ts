// Plain SVG charts for the dashboard (a trend by day, a bar, a score distribution, rates with their intervals): no charting library earns its bytes here.
import { html, svg, type TemplateResult } from 'lit';
import type { ExperimentVariantReport, FlowDay } from '../../src/api/wire.js';
import { count, day, percent, percentRange } from './format.js';

/** A round number at or above `n` (1, 2 or 5 times a power of ten), so axis labels read well. */
export function niceCeiling(n: number): number {
  if (n <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  return ([1, 2, 5, 10].find((step) => step * power >= n) ?? 10) * power;
}

/**
 * A horizontal bar of `share` (0..1), drawn in SVG: its width is an attribute, so no inline style is needed
 * (a strict CSP blocks the style attribute that Lit's styleMap sets on first render).
 */
export function bar(share: number, tone: 'accent' | 'good' | 'bad' = 'accent'): TemplateResult {
  const width = `${Math.round(Math.max(0, Math.min(1, share)) * 1000) / 10}%`;
  return html`<svg class="meter" aria-hidden="true" focusable="false">
    <rect class="meter-track" width="100%" height="100%" rx="4"></rect>
    ${share > 0 ? svg`<rect class="meter-fill ${tone}" width=${width} height="100%" rx="4"></rect>` : ''}
  </svg>`;
}

const W = 1000;
const H = 220;
const PAD = { left: 44, right: 16, top: 14, bottom: 30 };

/**
 * Users who started the flow each day (an area) and, of them, those who completed it (a line). The chart is
 * an image with a text summary; the numbers are in the table beside it for screen readers and keyboards.
 */
export function trendChart(days: FlowDay[]): TemplateResult {
  const n = days.length;
  const max = niceCeiling(Math.max(1, ...days.map((d) => d.started)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (n > 1 ? (i * plotW) / (n - 1) : plotW / 2);
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const line = (values: number[]) =>
    values.map((v, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join('');
  const started = days.map((d) => d.started);
  const completed = days.map((d) => d.completed);
  const area = `${line(started)}L${x(n - 1).toFixed(1)},${y(0)}L${x(0).toFixed(1)},${y(0)}Z`;
  // Five dates along the axis (fewer for a short window), always the first and the last.
  const labels = n > 5 ? [...new Set([0, 1, 2, 3, 4].map((k) => Math.round((k * (n - 1)) / 4)))] : [...days.keys()];
  const total = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const summary = `${count(total(started))} started and ${count(total(completed))} of them completed, ${day(days[0].date)} to ${day(days[n - 1].date)}; at most ${count(Math.max(...started))} started on one day.`;
  return html`<svg class="trend" viewBox="0 0 ${W} ${H}" role="img" aria-label=${summary}>
    <title>${summary}</title>
    ${[0, 0.5, 1].map(
      (f) => svg`<line class="gridline" x1=${PAD.left} x2=${W - PAD.right} y1=${y(max * f)} y2=${y(max * f)}></line>
        <text class="axis" x=${PAD.left - 8} y=${y(max * f) + 4} text-anchor="end">${count(max * f)}</text>`,
    )}
    <path class="area" d=${area}></path>
    <path class="line started" d=${line(started)}></path>
    <path class="line completed" d=${line(completed)}></path>
    ${n <= 45 ? days.map((d, i) => svg`<circle class="dot completed" cx=${x(i)} cy=${y(d.completed)} r="2.5"><title>${day(d.date)}: ${d.started} started, ${d.completed} completed</title></circle>`) : ''}
    ${labels.map((i) => svg`<text class="axis" x=${x(i)} y=${H - 8} text-anchor=${i === 0 ? 'start' : i === n - 1 ? 'end' : 'middle'}>${day(days[i].date)}</text>`)}
  </svg>`;
}

/** Columns of answers per score 0–10, coloured as detractors, passives and promoters. */
export function scoreColumns(
  distribution: number[],
  first = 0,
  tone: (score: number) => string = npsTone,
): TemplateResult {
  const max = Math.max(1, ...distribution);
  const cw = 44;
  const width = distribution.length * cw;
  const height = 150;
  const plotH = 100;
  return html`<svg class="columns" viewBox="0 0 ${width} ${height}" aria-hidden="true">
    ${distribution.map((n, i) => {
      const h = Math.max(n > 0 ? 2 : 0, (n / max) * plotH);
      const cx = i * cw + cw / 2;
      return svg`<rect class="column ${tone(first + i)}" x=${i * cw + 6} y=${20 + plotH - h} width=${cw - 12} height=${h} rx="4"></rect>
        <text class="axis" x=${cx} y=${14 + plotH - h} text-anchor="middle">${n > 0 ? count(n) : ''}</text>
        <text class="tick" x=${cx} y=${height - 12} text-anchor="middle">${first + i}</text>`;
    })}
  </svg>`;
}

const WHISKER = { width: 1000, row: 44, left: 170, right: 28, top: 6, bottom: 30 };

/**
 * Each variant's rate (a dot) and its 95 % interval (a whisker), one row per variant on a shared scale from 0 to a
 * round maximum, with the baseline's rate as a dashed line across the rows. An image with a text summary; the
 * numbers are in the table beside it too.
 */
export function intervalChart(variants: ExperimentVariantReport[]): TemplateResult {
  const { width, row, left, right, top, bottom } = WHISKER;
  const max = Math.min(1, niceCeiling(Math.max(0.01, ...variants.map((v) => v.interval?.[1] ?? 0))));
  const height = top + variants.length * row + bottom;
  const x = (share: number) => left + (share / max) * (width - left - right);
  const y = (index: number) => top + index * row + row / 2;
  const baseline = variants.find((v) => v.baseline);
  const describe = (v: ExperimentVariantReport) =>
    v.rate === null || v.interval === null
      ? `${v.id}: no one exposed`
      : `${v.id}${v.baseline ? ' (baseline)' : ''}: ${percent(v.rate)}, 95 % interval ${percentRange(v.interval)}`;
  const summary = `Conversion rate with its 95 % interval, by variant. ${variants.map(describe).join('; ')}.`;
  return html`<svg class="intervals" viewBox="0 0 ${width} ${height}" role="img" aria-label=${summary}>
    <title>${summary}</title>
    ${[0, 0.5, 1].map(
      (f) => svg`<line class="gridline" x1=${x(max * f)} x2=${x(max * f)} y1=${top} y2=${height - bottom}></line>
        <text class="axis" x=${x(max * f)} y=${height - 8} text-anchor="middle">${percent(max * f)}</text>`,
    )}
    ${baseline?.rate != null ? svg`<line class="baseline-rate" x1=${x(baseline.rate)} x2=${x(baseline.rate)} y1=${top} y2=${height - bottom}></line>` : ''}
    ${variants.map((v, i) => {
      const label = svg`<text class="variant-label ${v.baseline ? 'is-baseline' : ''}" x=${left - 14} y=${y(i) + 4} text-anchor="end">${v.id}${v.baseline ? ' (baseline)' : ''}</text>`;
      if (v.rate === null || v.interval === null)
        return svg`${label}<text class="axis" x=${left} y=${y(i) + 4}>no one exposed</text>`;
      const [lower, upper] = v.interval;
      return svg`${label}<g class="whisker ${v.baseline ? 'is-baseline' : ''}">
        <line class="range" x1=${x(lower)} x2=${x(upper)} y1=${y(i)} y2=${y(i)}></line>
        <line class="cap" x1=${x(lower)} x2=${x(lower)} y1=${y(i) - 8} y2=${y(i) + 8}></line>
        <line class="cap" x1=${x(upper)} x2=${x(upper)} y1=${y(i) - 8} y2=${y(i) + 8}></line>
        <circle class="rate" cx=${x(v.rate)} cy=${y(i)} r="6"></circle>
      </g>`;
    })}
  </svg>`;
}

export const npsTone = (score: number) => (score >= 9 ? 'good' : score >= 7 ? 'warn' : 'bad');

/** Chart styles, shared by every element that draws one. */
export { default as chartStyles } from './charts.styles.js';
