// The picker's reading of the flow files' selector syntax: `a >>> b` is b inside a's open shadow root, or inside the
// document of a same-origin iframe a (read as the tour's target engine reads it); and the hop back out, from an
// element to the host or frame that holds it.
import { frameDocument, selectAll } from '../../src/page/query.js';

/** Bounds the matches gathered, so a selector that matches half of a huge page cannot stall the picker. */
const MAX_MATCHES = 1000;

/** Where a selector is applied: a document or a shadow root. */
export type Scope = Document | ShadowRoot;

/** The open shadow root of `element`, or the document of a same-origin iframe; null for anything else. */
export function innerScope(element: Element): Scope | null {
  return element.shadowRoot ?? frameDocument(element);
}

/** The shadow host or iframe element that holds `scope`; null for the picker's own document. */
export function outerElement(scope: Scope, top: Document): Element | null {
  if ('host' in scope) return scope.host;
  if (scope === top) return null;
  try {
    return scope.defaultView?.frameElement ?? null;
  } catch {
    return null;
  }
}

/** Every element `selector` matches, in document order of each `>>>` step; the first is the one a flow would use. */
export function deepSelectAll(selector: string, root: Scope = document): Element[] {
  const parts = selector.split('>>>').map((part) => part.trim());
  if (parts.some((part) => !part)) return [];
  let found: Element[] = [];
  let scopes: ParentNode[] = [root];
  for (let i = 0; i < parts.length; i++) {
    found = scopes.flatMap((scope) => [...selectAll(scope, parts[i])]).slice(0, MAX_MATCHES);
    if (i < parts.length - 1) scopes = found.map(innerScope).filter((scope): scope is Scope => scope !== null);
  }
  return found;
}
