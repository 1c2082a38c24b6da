// Styles of <onboarding-banner>, scoped to its shadow root and themed by --onboarding-* properties.
import { css } from 'lit';

export default css`
  :host {
    display: block;
  }
  :host([hidden]) {
    display: none;
  }
  [part='base'] {
    display: flex;
    align-items: center;
    gap: 1rem;
    padding: var(--onboarding-banner-padding, 0.75rem 1rem);
    border-radius: var(--onboarding-radius, 8px);
    background: var(--onboarding-surface, #f4f6ff);
    color: var(--onboarding-text, #1b1f2a);
    border: 1px solid var(--onboarding-border, #d6dcf5);
    font: var(--onboarding-font, 14px/1.4 system-ui, sans-serif);
  }
  [part='title'] {
    margin: 0;
    font-weight: 600;
    font-size: 1em;
  }
  [part='subtitle'] {
    margin: 0;
    color: var(--onboarding-muted, #4a5168);
  }
`;
