// Styles of <onboarding-resource-center>: the floating launcher and its badge, the non-modal panel beside it (a sheet at
// phone width), and the blocks' rows.
import { css } from 'lit';

export default css`
  :host {
    --_gap: var(--onboarding-resource-center-offset, 1.25rem);
    --_launcher: 3.25rem;
  }
  .launcher,
  .panel {
    position: fixed;
    z-index: var(--onboarding-z-index, 2147483000);
  }
  .launcher {
    display: inline-flex;
    align-items: center;
    gap: 0.5rem;
    min-width: var(--_launcher);
    height: var(--_launcher);
    padding: 0 0.9rem;
    border: 0;
    border-radius: 999px;
    background: var(--_accent);
    color: var(--_on-accent);
    font: var(--_font);
    font-weight: 600;
    box-shadow: var(--_shadow);
    cursor: pointer;
  }
  .top-left,
  .top-right {
    top: var(--_gap);
  }
  .bottom-left,
  .bottom-right {
    bottom: var(--_gap);
  }
  .top-left,
  .bottom-left {
    left: var(--_gap);
  }
  .top-right,
  .bottom-right {
    right: var(--_gap);
  }
  .panel.top-left,
  .panel.top-right {
    top: calc(var(--_gap) + var(--_launcher) + 0.5rem);
  }
  .panel.bottom-left,
  .panel.bottom-right {
    bottom: calc(var(--_gap) + var(--_launcher) + 0.5rem);
  }
  .badge {
    min-width: 1.4rem;
    height: 1.4rem;
    padding: 0 0.35rem;
    border-radius: 999px;
    background: var(--_danger);
    color: #fff;
    font-size: 0.8rem;
    line-height: 1.4rem;
    text-align: center;
  }
  .sr {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
  .panel {
    display: flex;
    flex-direction: column;
    width: var(--onboarding-resource-center-width, 22rem);
    max-width: calc(100vw - 2 * var(--_gap));
    max-height: min(36rem, calc(100vh - 2 * var(--_gap) - var(--_launcher) - 0.5rem));
    box-shadow: var(--_shadow);
  }
  .head {
    align-items: center;
    padding: 0.75rem 0.75rem 0.5rem 1rem;
  }
  .body {
    display: grid;
    gap: 1rem;
    padding: 0 1rem 1rem;
    overflow-y: auto;
    overscroll-behavior: contain;
  }
  section {
    display: grid;
    gap: 0.4rem;
  }
  h3 {
    margin: 0;
    font-size: 0.8em;
    font-weight: 600;
    text-transform: uppercase;
    color: var(--_muted);
  }
  ul {
    display: grid;
    gap: 0.25rem;
    margin: 0;
    padding: 0;
    list-style: none;
  }
  .item {
    display: flex;
    align-items: center;
    gap: 0.5rem;
    width: 100%;
    padding: 0.5rem 0.6rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) - 2px);
    background: none;
    color: inherit;
    font: inherit;
    text-align: start;
    text-decoration: none;
    cursor: pointer;
  }
  .item:hover {
    background: var(--_subtle);
  }
  .item > :first-child {
    flex: 1;
  }
  .state {
    font-size: 0.8em;
    color: var(--_muted);
  }
  .state.new,
  .unread .state {
    color: var(--_accent);
    font-weight: 600;
  }
  .news {
    display: grid;
    gap: 0.3rem;
    padding: 0.6rem;
    border-radius: calc(var(--_radius) - 2px);
    background: var(--_subtle);
  }
  .news .title {
    font-size: 1em;
  }
  input {
    width: 100%;
    padding: 0.45rem 0.6rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) - 2px);
    background: var(--_bg);
    color: inherit;
    font: inherit;
  }
  onboarding-checklist::part(base) {
    padding: 0;
    border: 0;
  }
  onboarding-checklist::part(close-button) {
    display: none;
  }
  @media (max-width: 480px) {
    .panel.panel {
      inset: auto 0 0 0 !important;
      width: 100%;
      max-width: none;
      max-height: 85vh;
      border-radius: var(--_radius) var(--_radius) 0 0;
    }
  }
`;
