// Styles of <onboarding-banner>, scoped to its shadow root and themed by --onboarding-* properties.
// The layout follows the banner's own width (a container query), not the viewport's: in a narrow column or on a
// phone the buttons go under the text instead of squeezing it.
import { css } from 'lit';

export default css`
  :host {
    display: block;
    container-type: inline-size;
  }
  :host([placement='top']) {
    position: sticky;
    top: 0;
    z-index: 1;
  }
  [part='base'] {
    display: grid;
    grid: 'b a c' / 1fr auto auto;
    align-items: center;
    gap: 0.5rem 1rem;
    padding: var(--onboarding-banner-padding, 0.75rem 1rem);
    background: var(--onboarding-banner-surface, var(--_subtle));
  }
  .body {
    grid-area: b;
    min-width: 0;
  }
  .actions {
    grid-area: a;
  }
  .close {
    grid-area: c;
  }
  .title {
    font-size: 1em;
  }
  @container (max-width: 34rem) {
    [part='base'] {
      grid: 'b c' 'a a' / 1fr auto;
      align-items: start;
    }
  }
`;
