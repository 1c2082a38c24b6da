// Which page the visitor is on: path patterns (`/reports/*`, `/projects/:id/settings`) and the app's own navigation.

/** Each pattern's expression, made once: route changes test every page rule again. */
const compiled = new Map<string, RegExp>();

/** `text` without trailing `/`s, but `/` itself; a loop, since `/(.)\/+$/` backtracks over a long run of them. */
function trim(text: string): string {
  let end = text.length;
  while (end > 1 && text[end - 1] == '/') end--;
  return text.slice(0, end);
}

/**
 * Whether `path` is on the page `pattern` names: a segment that is exactly `:name` matches one path segment, a `*`
 * ending the pattern the rest of the path (one character or more), anything else itself (`:` and `*` elsewhere too),
 * as the service reads a pattern (server/flows/formats.ts). A trailing `/` is ignored on both; query and hash are not
 * part of it. A parameter is a whole segment, so no two quantifiers meet: the match takes time linear in the path.
 */
export function pageMatches(pattern: string, path = location.pathname): boolean {
  try {
    let expression = compiled.get(pattern);
    if (!expression) {
      const source = trim(pattern)
        .split('/')
        .map((segment) => (/^:[A-Za-z_]\w*$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/')
        .replace(/\\\*$/, '.+');
      compiled.set(pattern, (expression = new RegExp(`^${source}$`)));
    }
    return expression.test(trim(decodeURI(path)));
  } catch {
    return false;
  }
}

/** What the patched pushState and replaceState dispatch on the window. */
export const ROUTE_EVENT = 'onboarding:routechange';
const PATCHED = Symbol.for('onboarding.history');

/** Makes history.pushState/replaceState announce themselves, once per page however many copies of the script run. */
export function patchHistory(): void {
  if (typeof history === 'undefined') return;
  for (const name of ['pushState', 'replaceState'] as const) {
    const original = history[name] as History['pushState'] & { [PATCHED]?: true };
    if (typeof original !== 'function' || original[PATCHED]) continue;
    const patched = function (this: History, ...args: Parameters<History['pushState']>) {
      // The page's own call: if it throws, that is the page's error to see.
      const result = original.apply(this, args);
      try {
        dispatchEvent(new Event(ROUTE_EVENT));
      } catch {
        // Never let our notification break the page's navigation.
      }
      return result;
    } as typeof original;
    patched[PATCHED] = true;
    try {
      history[name] = patched;
    } catch {
      // A frozen history object: popstate and hashchange still work.
    }
  }
}

const listeners = new Set<() => void>();
let watching = false;
let pending = false;

/** Tells every listener, once, a task after a burst of navigation events, that the address may have changed. */
function changed(): void {
  if (pending) return;
  pending = true;
  setTimeout(() => {
    pending = false;
    listeners.forEach((listener) => listener());
  }, 0);
}

/**
 * Calls `listener` after each navigation of a single-page app: back and forward (popstate), hash changes, pushState
 * and replaceState (which patchHistory makes announce themselves), and the Navigation API's `currententrychange`
 * where there is one, which sees all of them. Returns a function that stops.
 */
export function onNavigate(listener: () => void): () => void {
  listeners.add(listener);
  if (!watching) {
    watching = true;
    patchHistory();
    for (const name of ['popstate', 'hashchange', ROUTE_EVENT]) addEventListener(name, changed);
    (globalThis as { navigation?: EventTarget }).navigation?.addEventListener('currententrychange', changed);
  }
  return () => void listeners.delete(listener);
}
