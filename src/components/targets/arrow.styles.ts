// Styles of the arrow a popover anchored by the target engine points at its target with (anchor() sets --arrow and data-placement).
import { css } from 'lit';

export default css`
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
