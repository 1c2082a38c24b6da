// Styles of <onboarding-survey>: a corner popover (inline-end, bottom) with the rating's stars, the choices and the text answer (the scale's are shared with the form).
import { css } from 'lit';

export default css`
  :host {
    display: contents;
  }
  [part='base'] {
    position: fixed;
    inset: auto;
    inset-block-end: 1rem;
    inset-inline-end: 1rem;
    z-index: 2147483647;
    margin: 0;
    width: min(var(--onboarding-survey-width, 24rem), calc(100vw - 2rem));
    /* As tall as its content on every engine: WebKit's gives this popover its max-height, spread over the rows. */
    height: fit-content;
    max-height: calc(100vh - 2rem);
    overflow: auto;
    padding: 1rem;
    display: grid;
    align-content: start;
    gap: 0.75rem;
    box-shadow: var(--_shadow);
    animation: rise var(--_speed) ease-out;
  }
  [part='base'][popover]:not(:popover-open) {
    display: none;
  }
  .rating .point span {
    border: 0;
    font-size: 1.5rem;
    color: var(--_border);
  }
  .rating .point:has(~ .point input:checked) span,
  .rating .point input:checked + span {
    background: none;
    color: var(--_accent);
  }
  .label {
    font-weight: 600;
  }
  .error {
    margin: 0;
    color: var(--_danger);
    font-size: 0.9em;
  }
  .options {
    display: grid;
    gap: 0.25rem;
  }
  .option {
    display: flex;
    gap: 0.5rem;
    align-items: center;
  }
  textarea {
    width: 100%;
    min-height: 5rem;
    padding: 0.45rem 0.6rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) - 2px);
    background: var(--_bg);
    color: var(--_fg);
    font: inherit;
  }
  textarea[aria-invalid='true'] {
    border-color: var(--_danger);
  }
  .actions {
    justify-content: flex-end;
  }
  @keyframes rise {
    from {
      opacity: 0;
      transform: translateY(0.5rem);
    }
  }
  /* The polite live region that announces the question. */
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    margin: -1px;
    padding: 0;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
    border: 0;
  }
  /* Submit stays disabled until there is an answer. */
  .button:disabled {
    opacity: 0.55;
    cursor: not-allowed;
  }
`;
