// Styles of <onboarding-form>: stacked fields, choice groups and error messages.
import { css } from 'lit';

export default css`
  :host {
    display: block;
  }
  [part='base'] {
    display: grid;
    gap: 0.875rem;
    padding: var(--onboarding-form-padding, 1rem);
  }
  .counter {
    color: var(--_muted);
    font-size: 0.85em;
  }
  .field {
    display: grid;
    gap: 0.3rem;
  }
  .field.checkbox:not(:has(.choices)) {
    grid-template-columns: auto 1fr;
    align-items: center;
  }
  .field.checkbox:not(:has(.choices)) .label {
    order: 1;
  }
  .label {
    font-weight: 600;
  }
  .required {
    color: var(--_danger);
  }
  input:not([type='checkbox']):not([type='radio']),
  textarea,
  select {
    width: 100%;
    padding: 0.45rem 0.6rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) - 2px);
    background: var(--_bg);
    color: var(--_fg);
    font: inherit;
  }
  textarea {
    min-height: 5rem;
    resize: vertical;
  }
  [aria-invalid='true'] {
    border-color: var(--_danger) !important;
  }
  .choices {
    display: grid;
    gap: 0.25rem;
  }
  .choice {
    display: flex;
    align-items: center;
    gap: 0.5rem;
  }
  .error {
    margin: 0;
    color: var(--_danger);
    font-size: 0.9em;
  }
  /* Submit stays disabled while a field is invalid. */
  .button:disabled {
    opacity: 0.55;
    cursor: not-allowed;
  }
`;
