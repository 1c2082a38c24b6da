// Type guards for what crosses the script's boundaries: the service's answers, and what comes back out of localStorage.
// Hand-written, not a schema library: every byte of the script is paid for by our customers' users on every page load.
import type { FlowDefinition } from '../flows/flow.js';
import { ACTION_TYPES, FLOW_TYPES, type BatchResponse, type FlowState, type FlowStatesResponse } from './wire.js';

type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const isString = (value: unknown): value is string => typeof value === 'string';

/**
 * A value that can go over the wire: absent, or one that JSON.stringify turns into text. A BigInt or a circular
 * structure throws there; a function or a symbol turns into nothing.
 */
export function isJson(value: unknown): boolean {
  try {
    return value === undefined || JSON.stringify(value) !== undefined;
  } catch {
    return false;
  }
}

/** An ID as the service takes it: 1 to 256 characters, none of them a control character. */
export const isId = (value: unknown): value is string =>
  isString(value) && /^[^\u0000-\u001f\u007f]{1,256}$/.test(value);

/** The flags the script reads off a flow's or a step's `$state`. */
const hasFlags = (state: unknown) =>
  isObject(state) &&
  typeof state.started === 'boolean' &&
  typeof state.completed === 'boolean' &&
  typeof state.skipped === 'boolean' &&
  typeof state.visible === 'boolean';

/** One eligible flow's state, deep enough that the stores, the transitions and buildFlow cannot throw on it. */
export const isFlowState = (value: unknown): value is FlowState =>
  isObject(value) &&
  isString(value.flowSlug) &&
  typeof value.version === 'number' &&
  hasFlags(value.$state) &&
  isObject(value.data) &&
  Array.isArray(value.data.steps) &&
  value.data.steps.every((step) => isObject(step) && isString(step.id) && hasFlags(step.$state));

export const isFlowStates = (value: unknown): value is FlowStatesResponse =>
  isObject(value) &&
  Array.isArray(value.eligibleFlows) &&
  value.eligibleFlows.every(isFlowState) &&
  Array.isArray(value.ineligibleFlows) &&
  value.ineligibleFlows.every(isString);

/** A batch's answer: one result with a numeric status per write (the caller checks the count), and a state when there is one. */
export const isBatchResponse = (value: unknown): value is BatchResponse =>
  isObject(value) &&
  Array.isArray(value.results) &&
  value.results.every((result) => isObject(result) && typeof result.status === 'number') &&
  (value.flowStates === undefined || isFlowStates(value.flowStates));

const hasSteps = (data: unknown) =>
  isObject(data) && Array.isArray(data.steps) && data.steps.every((step) => isObject(step) && isString(step.id));

/** A flow definition as the script caches it (core/cache.ts): a slug, a name, a known type, a version, and data with steps that have ids. */
export const isDefinition = (value: unknown): value is FlowDefinition =>
  isObject(value) &&
  isString(value.slug) &&
  isString(value.name) &&
  FLOW_TYPES.includes(value.type as never) &&
  typeof value.version === 'number' &&
  hasSteps(value.data);

/** A queued write as the outbox stores it (core/outbox-api.ts): key, owner, timing, and a body of its path's shape. */
export const isQueuedWrite = (value: unknown): boolean => {
  if (!isObject(value) || !isString(value.key) || !value.key || !isString(value.userId) || !isObject(value.body))
    return false;
  if (typeof value.at !== 'number' || typeof value.attempts !== 'number' || typeof value.retryAt !== 'number')
    return false;
  const body = value.body;
  if (value.path === 'users') return isString(body.userId);
  if (value.path === 'groups') return isString(body.groupId);
  return (
    value.path === 'flowStates' &&
    isString(body.flowSlug) &&
    isString(body.stepId) &&
    ACTION_TYPES.includes(body.actionType as never)
  );
};
