// How the SDK's public calls check what they are given: event names, IDs, values that cannot go over the wire, and the
// code a failed read is reported under.
import { ApiError } from '../api/client.js';
import type { ActionType } from '../api/wire.js';
import { reportError } from './errors.js';

export const EVENT_NAMES = 'flow.start flow.complete flow.skip flow.restart step.start step.complete step.skip step.reset change error target-missing';

/** `bad-answer` for a 2xx the script cannot use, else the caller's code. */
export const failureCode = (error: unknown, code: string) => (error instanceof ApiError && error.kind === 'bad-answer' ? 'bad-answer' : code);
export const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
export const ID_RULE = '1 to 256 characters, no control characters.';
/** The step actions that take `data`, by the transition they write. */
export const STEP_METHODS: Partial<Record<ActionType, string>> = { STARTED_STEP: 'step.start()', COMPLETED_STEP: 'step.complete()', SKIPPED_STEP: 'step.skip()' };
/** Refuses one call given a value that cannot go over the wire; nothing is queued or applied, and the call resolves. */
export const badValue = (method: string) =>
  reportError('bad-value', new Error(`${method} got a value that is not JSON (a BigInt, a cycle, a function); the call did nothing.`));
