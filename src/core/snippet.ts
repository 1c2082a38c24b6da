// The async snippet: replays the calls a page made on the stub `window.Onboarding` before the script loaded.
import { reportError } from './errors.js';

/** One queued call: method name, its arguments, and the stub promise's resolve. */
export type QueuedCall = [method: string, args: ArrayLike<unknown>, resolve?: (value: unknown) => void];

/** What the README snippet defines: methods that queue into `_q`. */
export interface SnippetStub {
  _q: QueuedCall[];
}

export const isSnippetStub = (value: unknown): value is SnippetStub =>
  Boolean(value) && Array.isArray((value as SnippetStub)._q);

/** Runs one queued call on the real SDK and settles the stub's promise with the real result. Never throws. */
function replay(real: object, [method, args, resolve]: QueuedCall): void {
  let result: unknown;
  try {
    const target = (real as Record<string, unknown>)[method];
    // `ready` is a property on the real SDK, a queued call on the stub.
    result =
      typeof target === 'function'
        ? (target as (...a: unknown[]) => unknown).apply(real, Array.from(args ?? []))
        : target;
  } catch (error) {
    reportError('snippet-call-failed', error);
  }
  // A rejected promise (there should be none) must not surface as an unhandled rejection in the page.
  resolve?.(result instanceof Promise ? result.catch(() => undefined) : result);
}

/**
 * Drains a snapshot of the stub's queue exactly once, in order. Calls that still reach the stub afterwards
 * (a page kept a reference to it) run on the real SDK at once.
 */
export function drainSnippet(stub: SnippetStub, real: object): void {
  const queue = stub._q;
  const snapshot = queue.splice(0, queue.length);
  queue.push = (...calls: QueuedCall[]) => {
    for (const call of calls) replay(real, call);
    return 0;
  };
  for (const call of snapshot) replay(real, call);
}
