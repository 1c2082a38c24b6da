// How init starts the flows' start rules (start-rules.ts): the ESM build hands them over at once; the script tag's loads them, with the element watcher, from dist/onboarding-watch.js once a flow has one.

/** Where dist/onboarding-watch.js leaves the start rules' watcher for the script tag's build. */
export const WATCH_CHUNK = Symbol.for('onboarding.watch');

type Start = () => () => void;
let start: Start | undefined;

/** Set by the ESM entry (start-rules.ts's watchStartRules) and by the script tag's chunk loader. */
export function setStartRules(given: Start): void {
  start = given;
}

/** Starts watching the flows' start rules; returns a function that stops. */
export const startRules = (): (() => void) => start?.() ?? (() => {});
