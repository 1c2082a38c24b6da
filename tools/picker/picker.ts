// The selector picker: outlines the element under the pointer (inside open shadow roots and same-origin iframes too),
// shows the selector it proposes and how many elements that matches, and on a click copies it as a flow file line.
import { copyText } from './clipboard.js';
import { selectorLine } from './flow-line.js';
import { pickerStyles } from './picker.styles.js';
import { proposeSelector, type Proposal } from './propose-selector.js';

/** Where a running picker keeps its stop function, so a second click on the bookmarklet closes it. */
const RUNNING = Symbol.for('onboarding.picker');

/** Bounds the frames followed, and how deep frames nest. */
const MAX_FRAMES = 64;
const MAX_FRAME_DEPTH = 6;

/** What a press or click on the page does while picking: nothing the app sees. */
const SWALLOWED = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'dblclick', 'auxclick', 'contextmenu'];
const WATCHED = [...SWALLOWED, 'pointermove', 'keydown', 'scroll', 'resize'];

type Running = Window & { [RUNNING]?: () => void };

/** The element holding `element` one level up: its parent, the host of its shadow root, or its frame element. */
function outerOf(element: Element): Element | null {
  if (element.parentElement) return element.parentElement;
  const root = element.getRootNode();
  if ('host' in root) return root.host as Element;
  try {
    return element.ownerDocument.defaultView?.frameElement ?? null;
  } catch {
    return null;
  }
}

/** Whether `element` is `ancestor` or inside it, through shadow roots and frames. */
function isWithin(element: Element, ancestor: Element): boolean {
  let node: Element | null = element;
  for (let i = 0; node && i < 1000; i++, node = outerOf(node)) if (node === ancestor) return true;
  return false;
}

/** The element's box in the viewport of `top`, adding up the offsets of the frames it sits in. */
function boxInTop(element: Element, top: Window): { x: number; y: number; width: number; height: number } {
  const own = element.getBoundingClientRect();
  let x = own.left;
  let y = own.top;
  let view = element.ownerDocument.defaultView;
  for (let i = 0; view && view !== top && i < MAX_FRAME_DEPTH; i++) {
    const frame = view.frameElement;
    if (!frame) break;
    const outer = frame.getBoundingClientRect();
    const style = frame.ownerDocument.defaultView!.getComputedStyle(frame);
    x += outer.left + frame.clientLeft + parseFloat(style.paddingLeft);
    y += outer.top + frame.clientTop + parseFloat(style.paddingTop);
    view = frame.ownerDocument.defaultView;
  }
  return { x, y, width: own.width, height: own.height };
}

/** Starts the picker on `top`'s page; returns the function that stops it. */
export function startPicker(top: Window = window): () => void {
  const doc = top.document;
  const make = <K extends keyof HTMLElementTagNameMap>(tag: K, className = '', text = ''): HTMLElementTagNameMap[K] => {
    const element = doc.createElement(tag);
    if (className) element.className = className;
    if (text) element.textContent = text;
    return element;
  };

  // The page's rules cannot reach into the shadow root, and its host's styles are `!important` from inside.
  const host = doc.createElement('onboarding-picker');
  const shadow = host.attachShadow({ mode: 'open' });
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(pickerStyles);
    shadow.adoptedStyleSheets = [sheet];
  } catch {
    shadow.append(make('style', '', pickerStyles));
  }
  const box = make('div', 'box');
  box.setAttribute('part', 'box');
  const panel = make('section', 'panel');
  panel.setAttribute('part', 'panel');
  panel.setAttribute('role', 'region');
  panel.setAttribute('aria-label', 'Selector picker');
  panel.dir = 'ltr';
  panel.lang = 'en';
  const close = make('button', '', 'Close');
  close.type = 'button';
  const title = make('strong', '', 'Selector picker');
  const selector = make('code', '', 'Point at an element.');
  const count = make('p');
  const line = make('code', 'line');
  line.hidden = true;
  const status = make('p');
  status.setAttribute('role', 'status');
  const hint = make('p', 'hint', 'Click: pick and copy · ↑ ↓: parent, back · Esc: exit');
  panel.append(close, title, selector, count, line, status, hint);
  shadow.append(box, panel);

  /** The element outlined, and the ones left by ↑ (for ↓). */
  let current: Element | null = null;
  let trail: Element[] = [];
  let shownFor: Element | null = null;
  let scheduled = 0;
  const listening: Window[] = [];
  const attached = new WeakSet<Document>();

  const guard =
    <A extends unknown[]>(run: (...args: A) => void) =>
    (...args: A) => {
      try {
        run(...args);
      } catch {
        // The picker is a guest on the page: whatever fails here must not break the app.
      }
    };

  /** Listens on `view` unless its document is followed already. */
  function listen(view: Window): void {
    const viewDoc = view.document;
    if (attached.has(viewDoc)) return;
    attached.add(viewDoc);
    listening.push(view);
    for (const type of WATCHED)
      view.addEventListener(type, onEvent, { capture: true, passive: type === 'scroll' || type === 'resize' });
  }

  /** Follows the pointer into every same-origin frame, nested ones too; cross-origin frames stay out of reach. */
  function followFrames(view: Window, depth = 0): void {
    for (let i = 0; i < view.frames.length && i < MAX_FRAMES; i++) {
      try {
        const frame = view.frames[i];
        void frame.document.documentElement;
        listen(frame);
        if (depth < MAX_FRAME_DEPTH) followFrames(frame, depth + 1);
      } catch {
        // Another origin: not ours to read.
      }
    }
  }

  /** The innermost element an event is for, through open shadow roots; null for the picker's own panel. */
  function targetOf(event: Event): Element | null {
    const path = event.composedPath();
    if (path.includes(host)) return null;
    const first = path[0] as Node | undefined;
    return first?.nodeType === 1 ? (first as Element) : null;
  }

  function schedule(): void {
    if (!scheduled) scheduled = top.requestAnimationFrame(guard(render));
  }

  function describe(proposal: Proposal): void {
    selector.textContent = proposal.selector;
    const many = proposal.count > 1;
    count.className = many || !proposal.first ? 'warn' : '';
    count.textContent = !proposal.first
      ? `⚠ matches ${proposal.count} elements, and this one is not the first: give it a data-testid`
      : many
        ? `⚠ matches ${proposal.count} elements; the first visible one is used`
        : 'matches 1 element';
  }

  function render(): void {
    scheduled = 0;
    followFrames(top);
    if (!current?.isConnected) {
      box.style.display = 'none';
      return;
    }
    const rect = boxInTop(current, top);
    Object.assign(box.style, {
      display: 'block',
      left: `${rect.x}px`,
      top: `${rect.y}px`,
      width: `${rect.width}px`,
      height: `${rect.height}px`,
    });
    if (current !== shownFor) {
      shownFor = current;
      describe(proposeSelector(current, doc));
    }
    // The panel moves to the top while the outline would be under it at the bottom.
    const room = panel.offsetHeight + 24;
    const under =
      rect.y + rect.height > top.innerHeight - room && rect.x + rect.width > top.innerWidth - panel.offsetWidth - 24;
    panel.classList.toggle('top', under);
  }

  function outline(element: Element | null): void {
    if (!element || element === host) return;
    current = element;
    schedule();
  }

  function pick(element: Element | null): void {
    if (!element || element === host) return;
    outline(element);
    const proposal = proposeSelector(element, doc);
    shownFor = element;
    describe(proposal);
    const text = selectorLine(proposal.selector);
    line.textContent = text;
    line.hidden = false;
    status.textContent = '';
    void copyText(text, shadow).then((copied) => {
      status.textContent = copied
        ? 'Copied: paste it into the flow file.'
        : 'Copying was refused: select the line and copy it.';
    });
  }

  function onKey(event: KeyboardEvent): void {
    const onPanel = targetOf(event) === null;
    let handled = true;
    if (event.key === 'Escape') stop();
    else if (event.key === 'ArrowUp' && current && outerOf(current)) {
      trail.push(current);
      outline(outerOf(current));
    } else if (event.key === 'ArrowDown' && trail.length) outline(trail.pop()!);
    else if (event.key === 'Enter' && current && !onPanel) pick(current);
    else handled = false;
    if (handled) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }

  const onEvent = guard((event: Event) => {
    const { type } = event;
    if (type === 'keydown') return onKey(event as KeyboardEvent);
    if (type === 'scroll' || type === 'resize') return schedule();
    const target = targetOf(event);
    // The panel's own buttons work as buttons.
    if (!target) return;
    // After ↑, the pointer moving inside the outlined ancestor keeps it; leaving it follows the pointer again.
    const inAncestor = trail.length > 0 && current !== null && isWithin(target, current);
    if (type === 'pointermove') {
      if (inAncestor) return;
      trail = [];
      return outline(target);
    }
    event.preventDefault();
    event.stopImmediatePropagation();
    if (type === 'click') pick(inAncestor ? current : target);
  });

  function stop(): void {
    for (const view of listening) {
      try {
        for (const type of WATCHED) view.removeEventListener(type, onEvent, { capture: true });
      } catch {
        // A frame that has gone away keeps no listeners.
      }
    }
    listening.length = 0;
    if (scheduled) top.cancelAnimationFrame(scheduled);
    host.remove();
    if ((top as Running)[RUNNING] === stop) delete (top as Running)[RUNNING];
  }

  close.addEventListener('click', guard(stop));
  // Presses on the panel stay with the picker: the app's own listeners further out do not see them.
  for (const type of SWALLOWED) shadow.addEventListener(type, (event) => event.stopPropagation());

  doc.documentElement.append(host);
  // In the top layer, above the app's own dialogs and popovers; where popovers are missing, the highest z-index.
  try {
    host.setAttribute('popover', 'manual');
    host.showPopover();
  } catch {
    host.removeAttribute('popover');
  }
  listen(top);
  followFrames(top);
  (top as Running)[RUNNING] = stop;
  return stop;
}

/** Starts the picker, or stops it when it is running already: what a click on the bookmarklet does. */
export function togglePicker(top: Window = window): void {
  try {
    const running = (top as Running)[RUNNING];
    if (typeof running === 'function') running();
    else startPicker(top);
  } catch {
    // Never into the page.
  }
}
