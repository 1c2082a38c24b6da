// Layout of the dashboard's report views: the title row, the KPI tiles, cards in a grid, the tables in them, and an experiment's banners and verdict.
import { css } from 'lit';

export default css`
  .title-row {
    display: flex;
    align-items: baseline;
    gap: 12px;
    flex-wrap: wrap;
    margin-bottom: 20px;
  }
  .kpis {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(170px, 1fr));
    gap: 16px;
    margin-bottom: 20px;
  }
  .kpi {
    background: var(--db-surface);
    border: 1px solid var(--db-border);
    border-radius: 12px;
    box-shadow: var(--db-shadow);
    padding: 16px 18px;
    display: grid;
    gap: 4px;
  }
  .kpi-label {
    color: var(--db-muted);
    font-size: 0.8125rem;
    font-weight: 500;
  }
  .kpi-value {
    font-size: 1.75rem;
    font-weight: 650;
    letter-spacing: -0.02em;
    font-variant-numeric: tabular-nums;
  }
  .kpi-value small {
    font-size: 0.875rem;
    font-weight: 500;
    color: var(--db-muted);
    letter-spacing: 0;
  }
  .card.flush {
    padding: 6px 0;
  }
  .scroll {
    overflow-x: auto;
  }
  .stack,
  .grid {
    display: grid;
    gap: 20px;
    margin-bottom: 20px;
  }
  .flow-link {
    font-weight: 600;
    text-decoration: none;
  }
  .flow-link:hover {
    text-decoration: underline;
  }
  .slug {
    display: block;
    color: var(--db-muted);
    font-size: 0.8125rem;
  }
  .wide {
    min-width: 180px;
  }
  .rate {
    display: grid;
    grid-template-columns: 1fr 52px;
    align-items: center;
    gap: 10px;
  }
  .empty {
    color: var(--db-muted);
    padding: 24px;
    margin: 0;
    text-align: center;
  }
  details summary {
    cursor: pointer;
    color: var(--db-muted);
    font-size: 0.8125rem;
    margin-top: 8px;
  }
  .back {
    display: inline-block;
    margin-bottom: 12px;
    text-decoration: none;
    font-weight: 500;
  }
  .version {
    margin-inline-start: auto;
    display: flex;
    align-items: center;
    gap: 8px;
    color: var(--db-muted);
    font-size: 0.8125rem;
  }
  .funnel th[scope='row'],
  .reshow th[scope='row'],
  .locales th[scope='row'],
  .goal th[scope='row'],
  .variants-table th[scope='row'] {
    font-weight: 500;
    text-transform: none;
    letter-spacing: 0;
    font-size: inherit;
    color: var(--db-text);
    white-space: normal;
    border-bottom: 1px solid var(--db-border);
  }
  .funnel tr:last-child th,
  .reshow tr:last-child th,
  .locales tr:last-child th,
  .goal tr:last-child th,
  .variants-table tr:last-child th {
    border-bottom: none;
  }
  .centre caption {
    text-align: start;
    font-weight: 600;
    padding: 12px 0 6px;
  }
  .locale-code {
    margin-inline-start: 6px;
    color: var(--db-muted);
    font-size: 0.8125rem;
  }
  .step-index {
    display: inline-grid;
    place-items: center;
    width: 22px;
    height: 22px;
    margin-inline-end: 8px;
    border-radius: 50%;
    background: var(--db-accent-soft);
    color: var(--db-accent-text);
    font-size: 0.75rem;
    font-weight: 700;
  }
  .of {
    display: inline-block;
    min-width: 46px;
    color: var(--db-muted);
    font-size: 0.8125rem;
  }
  .dropped,
  .missing {
    color: var(--db-bad-text);
  }
  .note {
    margin: 0;
    padding: 8px 12px 0;
    color: var(--db-muted);
    font-size: 0.8125rem;
  }
  .days {
    max-height: 260px;
    overflow-y: auto;
    margin-top: 8px;
  }
  .days th[scope='row'] {
    font-size: inherit;
    text-transform: none;
    letter-spacing: 0;
    font-weight: 500;
    color: var(--db-text);
  }
  .padded {
    padding: 12px 20px;
    margin: 0;
  }
  .foot {
    display: flex;
    align-items: center;
    gap: 12px;
    min-height: 8px;
  }
  .nowrap {
    white-space: nowrap;
  }
  .answer {
    max-width: 420px;
    overflow-wrap: anywhere;
  }
  .page {
    color: var(--db-muted);
    font-size: 0.8125rem;
    max-width: 240px;
    overflow-wrap: anywhere;
  }
  .banner {
    margin: 0 0 16px;
    border-radius: 8px;
    padding: 10px 14px;
  }
  .banner.warn {
    border: 1px solid var(--db-warn);
    background: var(--db-surface);
  }
  .verdict.good {
    color: var(--db-good-text);
  }
  .verdict.bad {
    color: var(--db-bad-text);
  }
  .verdict.warn {
    font-weight: 600;
  }
  .verdict.lead {
    margin: 0 0 20px;
    font-size: 1rem;
    font-weight: 600;
  }
  ul.variants {
    list-style: none;
    margin: 0;
    padding: 0;
    display: grid;
    gap: 2px;
  }
  .methods {
    margin: 0;
    display: grid;
    gap: 8px;
  }
  .methods div {
    display: grid;
    grid-template-columns: minmax(160px, 220px) 1fr;
    gap: 12px;
  }
  .methods dt {
    font-weight: 600;
  }
  .methods dd {
    margin: 0;
  }
  .methods code {
    margin-inline-start: 6px;
    color: var(--db-muted);
    font-size: 0.8125rem;
  }
`;
