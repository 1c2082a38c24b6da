// What the tooltips anchored by the target engine share (tour, hint, tooltip): focus, a scrolling content grid, the button row, the fade in, and the arrow (anchor() sets --arrow and data-placement).
import { css } from 'lit';

export default css`
  .tooltip:focus {
    outline: none;
  }
  .tooltip:focus-visible {
    outline: 2px solid var(--_accent);
  }
  .content {
    display: grid;
    max-height: calc(100vh - 3rem);
    overflow: auto;
  }
  .head {
    align-items: center;
  }
  .actions {
    justify-content: flex-end;
  }
  @keyframes appear {
    from {
      opacity: 0;
    }
  }
  .arrow {
    position: absolute;
    width: 12px;
    height: 12px;
    background: var(--_bg);
    border: 1px solid var(--_border);
    transform: rotate(45deg);
  }
  [data-placement^='top'] .arrow {
    bottom: -6px;
    border-top: 0;
    border-left: 0;
  }
  [data-placement^='bottom'] .arrow {
    top: -6px;
    border-bottom: 0;
    border-right: 0;
  }
  [data-placement^='top'] .arrow,
  [data-placement^='bottom'] .arrow {
    left: var(--arrow);
  }
  [data-placement^='left'] .arrow {
    right: -6px;
    border-bottom: 0;
    border-left: 0;
  }
  [data-placement^='right'] .arrow {
    left: -6px;
    border-top: 0;
    border-right: 0;
  }
  [data-placement^='left'] .arrow,
  [data-placement^='right'] .arrow {
    top: var(--arrow);
  }
`;
