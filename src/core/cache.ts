// What a returning visitor paints from: flow content by slug and version, and the user's last known state, in localStorage within a budget.
import { isDefinition, isFlowStates, isObject, isString } from '../api/guards.js';
import { FLOW_TYPES, type FlowState, type FlowStatesResponse, type KnownVersions } from '../api/wire.js';
import type { FlowDefinition } from '../flows/flow.js';
import { discarded, type KeyValueStore } from './storage.js';

const CONTENT_KEY = 'content';
const STATE_KEY = 'state';
/** The locale the cached content is in: the cache keeps one. */
const LOCALE_KEY = 'contentLocale';
/**
 * localStorage gives an origin about 5 million characters, shared with the site; the outbox takes at most 1 MiB.
 * Content and state take at most 1 MiB and 512 KiB more: past that, the first flows that fit are kept, and the
 * others are read from the service on the next visit.
 */
export const CONTENT_BUDGET = 1 << 20;
export const STATE_BUDGET = 1 << 19;

/** The content one flow carries in a state answer, as a definition; undefined when it has no usable name or type. */
export function definitionOf(state: FlowState): FlowDefinition | undefined {
  if (!isString(state.flowName) || !FLOW_TYPES.includes(state.flowType)) return undefined;
  const { steps, ...fields } = state.data;
  return {
    slug: state.flowSlug,
    name: state.flowName,
    type: state.flowType,
    version: state.version,
    contentHash: state.contentHash,
    data: { ...fields, steps: steps.map(({ $state: _state, ...step }) => step) },
  };
}

/** One flow's state without its content: each step keeps only its `id` and `$state`. */
export const stateOnly = (state: FlowState): FlowState => ({
  ...state,
  data: { steps: state.data.steps.map((step) => ({ id: step.id, $state: step.$state })) },
});

/** What a read names a flow's content by: its hash, or (content cached before hashes were sent) its version. */
export const contentTag = (flow: { version: number; contentHash?: string }) => flow.contentHash ?? flow.version;

/** Whether `held` is the content `state` names: by its hash, or by the version when it was cached before hashes were sent. */
export const holdsContent = (held: FlowDefinition, state: FlowState) =>
  held.contentHash ? held.contentHash === state.contentHash : held.version === state.version;

export function knownVersions(definitions: Record<string, FlowDefinition>): KnownVersions {
  const known: KnownVersions = {};
  for (const slug in definitions) known[slug] = contentTag(definitions[slug]);
  return known;
}

/** JSON of as many `items` as fit `budget` characters, in order; `before` and `after` wrap the list. */
function jsonWithin(items: unknown[], budget: number, before = '[', after = ']'): string {
  const parts: string[] = [];
  let size = before.length + after.length;
  for (const item of items) {
    const part = JSON.stringify(item);
    if (size + part.length + 1 > budget) continue;
    parts.push(part);
    size += part.length + 1;
  }
  return `${before}${parts.join(',')}${after}`;
}

/** The cached definitions, checked one by one: one that does not fit is dropped (and reported), the others stay. */
export function readContent(storage: KeyValueStore): Record<string, FlowDefinition> {
  const text = storage.get(CONTENT_KEY);
  const definitions: Record<string, FlowDefinition> = {};
  if (text === null) return definitions;
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    // Not JSON: discarded below.
  }
  const items = Array.isArray(list) ? list : [list];
  let refused = 0;
  for (const item of items) {
    if (isDefinition(item)) definitions[item.slug] = item;
    else refused++;
  }
  if (refused) {
    discarded(`${refused} cached flows`);
    if (refused === items.length) storage.remove(CONTENT_KEY);
  }
  return definitions;
}

/**
 * Whether the cached content is in `locale` (`''` for none). Content cached with no locale recorded was cached before
 * flows had translations, so it is every locale's: a flow given translations since has a new version, which the
 * service sends again.
 */
export const contentIn = (storage: KeyValueStore, locale: string) => [null, locale].includes(storage.get(LOCALE_KEY));

/**
 * Keeps `definitions`, read in `locale`, the slugs in `first` before the others, as many as fit the budget. The cache
 * holds one locale's content: this replaces content cached in another.
 */
export function writeContent(
  storage: KeyValueStore,
  definitions: Record<string, FlowDefinition>,
  first: string[],
  locale: string,
): void {
  const ordered = new Set([...first.filter((slug) => definitions[slug]), ...Object.keys(definitions)]);
  storage.set(
    CONTENT_KEY,
    jsonWithin(
      [...ordered].map((slug) => definitions[slug]),
      CONTENT_BUDGET,
    ),
  );
  // Written only when it changes: most writes keep the locale.
  if (storage.get(LOCALE_KEY) !== locale) storage.set(LOCALE_KEY, locale);
}

const isCachedState = (value: unknown): value is { userId: string; states: FlowStatesResponse } =>
  isObject(value) && isString(value.userId) && isFlowStates(value.states);

/** The last known state of `userId`, if it is the user the cache holds. */
export function readState(storage: KeyValueStore, userId: string): FlowStatesResponse | undefined {
  const text = storage.get(STATE_KEY);
  if (text === null) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (isCachedState(value)) return value.userId === userId ? value.states : undefined;
  } catch {
    // Not JSON: discarded below.
  }
  storage.remove(STATE_KEY);
  discarded(STATE_KEY);
  return undefined;
}

/** Keeps the user's state without the response log (no element reads it), as many flows as fit the budget. */
export function writeState(storage: KeyValueStore, userId: string, states: FlowStatesResponse): void {
  const compact = states.eligibleFlows.map((state) => ({
    ...state,
    $state: { ...state.$state, flowResponses: [] },
    data: { steps: state.data.steps.map((step) => ({ id: step.id, $state: { ...step.$state, flowResponses: [] } })) },
  }));
  // The answer's other fields as they are (ineligibleFlows, collections, experiments), the flows last within the budget.
  const { eligibleFlows: _flows, ...rest } = states;
  const head = `{"userId":${JSON.stringify(userId)},"states":${JSON.stringify(rest).slice(0, -1)},"eligibleFlows":[`;
  storage.set(STATE_KEY, jsonWithin(compact, STATE_BUDGET, head, ']}}'));
}

export const forgetState = (storage: KeyValueStore) => storage.remove(STATE_KEY);
