// Which page a step lives on: path patterns (`/reports/*`, `/projects/:id/settings`) and the app's own navigation.

/**
 * Whether `path` is on the page `pattern` names: `:name` matches one path segment, `*` the rest of the path (one
 * character or more), anything else itself. A trailing `/` is ignored on both; query and hash are not part of it.
 */
export function pageMatches(pattern: string, path = location.pathname): boolean {
  const trim = (text: string) => text.replace(/(.)\/+$/, '$1');
  const source = trim(pattern)
    .split(/(\*|:[A-Za-z_]\w*)/)
    .map((piece, i) => (i % 2 ? (piece === '*' ? '.+' : '[^/]+') : piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  try {
    return new RegExp(`^${source}$`).test(trim(decodeURI(path)));
  } catch {
    return false;
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
 * Calls `listener` after each navigation of a single-page app: back and forward (popstate), hash changes, the
 * script's own announcement of pushState and replaceState (core/refresh.ts, unless `refreshOnRouteChange: false`),
 * and the Navigation API's `currententrychange` where there is one, which sees all of them. Returns a function that
 * stops.
 */
export function onNavigate(listener: () => void): () => void {
  listeners.add(listener);
  if (!watching) {
    watching = true;
    for (const name of ['popstate', 'hashchange', 'onboarding:routechange']) addEventListener(name, changed);
    (globalThis as { navigation?: EventTarget }).navigation?.addEventListener('currententrychange', changed);
  }
  return () => void listeners.delete(listener);
}
