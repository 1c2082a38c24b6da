// Styles the dashboard's elements share: cards, tables, buttons, badges and focus rings, on the page's theme tokens.
import { css } from 'lit';

export default css`
  :host {
    display: block;
    color: var(--db-text);
    font: var(--db-font);
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  h1,
  h2,
  h3 {
    margin: 0;
    line-height: 1.25;
  }
  h1 {
    font-size: 1.5rem;
    font-weight: 650;
    letter-spacing: -0.01em;
  }
  h2 {
    font-size: 1rem;
    font-weight: 600;
  }
  /* Headings take focus on a new page, for screen readers; a ring around them would only distract. */
  h1[tabindex]:focus,
  h1[tabindex]:focus-visible {
    outline: none;
  }
  a {
    color: var(--db-accent-text);
  }
  .card {
    background: var(--db-surface);
    border: 1px solid var(--db-border);
    border-radius: 12px;
    box-shadow: var(--db-shadow);
    padding: 20px;
  }
  .card-head {
    display: flex;
    align-items: baseline;
    justify-content: space-between;
    gap: 12px;
    margin-bottom: 14px;
    flex-wrap: wrap;
  }
  .hint {
    color: var(--db-muted);
    font-size: 0.8125rem;
    font-weight: 400;
  }
  .muted {
    color: var(--db-muted);
  }
  button,
  select {
    font: inherit;
    color: var(--db-text);
    background: var(--db-surface);
    border: 1px solid var(--db-border);
    border-radius: 8px;
    padding: 6px 12px;
    cursor: pointer;
  }
  button:hover,
  select:hover {
    border-color: var(--db-muted);
  }
  button.primary {
    background: var(--db-accent);
    border-color: var(--db-accent);
    color: var(--db-on-accent);
    font-weight: 600;
  }
  button:disabled {
    opacity: 0.6;
    cursor: default;
  }
  :is(a, button, select, input, summary, [tabindex]):focus-visible {
    outline: 2px solid var(--db-accent);
    outline-offset: 2px;
  }
  table {
    width: 100%;
    border-collapse: collapse;
  }
  th {
    text-align: start;
    font-size: 0.75rem;
    font-weight: 600;
    text-transform: uppercase;
    letter-spacing: 0.04em;
    color: var(--db-muted);
    padding: 8px 12px;
    border-bottom: 1px solid var(--db-border);
    white-space: nowrap;
  }
  td {
    padding: 10px 12px;
    border-bottom: 1px solid var(--db-border);
    vertical-align: middle;
  }
  tr:last-child td {
    border-bottom: none;
  }
  .num {
    text-align: end;
    font-variant-numeric: tabular-nums;
    white-space: nowrap;
  }
  .badge {
    display: inline-block;
    padding: 1px 8px;
    border-radius: 999px;
    font-size: 0.75rem;
    font-weight: 600;
    background: var(--db-accent-soft);
    color: var(--db-accent-text);
    white-space: nowrap;
  }
  .badge.plain {
    background: var(--db-track);
    color: var(--db-muted);
  }
  .alert {
    border: 1px solid var(--db-bad);
    color: var(--db-bad-text);
    background: var(--db-surface);
    border-radius: 8px;
    padding: 10px 14px;
  }
  .sr-only {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
`;
