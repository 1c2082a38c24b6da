// How the SDK's public calls check what they are given: event names, IDs, values that cannot go over the wire, and the
// code a failed read is reported under.
import { ApiError } from '../api/client.js';
import type { ActionType } from '../api/wire.js';
import { isId, isJson } from '../api/guards.js';
import { reportError } from './errors.js';
import { isUserHash } from './identity.js';

export const EVENT_NAMES =
  'flow.start flow.complete flow.skip flow.restart step.start step.complete step.skip step.reset change error target-missing resource-center experiment.exposed';

/** `bad-answer` for a 2xx the script cannot use, else the caller's code. */
export const failureCode = (error: unknown, code: string) =>
  error instanceof ApiError && error.kind === 'bad-answer' ? 'bad-answer' : code;
export const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
export const ID_RULE = '1 to 256 characters, no control characters.';
/** The step actions that take `data`, by the transition they write. */
export const STEP_METHODS: Partial<Record<ActionType, string>> = {
  STARTED_STEP: 'step.start()',
  COMPLETED_STEP: 'step.complete()',
  SKIPPED_STEP: 'step.skip()',
};
/** Refuses one call given a value that cannot go over the wire; nothing is queued or applied, and the call resolves. */
export const badValue = (method: string) =>
  reportError(
    'bad-value',
    new Error(`${method} got a value that is not JSON (a BigInt, a cycle, a function); the call did nothing.`),
  );

/** Checks init's config: a missing key is misuse, not a runtime failure, so it throws with what to do. */
export function checkConfig(config: { publicKey?: unknown; apiUrl?: unknown } | undefined): void {
  /* eslint-disable no-restricted-syntax -- init's contract: a call without its key or address throws, at once, to its caller */
  if (!config || !nonEmpty(config.publicKey)) {
    throw new Error('Onboarding.init: publicKey is required. Pass the public key (pk_…) from your onboarding service.');
  }
  if (!nonEmpty(config.apiUrl)) {
    throw new Error('Onboarding.init: apiUrl is required. Pass the base address of your onboarding service.');
  }
  /* eslint-enable no-restricted-syntax */
}

/** Reports an `on` for an event there is none of; the handler is subscribed all the same. */
export function checkEventName(name: string): void {
  if (!EVENT_NAMES.split(' ').includes(name))
    reportError('unknown-event', new Error(`Onboarding.on: there is no "${name}" event. Use one of: ${EVENT_NAMES}.`));
}

/**
 * Whether identify, group or track must do nothing: before init, with a bad ID or event name, a bad `userHash`
 * (identify only), or properties that are not JSON. The first such reason is reported. When it returns false, the
 * outbox is there (the type says only that much).
 */
export function refused(
  method: 'identify' | 'group' | 'track',
  outbox: unknown,
  id: unknown,
  properties: unknown,
  userHash?: unknown,
): outbox is undefined {
  const name = `Onboarding.${method}`;
  if (!outbox) reportError('not-initialized', new Error(`${name} was called before Onboarding.init.`));
  else if (method === 'track' && !nonEmpty(id))
    reportError('bad-event', new Error(`${name} needs a non-empty event name.`));
  else if (method !== 'track' && !isId(id)) {
    const whose = method === 'identify' ? 'user' : 'group';
    reportError(`bad-${whose}-id`, new Error(`${name} needs a ${whose} ID: ${ID_RULE}`));
  } else if (userHash !== undefined && !isUserHash(userHash)) {
    reportError(
      'bad-user-hash',
      new Error(`${name}: userHash must be the hex string your backend computed; the call did nothing.`),
    );
  } else if (!isJson(properties)) badValue(name);
  else return false;
  return true;
}
