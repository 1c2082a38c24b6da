// Styles of <onboarding-tour>: the anchored tooltip and its arrow, the centred variant, the overlay and the spotlight.
import { css } from 'lit';

export default css`
  :host {
    display: contents;
  }
  .tooltip {
    position: fixed;
    z-index: 2147483647;
    width: min(var(--onboarding-tour-width, 20rem), calc(100vw - 1rem));
    padding: 1rem;
    overflow: visible;
    box-shadow: var(--_shadow);
    animation: appear var(--_speed) ease-out;
  }
  .tooltip[popover]:not(:popover-open),
  .overlay[popover]:not(:popover-open) {
    display: none;
  }
  .tooltip.anchored {
    inset: auto;
    top: 0;
    left: 0;
    margin: 0;
  }
  .tooltip.centred {
    inset: 0;
    margin: auto;
    height: fit-content;
  }
  .tooltip:focus {
    outline: none;
  }
  .tooltip:focus-visible {
    outline: 2px solid var(--_accent);
  }
  .content {
    display: grid;
    gap: 0.625rem;
    max-height: calc(100vh - 3rem);
    overflow: auto;
  }
  .head {
    align-items: center;
  }
  .counter {
    color: var(--_muted);
    font-size: 0.85em;
  }
  .actions {
    justify-content: flex-end;
  }
  .arrow {
    position: absolute;
    width: 12px;
    height: 12px;
    background: var(--_bg);
    border: 1px solid var(--_border);
    transform: rotate(45deg);
  }
  [data-placement^='top'] .arrow {
    bottom: -6px;
    border-top: 0;
    border-left: 0;
  }
  [data-placement^='bottom'] .arrow {
    top: -6px;
    border-bottom: 0;
    border-right: 0;
  }
  [data-placement^='top'] .arrow,
  [data-placement^='bottom'] .arrow {
    left: var(--arrow);
  }
  [data-placement^='left'] .arrow {
    right: -6px;
    border-bottom: 0;
    border-left: 0;
  }
  [data-placement^='right'] .arrow {
    left: -6px;
    border-top: 0;
    border-right: 0;
  }
  [data-placement^='left'] .arrow,
  [data-placement^='right'] .arrow {
    top: var(--arrow);
  }
  .overlay {
    position: fixed;
    inset: 0;
    width: 100vw;
    height: 100vh;
    margin: 0;
    padding: 0;
    border: 0;
    z-index: 2147483646;
    pointer-events: none;
    background: var(--onboarding-backdrop, rgb(15 18 30 / 0.5));
  }
  .blocker {
    position: fixed;
    inset: 0;
    pointer-events: auto;
  }
  .overlay.with-spotlight {
    background: transparent;
  }
  .spotlight {
    position: fixed;
    border-radius: var(--_radius);
    box-shadow: 0 0 0 100vmax var(--onboarding-backdrop, rgb(15 18 30 / 0.5));
    transition: all var(--_speed);
  }
  @keyframes appear {
    from {
      opacity: 0;
    }
  }
`;
