// Keeps a selector resolved to its first visible element as the page changes: late, replaced, moved, hidden and back.
import { deepQuery, shadowRootsOf, type Scopes } from './query.js';

/** Least time between two walks of the whole document for shadow roots, while elements keep being added. */
const WALK_MS = 500;
/** How long after a change the selector is looked up again: changes in that time are looked at together. */
const SETTLE_MS = 50;

/**
 * The attributes whose change can make `selector` match an element it did not: those it names (`#id`, `.class`,
 * `[name]`) and those behind the state pseudo-classes it uses. Approximate on the safe side.
 */
function attributesOf(selector: string): string[] {
  const names = new Set<string>();
  if (selector.includes('#')) names.add('id');
  if (selector.includes('.')) names.add('class');
  for (const [, name] of selector.matchAll(/\[\s*([\w-]+)/g)) names.add(name.toLowerCase());
  const states = {
    ':checked': 'checked',
    ':disabled': 'disabled',
    ':enabled': 'disabled',
    ':open': 'open',
    ':required': 'required',
    ':read-only': 'readonly',
  };
  for (const [pseudo, attribute] of Object.entries(states)) if (selector.includes(pseudo)) names.add(attribute);
  return [...names];
}

/**
 * Calls `onChange` with the element `selector` points at (its first visible match) now and whenever that changes,
 * with null while there is none. It looks again SETTLE_MS after something changed, not more often: a mutation
 * in a document or shadow root the selector goes through (elements added or removed, attributes such as `class`
 * and `style` that may hide the target), the target's size (zero when hidden) or a frame loading. While nothing
 * changes it does no work: no timer, no frame loop. While nothing matches at all (not even hidden), only the
 * attributes the selector names are watched, so a page busy changing others (animating styles, say) costs nothing.
 * A plain selector is also looked for in every open shadow root: those are found by walking the document, which is
 * done again only after elements were added, at most every WALK_MS. Returns a function that stops watching.
 */
export function watchTarget(selector: string, onChange: (target: Element | null) => void): () => void {
  let current: Element | null | undefined;
  let pending: ReturnType<typeof setTimeout> | undefined;
  const observed = new Set<Node>();
  const frames = new Set<Element>();
  const plain = !selector.includes('>>>');
  let shadows: ShadowRoot[] | undefined;
  let walked = 0;
  let walk: ReturnType<typeof setTimeout> | undefined;
  /** Whether every attribute is watched (something matches, visible or not), or only the selector's own. */
  let wide = false;
  const narrow = { childList: true, subtree: true, attributeFilter: attributesOf(selector) };
  const options = () => (wide ? { childList: true, subtree: true, attributes: true } : narrow);
  // A timer, not a frame callback: asking for frames a hundred times a second costs a busy page more than the look.
  const schedule = () => {
    pending ??= setTimeout(check, SETTLE_MS);
  };
  const mutations = new MutationObserver((records) => {
    // Added elements may bring shadow roots: the walk is done again, now or once WALK_MS have passed since the last.
    if (plain && !walk && records.some((record) => record.addedNodes.length)) {
      walk = setTimeout(
        () => {
          walk = undefined;
          shadows = undefined;
          schedule();
        },
        Math.max(0, walked + WALK_MS - Date.now()),
      );
    }
    schedule();
  });
  const sizes = new ResizeObserver(schedule);
  function check(): void {
    clearTimeout(pending);
    pending = undefined;
    const scopes: Scopes = new Set();
    if (plain && !shadows) {
      shadows = shadowRootsOf(document);
      walked = Date.now();
    }
    const found = deepQuery(selector, document, true, scopes, shadows ?? []);
    // A match, visible or hidden: any attribute (a class, a style) may show or hide it. None: only the selector's.
    const matching = Boolean(found ?? deepQuery(selector, document, false, undefined, shadows ?? []));
    if (matching !== wide) {
      wide = matching;
      for (const scope of observed) mutations.observe(scope, options());
    }
    for (const scope of scopes) {
      if (observed.has(scope)) continue;
      observed.add(scope);
      mutations.observe(scope, options());
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
    clearTimeout(pending);
    clearTimeout(walk);
    mutations.disconnect();
    sizes.disconnect();
    for (const element of frames) element.removeEventListener('load', onFrameLoad);
  };
}
