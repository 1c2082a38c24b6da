// Styles of <onboarding-flow>: it lays out nothing itself.
import { css } from 'lit';

export default css`
  :host {
    display: contents;
  }
`;
