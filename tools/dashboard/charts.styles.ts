// Styles of the dashboard's SVG charts and bars: colours come from the page's theme tokens.
import { css } from 'lit';

export default css`
  svg {
    display: block;
    width: 100%;
    height: auto;
    overflow: visible;
  }
  svg.meter {
    height: 8px;
    min-width: 60px;
    overflow: hidden;
  }
  .meter-track {
    fill: var(--db-track);
  }
  .meter-fill {
    fill: var(--db-accent);
  }
  .meter-fill.good {
    fill: var(--db-good);
  }
  .meter-fill.bad {
    fill: var(--db-bad);
  }
  .gridline {
    stroke: var(--db-border);
    stroke-width: 1;
  }
  .axis,
  .tick {
    fill: var(--db-muted);
    font-size: 12px;
    font-variant-numeric: tabular-nums;
  }
  .tick {
    font-weight: 600;
  }
  .area {
    fill: var(--db-accent);
    opacity: 0.12;
  }
  .line {
    fill: none;
    stroke-width: 2.25;
    stroke-linejoin: round;
    stroke-linecap: round;
  }
  .line.started {
    stroke: var(--db-accent);
  }
  .line.completed {
    stroke: var(--db-good);
  }
  .dot.completed {
    fill: var(--db-good);
  }
  .column.good {
    fill: var(--db-good);
  }
  .column.warn {
    fill: var(--db-warn);
  }
  .column.bad {
    fill: var(--db-bad);
  }
  .column.accent {
    fill: var(--db-accent);
  }
  .whisker .range,
  .whisker .cap {
    stroke: var(--db-accent);
    stroke-width: 3;
    stroke-linecap: round;
  }
  .whisker .rate {
    fill: var(--db-accent);
    stroke: var(--db-surface);
    stroke-width: 2;
  }
  .whisker.is-baseline .range,
  .whisker.is-baseline .cap {
    stroke: var(--db-muted);
  }
  .whisker.is-baseline .rate {
    fill: var(--db-muted);
  }
  .baseline-rate {
    stroke: var(--db-muted);
    stroke-width: 1.5;
    stroke-dasharray: 6 5;
  }
  .variant-label {
    fill: var(--db-text);
    font-size: 14px;
    font-weight: 600;
  }
  .variant-label.is-baseline {
    fill: var(--db-muted);
  }
  .legend {
    display: flex;
    gap: 16px;
    font-size: 0.8125rem;
    color: var(--db-muted);
  }
  .legend span::before {
    content: '';
    display: inline-block;
    width: 10px;
    height: 10px;
    border-radius: 3px;
    margin-inline-end: 6px;
    vertical-align: -1px;
    background: var(--db-accent);
  }
  .legend .completed::before {
    background: var(--db-good);
  }
`;
