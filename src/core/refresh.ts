// When to reload state: the tab becoming visible again and SPA route changes, debounced.

import { patchHistory, ROUTE_EVENT } from '../page/pages.js';
import { doc, onDocument } from '../page/document.js';

export interface RefreshOptions {
  /** Also refresh on history and hash navigation. @default true */
  routes?: boolean;
  /** Quiet time before refreshing, so a burst of navigations reads once. @default 300 */
  debounceMs?: number;
}

/** Calls `refresh` (debounced) on visibility and route changes; returns a function that stops watching. */
export function watchForRefresh(
  refresh: () => void,
  { routes = true, debounceMs = 300 }: RefreshOptions = {},
): () => void {
  if (typeof document === 'undefined') return () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  let href = location.href;
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, debounceMs);
  };
  const onVisibility = () => {
    if (doc('visibilityState') === 'visible') schedule();
  };
  const onRoute = () => {
    // replaceState is often called only to store scroll or UI state; only a new address counts.
    if (location.href === href) return;
    href = location.href;
    schedule();
  };
  const routeEvents = routes ? [ROUTE_EVENT, 'popstate', 'hashchange'] : [];
  if (routes) patchHistory();
  const stopVisibility = onDocument('visibilitychange', onVisibility);
  for (const name of routeEvents) addEventListener(name, onRoute);
  return () => {
    clearTimeout(timer);
    stopVisibility();
    for (const name of routeEvents) removeEventListener(name, onRoute);
  };
}
