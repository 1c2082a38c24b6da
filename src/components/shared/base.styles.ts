// Styles every element shares: theme tokens with light and dark defaults, buttons, focus rings and reduced motion.
import { css, unsafeCSS } from 'lit';

const dark = unsafeCSS(`
  --_bg: var(--onboarding-surface, #1f2330);
  --_fg: var(--onboarding-text, #eef0f7);
  --_muted: var(--onboarding-muted, #b3b9cc);
  --_border: var(--onboarding-border, #3a4157);
  --_accent: var(--onboarding-accent, #8ea6ff);
  --_on-accent: var(--onboarding-on-accent, #10131c);
  --_subtle: var(--onboarding-subtle, #2a2f3f);
  --_danger: var(--onboarding-danger, #ff8787);
`);

export default css`
  :host {
    --_bg: var(--onboarding-surface, #ffffff);
    --_fg: var(--onboarding-text, #1b1f2a);
    --_muted: var(--onboarding-muted, #4a5168);
    --_border: var(--onboarding-border, #d6dcf5);
    --_accent: var(--onboarding-accent, #3651c9);
    --_on-accent: var(--onboarding-on-accent, #ffffff);
    --_subtle: var(--onboarding-subtle, #eef1fb);
    --_danger: var(--onboarding-danger, #b42318);
    --_radius: var(--onboarding-radius, 8px);
    --_font: var(--onboarding-font, 14px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif);
    --_shadow: var(--onboarding-shadow, 0 12px 32px rgb(0 0 0 / 0.2));
    --_speed: var(--onboarding-transition, 160ms);
    color-scheme: light;
  }
  @media (prefers-color-scheme: dark) {
    :host(:not([theme='light'])) {
      ${dark}
      color-scheme: dark;
    }
  }
  :host([theme='dark']) {
    ${dark}
    color-scheme: dark;
  }
  :host([hidden]) {
    display: none !important;
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  .surface {
    font: var(--_font);
    color: var(--_fg);
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    text-align: start;
  }
  .head {
    display: flex;
    align-items: flex-start;
    justify-content: space-between;
    gap: 0.5rem;
  }
  .title {
    margin: 0;
    font-weight: 600;
    font-size: 1.1em;
  }
  .text {
    margin: 0;
    color: var(--_muted);
  }
  .text p,
  .text ul,
  .text ol {
    margin: 0.25em 0;
  }
  a {
    color: var(--_accent);
  }
  .actions {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
    align-items: center;
  }
  .button {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    min-height: 2.25rem;
    padding: 0.4rem 0.9rem;
    border-radius: calc(var(--_radius) - 2px);
    border: 1px solid var(--_accent);
    font: inherit;
    font-weight: 600;
    text-decoration: none;
    cursor: pointer;
    background: var(--_accent);
    color: var(--_on-accent);
    transition: filter var(--_speed);
  }
  .button:hover {
    filter: brightness(1.08);
  }
  .button.secondary {
    background: transparent;
    color: var(--_accent);
  }
  .close {
    flex: none;
    display: inline-flex;
    align-items: center;
    justify-content: center;
    width: 2rem;
    height: 2rem;
    padding: 0;
    border: 0;
    border-radius: 50%;
    background: transparent;
    color: var(--_muted);
    font: inherit;
    font-size: 1.25rem;
    line-height: 1;
    cursor: pointer;
  }
  .close:hover {
    background: var(--_subtle);
  }
  :focus-visible {
    outline: 2px solid var(--_accent);
    outline-offset: 2px;
  }
  .media {
    display: block;
    max-width: 100%;
    height: auto;
    border-radius: calc(var(--_radius) - 2px);
  }
  @media (prefers-reduced-motion: reduce) {
    *,
    *::before,
    *::after {
      animation: none !important;
      transition: none !important;
      scroll-behavior: auto !important;
    }
  }
`;
