// Places a popover beside its target with floating-ui and keeps it there; scrolls targets into view clear of headers.
import { computePosition, flip, offset, shift, type Placement, type Platform } from '@floating-ui/core';
import { autoUpdate } from '@floating-ui/dom';
import { doc } from '../../page/document.js';

const PLACEMENTS = new Set([
  'top',
  'bottom',
  'left',
  'right',
  'top-start',
  'top-end',
  'bottom-start',
  'bottom-end',
  'left-start',
  'left-end',
  'right-start',
  'right-end',
]);

/** Whether `element`, or an ancestor in its document, is `position: fixed` or `sticky`: a header that stays put as the page scrolls. */
function pinned(element: Element | null, view: Window): Element | null {
  for (let node = element; node; node = node.parentElement) {
    const position = view.getComputedStyle(node).position;
    if (position === 'fixed' || position === 'sticky') return node;
  }
  return null;
}

/** Whether `a` contains `b`, looking out of shadow roots. */
function holds(a: Element, b: Element): boolean {
  for (let node: Node | null = b; node; node = node instanceof ShadowRoot ? node.host : node.parentNode)
    if (node === a) return true;
  return false;
}

/** The top of the viewport a page keeps for itself: its `scroll-padding-top`, or the bottom of a fixed or sticky header there. */
export function reservedTop(): number {
  const padding = parseFloat(getComputedStyle(doc('documentElement')).scrollPaddingTop) || 0;
  let header = 0;
  for (const element of doc('elementsFromPoint')(innerWidth / 2, 1)) {
    if (element.localName.startsWith('onboarding-')) continue;
    const bar = pinned(element, window)?.getBoundingClientRect();
    if (bar && bar.top <= 1 && bar.bottom < innerHeight / 2) header = bar.bottom;
    break;
  }
  return Math.max(padding, header);
}

/**
 * A fixed or sticky element of the target's document drawn over the target's top edge (a header it slid under),
 * or null. Elements of ours, the target itself and what it contains or is inside of do not count.
 */
function coveredBy(target: Element): Element | null {
  const rect = target.getBoundingClientRect();
  const owner = target.ownerDocument;
  const hit = doc('elementFromPoint', owner)(rect.left + rect.width / 2, rect.top + Math.min(4, rect.height / 2));
  if (!hit || hit.localName.startsWith('onboarding-') || holds(hit, target) || holds(target, hit)) return null;
  return pinned(hit, doc('defaultView', owner) ?? window);
}

/** The element whose scrolling moves `target` (its nearest scrolling ancestor), or null for the document. */
function scroller(target: Element): Element | null {
  const view = doc('defaultView', target.ownerDocument) ?? window;
  const top = doc('documentElement', target.ownerDocument);
  for (let node = target.parentElement; node && node !== top; node = node.parentElement) {
    const { overflowY } = view.getComputedStyle(node);
    if ((overflowY === 'auto' || overflowY === 'scroll') && node.scrollHeight > node.clientHeight) return node;
  }
  return null;
}

/** Moves `target` down from under a fixed or sticky header covering it, by scrolling its scroller up. */
function clearHeader(target: Element): void {
  const cover = coveredBy(target);
  if (!cover) return;
  const by = cover.getBoundingClientRect().bottom - target.getBoundingClientRect().top + 8;
  if (by > 0)
    (scroller(target) ?? doc('defaultView', target.ownerDocument) ?? window).scrollBy({
      top: -by,
      behavior: 'instant' as ScrollBehavior,
    });
}

/**
 * Brings `target` into view unless it is all in view already: scrolled centred through every scrolling ancestor and
 * frame (smoothly, unless the user asks for reduced motion), honouring the page's `scroll-padding`, then out from
 * under any fixed or sticky header covering it.
 */
export function reveal(target: Element): void {
  const seen = new IntersectionObserver(
    ([entry]) => {
      seen.disconnect();
      if (entry && entry.intersectionRatio > 0.99) return clearHeader(target);
      const smooth = !matchMedia('(prefers-reduced-motion: reduce)').matches;
      target.scrollIntoView({ block: 'center', inline: 'nearest', behavior: smooth ? 'smooth' : 'instant' });
      if (!smooth) return clearHeader(target);
      let done = false;
      const end = () => {
        if (done) return;
        done = true;
        removeEventListener('scrollend', end, true);
        clearHeader(target);
      };
      addEventListener('scrollend', end, true);
      doc('defaultView', target.ownerDocument)?.addEventListener('scrollend', end, { capture: true, once: true });
      setTimeout(end, 1000);
    },
    { rootMargin: `-${Math.round(reservedTop())}px 0px 0px 0px` },
  );
  seen.observe(target);
}

/** The target's rectangle in the top window's viewport, through the same-origin frames it is in. */
export function viewportRect(target: Element): DOMRect {
  const rect = target.getBoundingClientRect();
  let { x, y } = rect;
  for (let view: Window | null = doc('defaultView', target.ownerDocument); view?.frameElement; view = view.parent) {
    const frame = view.frameElement;
    const box = frame.getBoundingClientRect();
    const style = view.parent.getComputedStyle(frame);
    x += box.x + frame.clientLeft + parseFloat(style.paddingLeft);
    y += box.y + frame.clientTop + parseFloat(style.paddingTop);
  }
  return new DOMRect(x, y, rect.width, rect.height);
}

const size = (element: HTMLElement) => ({ width: element.offsetWidth, height: element.offsetHeight });

/**
 * floating-ui's platform for our case: a `position: fixed` popover in the top layer, so coordinates are the top
 * window's viewport, whatever the target's ancestors (transforms, scrollers, fixed containers, frames) do; and the
 * viewport is all it has to stay inside. Much smaller than the general DOM platform, which has to find offset parents.
 */
const platform: Platform = {
  getElementRects: ({ reference, floating }) => ({
    reference: viewportRect(reference as Element),
    floating: { x: 0, y: 0, ...size(floating as HTMLElement) },
  }),
  getClippingRect: () => ({
    x: 0,
    y: 0,
    width: doc('documentElement').clientWidth,
    height: doc('documentElement').clientHeight,
  }),
  getDimensions: (element) => size(element as HTMLElement),
  isRTL: (element) => getComputedStyle(element as Element).direction === 'rtl',
};

export interface AnchorOptions {
  /** Where the popover sits; an unknown value is `bottom`. */
  placement?: unknown;
  /** Gap between the target and the popover, in pixels. */
  gap?: number;
  /** The arrow element inside the popover, positioned to point at the target. */
  arrow?: HTMLElement | null;
  /** Called after each placement, with the target's rectangle in the viewport. */
  placed?: (rect: DOMRect) => void;
}

/**
 * Keeps `floating` (a fixed popover) beside `target`: placed now and again on any scroll of an ancestor (in frames
 * too), a resize of either, zoom, and the target moving in the layout, all from events and observers, with no frame
 * loop. It flips and shifts to stay in the viewport and clear of the header area (`reservedTop`). Returns a function
 * that stops.
 */
export function anchor(target: Element, floating: HTMLElement, options: AnchorOptions = {}): () => void {
  // Whatever a flow file wrote: a name this knows is used, anything else falls back below.
  const requested = String((options.placement as string | undefined) ?? 'bottom');
  let top = reservedTop();
  const onResize = () => (top = reservedTop());
  addEventListener('resize', onResize);
  const place = async () => {
    // A target the app just removed is followed no more; the watcher finds its successor.
    if (!target.isConnected) return;
    const padding = { top: top + 8, right: 8, bottom: 8, left: 8 };
    const { x, y, placement } = await computePosition(target, floating, {
      platform,
      strategy: 'fixed',
      placement: (PLACEMENTS.has(requested) ? requested : 'bottom') as Placement,
      middleware: [offset(options.gap ?? 12), flip({ padding }), shift({ padding })],
    });
    // CSSOM writes, not style attributes: they work under a CSP without 'unsafe-inline'.
    floating.style.left = `${x}px`;
    floating.style.top = `${y}px`;
    floating.dataset.placement = placement;
    const rect = viewportRect(target);
    const arrowElement = options.arrow;
    if (arrowElement) {
      // The arrow points at the target's middle, kept 8 px from the popover's corners; the styles put it on the edge.
      const vertical = /^(top|bottom)/.test(placement);
      const size = vertical ? floating.offsetWidth : floating.offsetHeight;
      const middle = vertical ? rect.left + rect.width / 2 - x : rect.top + rect.height / 2 - y;
      arrowElement.style.setProperty('--arrow', `${Math.min(Math.max(middle - 6, 8), size - 20)}px`);
    }
    options.placed?.(rect);
  };
  const stop = autoUpdate(target, floating, () => void place().catch(() => {}));
  return () => {
    stop();
    removeEventListener('resize', onResize);
  };
}

/**
 * The topmost open modal `<dialog>` that holds `target` (looking out of shadow roots), or null. While one is open,
 * everything outside it is inert: a popover pointing into it has to be inside it to be seen and clicked.
 */
export function modalDialogOf(target: Element): HTMLDialogElement | null {
  for (let node: Node | null = target; node; node = node instanceof ShadowRoot ? node.host : node.parentNode) {
    if (node instanceof HTMLDialogElement && node.matches(':modal')) return node;
  }
  return null;
}

/** Shows `popover` at the top of the top layer: shown again if it was, so it is above what opened after it (a dialog). */
export function raise(popover: HTMLElement): void {
  try {
    if (popover.matches(':popover-open')) popover.hidePopover();
    popover.showPopover();
  } catch {
    // Without the Popover API the styles keep the element fixed and on top instead.
  }
}

/** Where each moved host was, so it goes back when its target leaves the dialog. */
const homes = new WeakMap<Element, Comment>();

/** An element that ignores its own connect and disconnect callbacks while `moving` (a move, not a removal): AnchoredElement. */
export interface Movable extends Element {
  moving?: boolean;
}

function move(host: Movable, parent: Node, before: Node | null): void {
  host.moving = true;
  try {
    // An atomic move where there is one (the element keeps its state, its popovers stay open); else remove and insert.
    const moveBefore = (parent as { moveBefore?: (node: Node, child: Node | null) => void }).moveBefore;
    try {
      if (moveBefore) return moveBefore.call(parent, host, before);
    } catch {
      // Not movable atomically (another document, say): moved the old way below.
    }
    parent.insertBefore(host, before);
  } finally {
    host.moving = false;
  }
}

/**
 * Moves `host` into the open modal dialog that holds `target`, so what it draws can be seen and clicked there, and
 * back to where it was once `target` is in none (or null).
 */
export function followIntoDialog(host: Movable, target: Element | null): void {
  const dialog = target && modalDialogOf(target);
  const home = homes.get(host);
  if (dialog) {
    if (host.parentNode === dialog) return;
    if (!home && host.parentNode) {
      const mark = doc('createComment')('onboarding');
      host.before(mark);
      homes.set(host, mark);
    }
    move(host, dialog, null);
  } else if (home) {
    homes.delete(host);
    if (home.parentNode) move(host, home.parentNode, home);
    home.remove();
  }
}
