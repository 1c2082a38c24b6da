// When to reload state: the tab becoming visible again and SPA route changes, debounced.

const ROUTE_EVENT = 'onboarding:routechange';
const PATCHED = Symbol.for('onboarding.history');

/** Makes history.pushState/replaceState announce themselves, once per page however many copies of the script run. */
function patchHistory(): void {
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

export interface RefreshOptions {
  /** Also refresh on history and hash navigation. @default true */
  routes?: boolean;
  /** Quiet time before refreshing, so a burst of navigations reads once. @default 300 */
  debounceMs?: number;
}

/** Calls `refresh` (debounced) on visibility and route changes; returns a function that stops watching. */
export function watchForRefresh(refresh: () => void, { routes = true, debounceMs = 300 }: RefreshOptions = {}): () => void {
  if (typeof document === 'undefined') return () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  let href = location.href;
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, debounceMs);
  };
  const onVisibility = () => {
    if (document.visibilityState === 'visible') schedule();
  };
  const onRoute = () => {
    // replaceState is often called only to store scroll or UI state; only a new address counts.
    if (location.href === href) return;
    href = location.href;
    schedule();
  };
  const routeEvents = routes ? [ROUTE_EVENT, 'popstate', 'hashchange'] : [];
  if (routes) patchHistory();
  document.addEventListener('visibilitychange', onVisibility);
  for (const name of routeEvents) addEventListener(name, onRoute);
  return () => {
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', onVisibility);
    for (const name of routeEvents) removeEventListener(name, onRoute);
  };
}
