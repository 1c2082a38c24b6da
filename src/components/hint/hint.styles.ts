// Styles of <onboarding-hint> and <onboarding-tooltip>: the pulsing beacon, and the anchored tooltip (the tour's look; what every anchored tooltip shares is the target engine's).
import { css } from 'lit';

export default css`
  :host {
    display: contents;
  }
  [popover] {
    position: fixed;
    z-index: 2147483647;
    inset: auto;
    top: 0;
    left: 0;
    margin: 0;
    overflow: visible;
  }
  [popover]:not(:popover-open) {
    display: none;
  }
  .beacon {
    width: 24px;
    height: 24px;
    padding: 0;
    border: 0;
    border-radius: 50%;
    background: transparent;
    cursor: pointer;
  }
  .beacon::before,
  .beacon::after {
    content: '';
    position: absolute;
    inset: 6px;
    border-radius: 50%;
    background: var(--onboarding-beacon, var(--_accent));
  }
  .beacon::before {
    box-shadow: 0 0 0 2px var(--_bg);
  }
  .beacon::after {
    animation: pulse 1.6s ease-out infinite;
  }
  .beacon[aria-expanded='true']::after {
    animation: none;
    opacity: 0;
  }
  .beacon.away {
    visibility: hidden;
  }
  .tooltip {
    width: min(var(--onboarding-tooltip-width, 18rem), calc(100vw - 1rem));
    padding: 0.875rem 1rem;
    box-shadow: var(--_shadow);
    animation: appear var(--_speed) ease-out;
  }
  .content {
    gap: 0.5rem;
  }
  .close {
    margin-inline-start: auto;
  }
  @keyframes pulse {
    from {
      opacity: 0.6;
    }
    to {
      transform: scale(2.4);
      opacity: 0;
    }
  }
`;
