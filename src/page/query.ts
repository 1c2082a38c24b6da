// Finds targets: CSS selectors that reach into open shadow roots and same-origin frames with ">>>", first visible match first.

/** Bounds the search through shadow roots so a huge page cannot stall the page. */
const MAX_ELEMENTS = 20_000;
const MAX_DEPTH = 8;

/** The elements of `root` that match `selector`; none for a selector that is not valid CSS. */
export function selectAll(root: ParentNode, selector: string): Iterable<Element> {
  try {
    return root.querySelectorAll(selector);
  } catch {
    // An invalid selector in a definition finds nothing instead of throwing into the page.
    return [];
  }
}

/** The document of a same-origin `<iframe>` (or `<frame>`); null for any other element or another origin. */
export function frameDocument(element: Element): Document | null {
  try {
    return element.localName === 'iframe' || element.localName === 'frame'
      ? (element as HTMLIFrameElement).contentDocument
      : null;
  } catch {
    return null;
  }
}

/**
 * Whether a target is really there to point at: rendered, with a size, and not `visibility: hidden` (nor inside a
 * closed `<details>`, a closed dialog or `content-visibility: hidden`). A target that is not counts as missing.
 */
export function isVisible(element: Element): boolean {
  const rect = element.getBoundingClientRect();
  if (!rect.width || !rect.height) return false;
  return element.checkVisibility?.({ checkVisibilityCSS: true, visibilityProperty: true }) ?? true;
}

/** What a search went through: the documents and shadow roots whose changes can make a different answer. */
export type Scopes = Set<Document | ShadowRoot>;

/** The first match of `parts[i…]` inside `scope`: each part but the last finds a shadow host or a frame to go into. */
function findPath(
  scope: Document | ShadowRoot,
  parts: string[],
  i: number,
  visible: boolean,
  scopes?: Scopes,
): Element | null {
  scopes?.add(scope);
  for (const element of selectAll(scope, parts[i])) {
    if (i === parts.length - 1) {
      if (!visible || isVisible(element)) return element;
      continue;
    }
    const inner = element.shadowRoot ?? frameDocument(element);
    const found = inner && findPath(inner, parts, i + 1, visible, scopes);
    if (found) return found;
  }
  return null;
}

/**
 * Every open shadow root under `root`, breadth first, nested ones included, but our own elements' (they hold nothing
 * to point at, and change as they position themselves). Bounded, so a huge page cannot stall the page.
 */
export function shadowRootsOf(root: Document | ShadowRoot = document): ShadowRoot[] {
  const found: ShadowRoot[] = [];
  let visited = 0;
  let level: ParentNode[] = [root];
  for (let depth = 0; depth < MAX_DEPTH && level.length; depth++) {
    const next: ShadowRoot[] = [];
    for (const scope of level) {
      for (const element of selectAll(scope, '*')) {
        if (++visited > MAX_ELEMENTS) return found;
        const shadow = element.shadowRoot;
        if (shadow && !element.localName.startsWith('onboarding-')) next.push(shadow);
      }
    }
    found.push(...next);
    level = next;
  }
  return found;
}

/**
 * The element `selector` points at: with `visible`, the first visible match (several may match; hidden ones are
 * skipped). `a >>> b` finds `a`, then `b` inside `a`'s open shadow root or, for a same-origin `<iframe>`, inside its
 * document; it chains (`iframe#editor >>> rich-text >>> .toolbar`). A plain selector is tried on the document first,
 * then inside every open shadow root (`shadows`, found afresh when not given). `scopes` collects the documents and
 * shadow roots searched.
 */
export function deepQuery(
  selector: string,
  root: Document | ShadowRoot = document,
  visible = false,
  scopes?: Scopes,
  shadows?: ShadowRoot[],
): Element | null {
  const parts = selector.split('>>>').map((part) => part.trim());
  if (parts.some((part) => !part)) return null;
  const direct = findPath(root, parts, 0, visible, scopes);
  if (direct || parts.length > 1) return direct;
  for (const shadow of shadows ?? shadowRootsOf(root)) {
    const found = findPath(shadow, parts, 0, visible, scopes);
    if (found) return found;
  }
  return null;
}
