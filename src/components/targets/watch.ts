// Keeps a selector resolved to its first visible element as the page changes: late, replaced, moved, hidden and back.
import { deepQuery, type Scopes } from './query.js';

/**
 * Calls `onChange` with the element `selector` points at (its first visible match) now and whenever that changes,
 * with null while there is none. It looks again once per frame at most, and only after something changed: a mutation
 * in a document or shadow root the selector goes through (elements added or removed, attributes such as `class`
 * and `style` that may hide the target), the target's size (zero when hidden) or a frame loading. While nothing
 * changes it does no work: no timer, no frame loop. Returns a function that stops watching.
 */
export function watchTarget(selector: string, onChange: (target: Element | null) => void): () => void {
  let current: Element | null | undefined;
  let frame = 0;
  const observed = new Set<Node>();
  const frames = new Set<Element>();
  const schedule = () => {
    frame ||= requestAnimationFrame(check);
  };
  const mutations = new MutationObserver(schedule);
  const sizes = new ResizeObserver(schedule);
  function check(): void {
    frame = 0;
    const scopes: Scopes = new Set();
    const found = deepQuery(selector, document, true, scopes);
    for (const scope of scopes) {
      if (observed.has(scope)) continue;
      observed.add(scope);
      mutations.observe(scope, { childList: true, subtree: true, attributes: true });
      // A frame on the way: its next load replaces the document searched.
      const frameElement = scope instanceof Document && scope !== document ? scope.defaultView?.frameElement : null;
      if (frameElement && !frames.has(frameElement)) {
        frames.add(frameElement);
        frameElement.addEventListener('load', onFrameLoad);
      }
    }
    if (found === current) return;
    if (current) sizes.unobserve(current);
    current = found;
    if (found) sizes.observe(found);
    onChange(found);
  }
  function onFrameLoad(): void {
    // The frame's new document is observed afresh; the old one is gone with its observers.
    observed.clear();
    mutations.disconnect();
    check();
  }
  check();
  return () => {
    cancelAnimationFrame(frame);
    mutations.disconnect();
    sizes.disconnect();
    for (const element of frames) element.removeEventListener('load', onFrameLoad);
  };
}
