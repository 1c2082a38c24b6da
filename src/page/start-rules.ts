// Start rules (`startWhen`): the moment an eligible flow opens in the page (its pages, an element, a click, a delay), checked here, never with a request.
import type { StartWhen } from '../api/wire.js';
import { $flowDefinitions, $flows, $flowStates, $held, type StartWait } from '../stores/flows.js';
import { onNavigate, pageMatches } from './pages.js';
// The element watcher comes with these rules: both are in the ESM build, and both in dist/onboarding-watch.js, which
// the script tag's build loads once a flow has a start rule.
import { watchTarget } from './watch.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1e3, m: 6e4, h: 36e5, d: 864e5, w: 6048e5 };

/** A duration in milliseconds (`500ms`, `3s`, `2m`); 0 for one it cannot read (the service refuses those). */
export function durationMs(text: string | undefined): number {
  const match = /^(\d+)(ms|s|m|h|d|w)$/.exec(`${text}`.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2]] : 0;
}

/**
 * Whether `path` is on the pages a page rule names: a pattern without `!` matches it (or there is none), and no
 * pattern with `!` does.
 */
export function onPage(page: StartWhen['page'], path = location.pathname): boolean {
  // Strings whatever a cached definition holds, so a rule the script cannot read matches nothing instead of throwing.
  const patterns = [page ?? []].flat().map(String);
  let included = !patterns.some((pattern) => !pattern.startsWith('!'));
  for (const pattern of patterns) {
    if (pattern.startsWith('!')) {
      if (pageMatches(pattern.slice(1), path)) return false;
    } else included ||= pageMatches(pattern, path);
  }
  return included;
}

/** Whether `node`, on a click's path, is an element the click rule's selector names (its last `>>>` part). */
function clickedOn(node: EventTarget, selector: string): boolean {
  try {
    return (
      typeof (node as Element).matches === 'function' && (node as Element).matches(selector.split('>>>').pop()!.trim())
    );
  } catch {
    return false;
  }
}

/**
 * Keeps `$held` to the eligible flows whose start rules do not hold now, each with the rule it waits for, on load,
 * after every route change, as the page changes and as states arrive. A held flow is closed, its state untouched; a
 * rule that never holds leaves the flow unseen. `element` holds from the moment a matching element was visible; `click` from a click on a matching
 * element (which starts the flow, over again when it was finished) or once the flow was started; `delay` once the
 * other rules held that long without a break. Returns a function that stops.
 */
export function watchStartRules(): () => void {
  const clicked = new Set<string>();
  const seen = new Set<string>();
  const waited = new Set<string>();
  const watchers = new Map<string, () => void>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const rulesOf = (slug: string) => $flowDefinitions.get()[slug]?.data.startWhen;
  const stop = (slug: string) => {
    watchers.get(slug)?.();
    watchers.delete(slug);
  };

  function check(): void {
    const held = new Map<string, StartWait>();
    const states = $flowStates.get();
    const path = location.pathname;
    for (const slug in states) {
      const rules = rulesOf(slug);
      if (!rules) continue;
      // Eligible, and neither done nor dismissed: only such a flow waits for an element or a delay.
      const open = states[slug].$state.visible;
      const here = onPage(rules.page, path);
      const element = rules.element && !seen.has(slug);
      const click = rules.click && !clicked.has(slug) && !states[slug].$state.started;
      // The rule it waits for, the first in the order Onboarding.debug() reports them: pages, element, click.
      let wait: StartWait | undefined = !here ? 'page' : element ? 'element' : click ? 'click' : undefined;
      if (element && open && here && !watchers.has(slug)) {
        // Called at once when the element is there already: the look after it finds the flow seen.
        watchers.set(
          slug,
          watchTarget(rules.element!, (found) => found && seen.add(slug) && setTimeout(check)),
        );
      }
      if (!(open && here)) stop(slug);
      if (!wait && open && rules.delay && !waited.has(slug)) {
        wait = 'delay';
        if (!timers.has(slug)) {
          timers.set(
            slug,
            setTimeout(() => {
              timers.delete(slug);
              waited.add(slug);
              check();
            }, durationMs(rules.delay)),
          );
        }
      } else if (wait) {
        // The rules stopped holding: a delay starts over when they hold again.
        clearTimeout(timers.get(slug));
        timers.delete(slug);
        waited.delete(slug);
      }
      if (wait) held.set(slug, wait);
    }
    for (const slug of watchers.keys()) if (seen.has(slug) || !states[slug]) stop(slug);
    const before = $held.get();
    const changed = !('get' in before) || [...held].some(([slug, wait]) => before.get(slug) !== wait);
    if (changed || held.size !== before.size) $held.set(held);
  }

  const onClick = (event: Event) => {
    const path = event.composedPath();
    const states = $flowStates.get();
    for (const slug in states) {
      const rules = rulesOf(slug);
      if (!rules?.click || !onPage(rules.page) || !path.some((node) => clickedOn(node, rules.click!))) continue;
      clicked.add(slug);
      const flow = $flows.get()[slug];
      // A finished flow starts over: the button is how the user asks for it again.
      void (flow && (flow.isCompleted || flow.isSkipped) ? flow.restart() : Promise.resolve()).then(() => {
        const now = $flows.get()[slug];
        if (now && !now.isStarted) return now.start();
      });
    }
    check();
  };

  const stops = [$flowStates.listen(check), $flowDefinitions.listen(check), onNavigate(check)];
  addEventListener('click', onClick, true);
  check();
  return () => {
    stops.forEach((stopListening) => stopListening());
    removeEventListener('click', onClick, true);
    for (const slug of [...watchers.keys()]) stop(slug);
    timers.forEach(clearTimeout);
    $held.set(new Set());
  };
}
