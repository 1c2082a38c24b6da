// Styles of <onboarding-announcement>: the dialog, its backdrop, the step dots and an entrance that respects reduced motion.
import { css } from 'lit';

export default css`
  :host {
    display: contents;
  }
  dialog {
    width: min(var(--onboarding-announcement-width, 28rem), calc(100vw - 2rem));
    max-height: calc(100vh - 2rem);
    overflow: auto;
    padding: 1.25rem;
    box-shadow: var(--_shadow);
    animation: enter var(--_speed) ease-out;
  }
  dialog::backdrop {
    background: var(--onboarding-backdrop, rgb(15 18 30 / 0.5));
  }
  /* As tall as its content on every engine: WebKit's own style gives a modal dialog no fit-content height. */
  dialog[open] {
    display: grid;
    gap: 0.75rem;
    height: fit-content;
    align-content: start;
  }
  .head {
    align-items: center;
    min-height: 2rem;
  }
  .counter {
    color: var(--_muted);
    font-size: 0.85em;
  }
  .close {
    margin-inline-start: auto;
  }
  .actions {
    justify-content: flex-end;
  }
  .dots {
    display: flex;
    justify-content: center;
    gap: 0.375rem;
  }
  .dot {
    width: 0.5rem;
    height: 0.5rem;
    border-radius: 50%;
    background: var(--_border);
  }
  .dot.current {
    background: var(--_accent);
  }
  @keyframes enter {
    from {
      opacity: 0;
      transform: translateY(0.5rem) scale(0.98);
    }
  }
`;
