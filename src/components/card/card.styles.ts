// Styles of <onboarding-card>, scoped to its shadow root and themed by --onboarding-* properties.
// A container query, not the viewport: in a narrow column each button takes its share of a full row.
import { css } from 'lit';

export default css`
  :host {
    display: block;
    container-type: inline-size;
  }
  [part='base'] {
    display: grid;
    gap: 0.75rem;
    padding: var(--onboarding-card-padding, 1rem);
    box-shadow: var(--onboarding-card-shadow, 0 1px 3px rgb(0 0 0 / 0.08));
  }
  @container (max-width: 20rem) {
    .button {
      flex: 1;
    }
  }
`;
