// Styles of the 0–10 scale and the star rating: a row of points, each a radio button drawn as a box, with the end labels under it.
import { css } from 'lit';

export default css`
  .scale {
    display: flex;
    gap: 0.25rem;
  }
  .point {
    position: relative;
    flex: 1;
  }
  .point input {
    position: absolute;
    inset: 0;
    opacity: 0;
    margin: 0;
    cursor: pointer;
  }
  .point span {
    display: flex;
    align-items: center;
    justify-content: center;
    min-height: 2rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) - 4px);
    font-weight: 600;
  }
  .point input:checked + span {
    background: var(--_accent);
    border-color: var(--_accent);
    color: var(--_on-accent);
  }
  .point input:focus-visible + span {
    outline: 2px solid var(--_accent);
    outline-offset: 2px;
  }
  .scale[aria-invalid='true'] .point span {
    border-color: var(--_danger);
  }
  .scale-labels {
    display: flex;
    justify-content: space-between;
    color: var(--_muted);
    font-size: 0.85em;
  }
`;
