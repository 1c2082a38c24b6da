// Styles of <onboarding-card>, scoped to its shadow root and themed by --onboarding-* properties.
import { css } from 'lit';

export default css`
  :host {
    display: block;
  }
  [part='base'] {
    display: grid;
    gap: 0.75rem;
    padding: var(--onboarding-card-padding, 1rem);
    box-shadow: var(--onboarding-card-shadow, 0 1px 3px rgb(0 0 0 / 0.08));
  }
`;
