// Styles of the People page: the look-up form, the user's properties, groups and events, and each flow's explanation.
import { css } from 'lit';

export default css`
  form.lookup {
    display: flex;
    align-items: end;
    gap: 10px;
    flex-wrap: wrap;
    margin-bottom: 20px;
  }
  form.lookup label {
    display: grid;
    gap: 4px;
    font-weight: 600;
  }
  form.lookup input {
    font: inherit;
    color: var(--db-text);
    background: var(--db-raised);
    border: 1px solid var(--db-border);
    border-radius: 8px;
    padding: 6px 10px;
    min-width: min(360px, 70vw);
  }
  form.lookup input:focus-visible {
    outline: 2px solid var(--db-accent);
    outline-offset: 1px;
  }
  .user-grid {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(300px, 1fr));
    gap: 20px;
    margin-bottom: 20px;
  }
  .props th[scope='row'] {
    text-transform: none;
    letter-spacing: 0;
    font-size: inherit;
    font-weight: 500;
    color: var(--db-text);
  }
  .props td,
  .events td,
  .facts dd,
  code {
    overflow-wrap: anywhere;
  }
  code {
    font-size: 0.8125rem;
  }
  ul.groups {
    margin: 0;
    padding-inline-start: 18px;
  }
  .events-card {
    margin-bottom: 20px;
  }
  .events {
    max-height: 420px;
    overflow-y: auto;
  }
  .flows {
    display: grid;
    gap: 10px;
  }
  details.flow {
    border: 1px solid var(--db-border);
    border-radius: 10px;
    padding: 10px 14px;
  }
  details.flow.held {
    border-inline-start: 4px solid var(--db-bad);
  }
  details.flow summary {
    margin: 0;
    font-size: inherit;
    color: var(--db-text);
    display: flex;
    align-items: baseline;
    flex-wrap: wrap;
    gap: 8px;
    cursor: pointer;
  }
  .flow-name {
    font-weight: 600;
  }
  .flow .slug {
    color: var(--db-muted);
    font-size: 0.8125rem;
  }
  .badge.off {
    background: var(--db-track);
    color: var(--db-bad-text);
  }
  .held-by {
    color: var(--db-bad-text);
  }
  ol.reasons {
    list-style: none;
    margin: 10px 0 0;
    padding: 0;
    display: grid;
    gap: 8px;
  }
  li.reason {
    display: grid;
    grid-template-columns: 64px 110px 1fr;
    gap: 4px 10px;
    align-items: baseline;
  }
  .reason .mark {
    font-size: 0.75rem;
    font-weight: 700;
    text-transform: uppercase;
    letter-spacing: 0.04em;
  }
  .reason.failed .mark {
    color: var(--db-bad-text);
  }
  .reason.passed .mark {
    color: var(--db-good-text);
  }
  .reason.failed .rule {
    font-weight: 600;
  }
  .reason.passed .detail {
    color: var(--db-muted);
  }
  .reason .more,
  .reason .facts {
    grid-column: 3;
  }
  .facts {
    margin: 0;
    display: flex;
    flex-wrap: wrap;
    gap: 2px 16px;
    color: var(--db-muted);
    font-size: 0.8125rem;
  }
  .facts div {
    display: flex;
    gap: 6px;
  }
  .facts dd {
    margin: 0;
    color: var(--db-text);
  }
  ul.clauses,
  ul.operands {
    margin: 4px 0 0;
    padding-inline-start: 18px;
  }
  .clause.false strong {
    color: var(--db-bad-text);
  }
  .clause.true strong {
    color: var(--db-good-text);
  }
  .is,
  .error {
    color: var(--db-muted);
  }
`;
