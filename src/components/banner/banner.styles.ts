// Styles of <onboarding-banner>, scoped to its shadow root and themed by --onboarding-* properties.
import { css } from 'lit';

export default css`
  :host {
    display: block;
  }
  :host([placement='top']) {
    position: sticky;
    top: 0;
    z-index: 1;
  }
  [part='base'] {
    display: flex;
    align-items: center;
    gap: 1rem;
    padding: var(--onboarding-banner-padding, 0.75rem 1rem);
    background: var(--onboarding-banner-surface, var(--_subtle));
  }
  .body {
    flex: 1;
    min-width: 0;
  }
  .title {
    font-size: 1em;
  }
`;
