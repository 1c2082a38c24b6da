// Proposes the selector a flow file should name an element by: its stable hooks first, else a short path from the
// nearest ancestor that has one; through shadow roots and same-origin iframes with `>>>`.
import { deepSelectAll, outerElement, type Scope } from './deep-select.js';
import { isHumanClass, isStableData, looksGenerated, TEST_ATTRIBUTES } from './stable-names.js';

export interface Proposal {
  /** The selector in the flow files' syntax: `host >>> inner` for a shadow root, `iframe >>> inner` for a frame. */
  selector: string;
  /** How many elements it matches now, through every shadow root and frame its steps reach. */
  count: number;
  /** Whether the element is the first match (a flow uses the first visible one). */
  first: boolean;
}

/** How far up a path looks for an anchor, and how many shadow roots and frames a selector may cross. */
const MAX_ANCESTORS = 24;
const MAX_SCOPES = 8;

/** Tags that are usually on a page once, tried as hooks of their own. */
const LANDMARKS = ['html', 'body', 'main', 'header', 'footer', 'nav', 'aside'];

/** `value` as a CSS string, double-quoted. */
function cssString(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&').replace(/[\n\r\f]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}"`;
}

const attribute = (name: string, value: string) => `[${name}=${cssString(value)}]`;

/** The element's tag as a type selector, or '' for a name a selector cannot spell plainly. */
const tagOf = (element: Element) => (/^[a-z][\w-]*$/i.test(element.localName) ? element.localName : '');

/** Whether `selector` matches `element` and nothing else in `scope`. */
function onlyMatch(scope: Scope, selector: string, element: Element): boolean {
  try {
    const all = scope.querySelectorAll(selector);
    return all.length === 1 && all[0] === element;
  } catch {
    return false;
  }
}

/**
 * The element's own hooks, best first: test attributes, other stable data attributes, an id that does not look
 * generated, a role or tag with its aria-label, a name (or an iframe's title), a custom element's or landmark's tag,
 * and human class names. Generated values are never offered.
 */
function hooks(element: Element): string[] {
  const tag = tagOf(element);
  const found: string[] = [];
  const stable = (name: string) => {
    const value = element.getAttribute(name);
    return value && !looksGenerated(value) ? value : undefined;
  };
  for (const name of TEST_ATTRIBUTES) {
    const value = stable(name);
    if (value) found.push(attribute(name, value));
  }
  for (const { name, value } of element.attributes)
    if (!TEST_ATTRIBUTES.includes(name) && isStableData(name, value)) found.push(attribute(name, value));
  const id = stable('id');
  if (id) found.push(/^[a-z_][\w-]*$/i.test(id) ? `#${id}` : attribute('id', id));
  const role = stable('role');
  const label = stable('aria-label');
  if (label) found.push(`${role ? attribute('role', role) : tag}${attribute('aria-label', label)}`);
  const name = stable('name');
  if (name) found.push(`${tag}${attribute('name', name)}`);
  const title = tag === 'iframe' && stable('title');
  if (title) found.push(`iframe${attribute('title', title)}`);
  if (tag.includes('-') || LANDMARKS.includes(tag)) found.push(tag);
  for (const name of element.classList) if (isHumanClass(name)) found.push(`.${name}`, `${tag}.${name}`);
  return found;
}

/** The first element `selector` matches in `scope`. */
function firstMatch(scope: Scope, selector: string): Element | null {
  try {
    return scope.querySelector(selector);
  } catch {
    return null;
  }
}

/** The first hook of `element` that matches it alone in `scope`. */
function uniqueHook(element: Element, scope: Scope): string | undefined {
  return hooks(element).find((hook) => onlyMatch(scope, hook, element));
}

/** One step of a path: the tag (or the element's own hook), with `:nth-of-type` only when a sibling has the same tag. */
function step(element: Element, hook?: string): string {
  const siblings = [...(element.parentNode?.children ?? [])].filter(
    (sibling) => sibling.localName === element.localName,
  );
  const base = hook ?? (tagOf(element) || '*');
  return siblings.length > 1 ? `${base}:nth-of-type(${siblings.indexOf(element) + 1})` : base;
}

/** A path of more steps than this breaks with most changes of layout. */
const MAX_STEPS = 4;

/**
 * A selector for `element` within its own document or shadow root: a hook that matches it alone; else the shortest
 * path from the nearest ancestor with such a hook that does. Where that path would be longer than MAX_STEPS and the
 * element is the first match of a hook of its own, the hook is kept (matching more than one element) instead.
 */
function localSelector(element: Element, scope: Scope): string {
  const own = hooks(element);
  const unique = own.find((hook) => onlyMatch(scope, hook, element));
  if (unique) return unique;
  const steps = [step(element, own[0])];
  let anchor: string | undefined;
  let node = element.parentElement;
  for (let depth = 0; node && depth < MAX_ANCESTORS; depth++, node = node.parentElement) {
    anchor = uniqueHook(node, scope);
    if (anchor) break;
    steps.unshift(step(node));
  }
  // At the top of a shadow root, the host anchors the path.
  if (!anchor && !node && 'host' in scope) anchor = ':host';
  const prefix = anchor ? `${anchor} ` : '';
  // Shortest first, each with its length in steps: the element's own hook or step under the anchor, then ever longer
  // chains of children.
  const candidates: [string, number][] = own[0] && anchor ? [[prefix + own[0], 2]] : [];
  steps.forEach((_, i) =>
    candidates.push([prefix + steps.slice(steps.length - 1 - i).join(' > '), i + (anchor ? 2 : 1)]),
  );
  if (anchor) candidates.push([`${anchor} > ${steps.join(' > ')}`, steps.length + 1]);
  const path = candidates.find(([candidate]) => onlyMatch(scope, candidate, element));
  const firstHook = own.find((hook) => firstMatch(scope, hook) === element);
  if (firstHook && (!path || path[1] > MAX_STEPS)) return firstHook;
  return (path ?? candidates[candidates.length - 1])[0];
}

/** The document or shadow root holding `element`, or null when it is in neither (a detached element). */
function scopeOf(element: Element): Scope | null {
  const root = element.getRootNode();
  return root.nodeType === Node.DOCUMENT_NODE || (root.nodeType === Node.DOCUMENT_FRAGMENT_NODE && 'host' in root)
    ? (root as Scope)
    : null;
}

/**
 * The selector a flow file should use for `element`, seen from the document `top` (where the picker runs), with how
 * many elements it matches there now. It prefers a selector that matches the element alone, and names shadow hosts
 * and iframes on the way with `>>>`.
 */
export function proposeSelector(element: Element, top: Document = document): Proposal {
  const parts: string[] = [];
  let current: Element | null = element;
  for (let i = 0; current && i < MAX_SCOPES; i++) {
    const scope = scopeOf(current);
    if (!scope) {
      parts.unshift(step(current));
      break;
    }
    parts.unshift(localSelector(current, scope));
    current = outerElement(scope, top);
  }
  const selector = parts.join(' >>> ');
  const matches = deepSelectAll(selector, top);
  return { selector, count: matches.length, first: matches[0] === element };
}
