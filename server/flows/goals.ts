// Goals, on a flow and on an experiment: an event recorded within a window after first seeing the flow (or being exposed).
import type { GoalDefinition } from '../../src/api/wire.js';
import { parseDuration } from './durations.js';
import type { PathSegment } from './schema.js';
import { isObject, unknownKeys, type AddProblem } from './yaml-values.js';

/** A goal as the service uses it: its window as written and in milliseconds. */
export interface Goal {
  event: string;
  /** As written, or the default. */
  within: string;
  withinMs: number;
}

/** The conversion window when a goal names none. */
export const DEFAULT_WITHIN = '7d';
const GOAL_KEYS: ReadonlyArray<keyof GoalDefinition> = ['event', 'within'];

/** Checks a goal at `where`, reporting each problem; the goal when it has none. */
export function checkGoal(goal: unknown, where: PathSegment[], add: AddProblem): Goal | undefined {
  if (!isObject(goal)) {
    add(where, 'expected a mapping { event, within }, such as { event: report.exported, within: 7d }');
    return undefined;
  }
  unknownKeys(goal, GOAL_KEYS, where, add);
  const { event, within = DEFAULT_WITHIN } = goal;
  let ok = true;
  if (event === undefined) {
    add(where, 'required, but missing: the event that counts as a conversion', 'event');
    ok = false;
  } else if (typeof event !== 'string' || event.trim() === '') {
    add([...where, 'event'], 'expected an event name (a non-empty string)');
    ok = false;
  }
  const withinMs = parseDuration(within);
  if (!withinMs) {
    add(
      [...where, 'within'],
      `bad duration ${JSON.stringify(within)}; expected a whole number and a unit (s, m, h, d or w) greater than 0, such as 7d`,
    );
    ok = false;
  }
  return ok ? { event: event as string, within: String(within).trim(), withinMs: withinMs! } : undefined;
}

/** A flow file's goal, checked already. */
export const goalOf = (goal: GoalDefinition): Goal => {
  const within = (goal.within ?? DEFAULT_WITHIN).trim();
  return { event: goal.event, within, withinMs: parseDuration(within)! };
};

/** A flow file's or an experiment's goal as the wire writes it. */
export const goalJson = (goal: Goal): Required<GoalDefinition> => ({ event: goal.event, within: goal.within });
