// Styles of <onboarding-checklist>: header, native progress bar and the accordion of steps.
import { css } from 'lit';

export default css`
  :host {
    display: block;
  }
  [part='base'] {
    display: grid;
    gap: 0.75rem;
    padding: var(--onboarding-checklist-padding, 1rem);
  }
  .header {
    display: flex;
    align-items: center;
    gap: 0.75rem;
  }
  .title {
    flex: 1;
  }
  .progress-label {
    color: var(--_muted);
    font-size: 0.9em;
  }
  progress {
    appearance: none;
    width: 100%;
    height: 0.5rem;
    border: 0;
    border-radius: 999px;
    overflow: hidden;
    background: var(--_subtle);
  }
  progress::-webkit-progress-bar {
    background: var(--_subtle);
  }
  progress::-webkit-progress-value {
    background: var(--_accent);
    transition: width var(--_speed);
  }
  progress::-moz-progress-bar {
    background: var(--_accent);
  }
  .steps {
    list-style: none;
    margin: 0;
    padding: 0;
    display: grid;
    gap: 0.25rem;
  }
  .step-header {
    display: flex;
    align-items: center;
    gap: 0.75rem;
    width: 100%;
    padding: 0.5rem;
    border: 0;
    border-radius: calc(var(--_radius) - 2px);
    background: transparent;
    color: inherit;
    font: inherit;
    text-align: start;
    cursor: pointer;
  }
  .step-header:hover {
    background: var(--_subtle);
  }
  .step-header[aria-disabled='true'] {
    cursor: not-allowed;
    color: var(--_muted);
  }
  .marker {
    flex: none;
    display: inline-flex;
    align-items: center;
    justify-content: center;
    width: 1.5rem;
    height: 1.5rem;
    border-radius: 50%;
    border: 1px solid var(--_border);
    font-size: 0.8em;
  }
  .done .marker {
    background: var(--_accent);
    border-color: var(--_accent);
    color: var(--_on-accent);
  }
  .current .marker {
    border-color: var(--_accent);
    color: var(--_accent);
  }
  .step-title {
    flex: 1;
    font-weight: 600;
  }
  .done .step-title,
  .skipped .step-title {
    text-decoration: line-through;
    color: var(--_muted);
  }
  .state {
    color: var(--_muted);
    font-size: 0.85em;
  }
  .step-body {
    display: grid;
    gap: 0.5rem;
    padding: 0 0.5rem 0.5rem 2.75rem;
    padding-inline: 2.75rem 0.5rem;
  }
  .step-body[hidden] {
    display: none;
  }
`;
