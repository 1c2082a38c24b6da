// Styles of <ob-survey-panel>: the score, the group shares, choice bars and comment quotes.
import { css } from 'lit';

export default css`
  .panel {
    display: grid;
    gap: 20px;
    margin-bottom: 20px;
  }
  .split {
    display: grid;
    grid-template-columns: minmax(260px, 340px) 1fr;
    gap: 40px;
    align-items: center;
  }
  .question {
    display: block;
    font-weight: 400;
    color: var(--db-muted);
    font-size: 0.875rem;
    margin-top: 2px;
  }
  .nps {
    display: grid;
    gap: 20px;
  }
  .score {
    display: grid;
    gap: 2px;
  }
  .score-value {
    font-size: 3rem;
    font-weight: 700;
    letter-spacing: -0.03em;
    line-height: 1;
    font-variant-numeric: tabular-nums;
  }
  .score.good .score-value {
    color: var(--db-good-text);
  }
  .score.bad .score-value {
    color: var(--db-bad-text);
  }
  .groups {
    display: grid;
    gap: 10px;
    margin: 0;
  }
  .groups div {
    display: flex;
    justify-content: space-between;
    align-items: baseline;
    gap: 12px;
    padding-bottom: 8px;
    border-bottom: 1px solid var(--db-border);
  }
  .groups div:last-child {
    border-bottom: none;
  }
  .groups dt {
    color: var(--db-muted);
    font-size: 0.8125rem;
  }
  .groups dd {
    margin: 0;
    font-size: 1.0625rem;
    font-weight: 600;
    font-variant-numeric: tabular-nums;
  }
  .groups .muted {
    font-size: 0.875rem;
    font-weight: 400;
  }
  .dot {
    display: inline-block;
    width: 9px;
    height: 9px;
    border-radius: 50%;
    margin-inline-end: 6px;
  }
  .dot.good {
    background: var(--db-good);
  }
  .dot.warn {
    background: var(--db-warn);
  }
  .dot.bad {
    background: var(--db-bad);
  }
  figure {
    margin: 0;
    max-width: 640px;
    width: 100%;
    justify-self: end;
  }
  .big {
    font-size: 2rem;
    font-weight: 700;
    margin: 0 0 8px;
  }
  .big small {
    font-size: 0.875rem;
    font-weight: 500;
    color: var(--db-muted);
  }
  .choices {
    list-style: none;
    margin: 0;
    padding: 0;
    display: grid;
    gap: 12px;
  }
  .choices li {
    display: grid;
    grid-template-columns: minmax(90px, 180px) 1fr 52px;
    align-items: center;
    gap: 12px;
  }
  .comments {
    list-style: none;
    margin: 0;
    padding: 0;
    display: grid;
    gap: 14px;
  }
  .comments-scroll {
    max-height: 360px;
    overflow-y: auto;
    padding: 2px;
    border-radius: 8px;
  }
  blockquote {
    margin: 0;
    padding: 8px 12px;
    border-inline-start: 3px solid var(--db-accent);
    background: var(--db-raised);
    border-radius: 0 8px 8px 0;
  }
  .comments p {
    margin: 4px 0 0 15px;
  }
  @media (max-width: 760px) {
    .split {
      grid-template-columns: 1fr;
    }
  }
`;
