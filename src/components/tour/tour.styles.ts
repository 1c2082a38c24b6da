// Styles of <onboarding-tour>: the anchored tooltip, the centred variant, the overlay and the spotlight (what every anchored tooltip shares is the target engine's).
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
  .content {
    gap: 0.625rem;
  }
  .counter {
    color: var(--_muted);
    font-size: 0.85em;
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
`;
