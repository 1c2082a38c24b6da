// Events over time in CEL: finds the eventCount/lastEventAt calls an expression makes, and the windows a read must load for them.
import { evaluate } from '@marcbachmann/cel-js';
import { isNode, literalString, type Node } from './cel-ast.js';

/** The entities whose events an expression may count: `user.eventCount(…)`, `group.lastEventAt(…)`. */
export type EventScope = 'user' | 'group';

/** The events of one scope that a catalog's expressions ask about. */
export interface EventWindowSet {
  /** `eventCount(event, window)` pairs, the window in milliseconds; each pair once. */
  counts: Array<[event: string, windowMs: number]>;
  /** `lastEventAt(event)` names; each once. */
  last: string[];
  /** Names the set, so values loaded for another set (an older catalog) are never read as this one's. */
  key: string;
}

/** One call an expression makes. */
export type EventWindowCall =
  | { scope: EventScope; fn: 'eventCount'; event: string; windowMs: number }
  | { scope: EventScope; fn: 'lastEventAt'; event: string };

/**
 * The longest window a flow file may give eventCount: 100 years (876600h). A window past it is refused where flow
 * files are checked; a read still clamps any window to it, since PostgreSQL cannot go back as far as a duration can.
 */
export const MAX_EVENT_WINDOW_MS = 876_600 * 3_600_000;

/** The key of one count: the window first, so an event name with any characters cannot collide with another pair. */
export const countKey = (event: string, windowMs: number): string => `${windowMs} ${event}`;

const USAGE: Record<EventWindowCall['fn'], string> = {
  eventCount: "eventCount('exported', duration('168h'))",
  lastEventAt: "lastEventAt('exported')",
};

/**
 * The eventCount and lastEventAt calls in a parsed expression. Each must be made on `user` or `group`, with a
 * string literal event name and (for eventCount) a `duration('…')` literal over zero: a read loads exactly the
 * counts the catalog names, from an index, so a name or window computed at run time could not be served.
 * Throws an Error that says what is wrong.
 */
export function eventWindowCalls(ast: unknown): EventWindowCall[] {
  const calls: EventWindowCall[] = [];
  // Bounded by the parser's own limits on the size and depth of an expression.
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!isNode(node)) return;
    if ((node.op === 'rcall' || node.op === 'call') && Array.isArray(node.args)) {
      const name: unknown = node.args[0];
      if (name === 'eventCount' || name === 'lastEventAt') calls.push(callOf(node));
    }
    if (Array.isArray(node.args)) node.args.forEach(walk);
    else walk(node.args);
  };
  walk(ast);
  return calls;
}

function callOf(node: Node): EventWindowCall {
  const [fn, receiver, args] = node.args as [EventWindowCall['fn'], unknown, unknown[] | undefined];
  const usage = `user.${USAGE[fn]} or group.${USAGE[fn]}`;
  const scope = node.op === 'rcall' && isNode(receiver) && receiver.op === 'id' ? receiver.args : undefined;
  if (scope !== 'user' && scope !== 'group') throw new Error(`${fn} is called on user or group: ${usage}`);
  const list = Array.isArray(args) ? args : [];
  const event = literalString(list[0]);
  if (fn === 'lastEventAt') {
    if (list.length !== 1 || event === undefined)
      throw new Error(`${scope}.lastEventAt takes one event name, a string literal: ${scope}.${USAGE[fn]}`);
    return { scope, fn, event };
  }
  const window = list[1];
  const literal =
    isNode(window) &&
    window.op === 'call' &&
    Array.isArray(window.args) &&
    window.args[0] === 'duration' &&
    Array.isArray(window.args[1]) &&
    window.args[1].length === 1
      ? literalString(window.args[1][0])
      : undefined;
  if (list.length !== 2 || event === undefined || literal === undefined) {
    throw new Error(`${scope}.eventCount takes an event name and a window, both literals: ${scope}.${USAGE[fn]}`);
  }
  let windowMs: number;
  try {
    // The library's own duration parser, so a window means here what it means everywhere else in CEL.
    windowMs = Number(evaluate('duration(window)', { window: literal }));
  } catch {
    throw new Error(
      `${scope}.eventCount: duration('${literal}') is not a duration; write one such as '30m', '24h' or '168h'`,
    );
  }
  if (!(windowMs > 0))
    throw new Error(`${scope}.eventCount: the window duration('${literal}') must be longer than zero`);
  return { scope, fn, event, windowMs };
}

/** The set of each scope that `calls` ask about; undefined when they ask about none. */
export function eventWindowSets(calls: Iterable<EventWindowCall>): Record<EventScope, EventWindowSet> | undefined {
  const found = {
    user: { counts: new Map<string, [string, number]>(), last: new Set<string>() },
    group: { counts: new Map<string, [string, number]>(), last: new Set<string>() },
  };
  let any = false;
  for (const call of calls) {
    any = true;
    if (call.fn === 'eventCount')
      found[call.scope].counts.set(countKey(call.event, call.windowMs), [call.event, call.windowMs]);
    else found[call.scope].last.add(call.event);
  }
  if (!any) return undefined;
  const setOf = ({ counts, last }: (typeof found)['user']): EventWindowSet => {
    const pairs = [...counts.values()].sort(([a, x], [b, y]) => a.localeCompare(b) || x - y);
    const names = [...last].sort();
    return { counts: pairs, last: names, key: JSON.stringify([pairs, names]) };
  };
  return { user: setOf(found.user), group: setOf(found.group) };
}
