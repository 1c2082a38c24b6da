// The picker's own styles, in its shadow root: fixed colours and fonts, so a light, dark or right-to-left page looks
// the same to it, and `!important` on the host, which a page's rules cannot override from outside.

/** Marks the template for the build, which minifies `css` templates; the text is the stylesheet as written. */
const css = String.raw;

// The host has no box of its own: both its children are fixed to the viewport, and the page's clicks pass through it.
export const pickerStyles = css`
  :host {
    all: initial !important;
    position: fixed !important;
    pointer-events: none !important;
    z-index: 2147483647 !important;
  }
  .box {
    position: fixed;
    display: none;
    box-sizing: border-box;
    border: 2px solid #2563eb;
    background: rgb(37 99 235 / 0.15);
  }
  .panel {
    position: fixed;
    right: 12px;
    bottom: 12px;
    max-width: min(520px, calc(100vw - 48px));
    padding: 8px 12px;
    border-radius: 8px;
    background: #111827;
    color: #f3f4f6;
    font:
      13px/1.45 system-ui,
      sans-serif;
    pointer-events: auto;
  }
  .top {
    top: 12px;
    bottom: auto;
  }
  p {
    margin: 4px 0 0;
  }
  code {
    display: block;
    margin-top: 4px;
    font:
      12px/1.4 ui-monospace,
      monospace;
    overflow-wrap: anywhere;
    user-select: all;
  }
  .line {
    color: #86efac;
  }
  .warn {
    color: #fcd34d;
  }
  .hint {
    color: #9ca3af;
  }
  button {
    float: right;
    margin-inline-start: 12px;
    border: 1px solid #4b5563;
    border-radius: 4px;
    background: #1f2937;
    color: inherit;
    font: inherit;
    cursor: pointer;
  }
  [hidden] {
    display: none;
  }
  @media (prefers-reduced-motion: no-preference) {
    .box {
      transition: 80ms ease-out;
      transition-property: left, top, width, height;
    }
  }
`;
