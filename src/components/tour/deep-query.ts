// Finds tour targets: CSS selectors that may reach into open shadow roots, explicitly with ">>>" or by searching them.

/** Bounds the search through shadow roots so a huge page cannot stall the tour. */
const MAX_ELEMENTS = 20_000;
const MAX_DEPTH = 8;

function select(root: ParentNode, selector: string): Element | null {
  try {
    return root.querySelector(selector);
  } catch {
    // An invalid selector in a definition finds nothing instead of throwing into the page.
    return null;
  }
}

/**
 * The first element matching `selector`. `a >>> b` finds `a`, then `b` inside `a`'s open shadow root.
 * A plain selector is tried on the document first, then inside every open shadow root, breadth first.
 */
export function deepQuery(selector: string, root: Document | ShadowRoot = document): Element | null {
  const parts = selector.split('>>>').map((part) => part.trim());
  if (parts.some((part) => !part)) return null;
  if (parts.length > 1) {
    let scope: ParentNode | null = root;
    for (let i = 0; i < parts.length && scope; i++) {
      const found = select(scope, parts[i]!);
      if (!found || i === parts.length - 1) return found;
      scope = found.shadowRoot;
    }
    return null;
  }
  const direct = select(root, selector);
  if (direct) return direct;
  let visited = 0;
  let level: ParentNode[] = [root];
  for (let depth = 0; depth < MAX_DEPTH && level.length; depth++) {
    const next: ShadowRoot[] = [];
    for (const scope of level) {
      for (const element of scope.querySelectorAll('*')) {
        if (++visited > MAX_ELEMENTS) return null;
        const shadow = element.shadowRoot;
        if (!shadow) continue;
        const found = select(shadow, selector);
        if (found) return found;
        next.push(shadow);
      }
    }
    level = next;
  }
  return null;
}
