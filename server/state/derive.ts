// Derives the flow-state read from stored progress and each flow's compiled criteria.
import type {
  ActionType,
  FlowContentMode,
  FlowState,
  FlowStatesResponse,
  StepState,
  TargetedOutMode,
} from '../../src/api/wire.js';
import {
  contentHashFor,
  localizedContent,
  visibleData,
  visibleJson,
  type CatalogFlow,
  type CatalogVersion,
} from '../flows/catalog.js';
import type { FlowJson } from '../flows/flow-json.js';
import { computeCollections } from './collections.js';
import { computeExperiments } from './experiments.js';
import { computeLimits } from './limits.js';
import type { ExperimentsView } from './experiments-view.js';
import type { UserSnapshot } from './snapshot.js';
import { comesBack } from './reshow.js';

const FLOW_ACTIONS: ReadonlySet<ActionType> = new Set([
  'STARTED_FLOW',
  'COMPLETED_FLOW',
  'SKIPPED_FLOW',
  'NOT_STARTED_FLOW',
]);

/** What a state answer carries besides the state itself. */
export interface ReadOptions {
  /** `none` leaves every flow's definition out. @default 'all' */
  content?: FlowContentMode;
  /** Flow versions the client already holds, by slug: their definitions are left out. */
  knownVersions?: Record<string, number | string>;
  /** `hidden` also answers each ACTIVE flow whose targeting is false, with `$state.visible` false (it stays in `ineligibleFlows`). @default 'omit' */
  targetedOut?: TargetedOutMode;
  /**
   * The read's locale (a canonical code), which the snapshot was loaded with: the content comes in the snapshot's
   * `cel.user.locale` (this, else the user property), per flow and field falling back to the source.
   */
  locale?: string;
  /** The time of the read, which collection cool-offs, reshows and CEL (`now`, event windows) are measured to. @default the current time */
  now?: Date;
}

/** What a state answer is derived from: the flows, collections, experiments and limits of one catalog version. */
export type StateSource = Pick<
  CatalogVersion,
  'flows' | 'bySlug' | 'collections' | 'experiments' | 'experimentsOfFlow' | 'limits' | 'limitsOfFlow'
>;

/**
 * The user's eligibility for each flow, each evaluated once in a read: the collections and the answer both ask, and
 * targeting (CEL, event windows) is most of a cached read's work.
 */
export function eligibility(snapshot: UserSnapshot): (flow: CatalogFlow) => boolean {
  const memo = (snapshot.memo ??= {});
  if (!memo.eligible) {
    const known = new Map<CatalogFlow, boolean>();
    memo.eligible = (flow) => {
      let eligible = known.get(flow);
      if (eligible === undefined) known.set(flow, (eligible = isEligible(flow, snapshot)));
      return eligible;
    };
  }
  return memo.eligible;
}

/** A flow's state with `$state.visible` false: a collection holds it back, or it is sent although targeted out. */
function hidden(state: FlowState): FlowState {
  return { ...state, $state: { ...state.$state, visible: false } };
}

/**
 * Whether an answer in this mode carries a flow the user is not eligible for: only an ACTIVE one (targeted out) in
 * `hidden` mode. A DRAFT or ARCHIVED flow's content is in no state answer, in any mode.
 */
const sentHidden = (flow: CatalogFlow, mode: TargetedOutMode | undefined) =>
  mode === 'hidden' && flow.flow.status === 'ACTIVE';

export function deriveFlowStates(
  source: StateSource,
  snapshot: UserSnapshot,
  options: ReadOptions = {},
): FlowStatesResponse {
  const eligibleFlows: FlowState[] = [];
  const ineligibleFlows: string[] = [];
  const eligible = eligibility(snapshot);
  const { shown, experiments } = experimentsOf(source, snapshot, eligible);
  const now = options.now ?? snapshot.cel.now;
  const { computedOrder, held } = computeCollections(source, snapshot, now, shown);
  const limited = computeLimits(source, snapshot, now).holds;
  for (const flow of source.flows) {
    const userEligible = eligible(flow);
    if (!userEligible) {
      ineligibleFlows.push(flow.flow.slug);
      if (!sentHidden(flow, options.targetedOut)) continue;
    }
    const derived = deriveFlowState(flow, snapshot, options.now);
    const slug = flow.flow.slug;
    const state = !shown(flow) || held.has(slug) || limited?.(slug) ? hidden(derived) : derived;
    const known =
      options.content === 'none' ||
      holds(flow, options.knownVersions?.[flow.flow.slug], contentHashFor(flow, snapshot.cel));
    eligibleFlows.push(known ? state : withContent(flow, state, snapshot));
  }
  const answer: FlowStatesResponse = { eligibleFlows, ineligibleFlows, collections: { computedOrder } };
  if (experiments.exposuresJson) answer.experiments = experiments.exposures();
  return answer;
}

/**
 * The experiments' view of the user, and the flows the user may be shown: eligible, and not held back by an
 * experiment. A collection shows the first of its flows that may be shown, so a variant held back gives way to the next.
 */
function experimentsOf(
  source: StateSource,
  snapshot: UserSnapshot,
  eligible: (flow: CatalogFlow) => boolean,
): { shown: (flow: CatalogFlow) => boolean; experiments: ExperimentsView } {
  const experiments = computeExperiments(source, snapshot, eligible);
  const { holds } = experiments;
  return { shown: holds ? (flow) => eligible(flow) && !holds(flow.flow.slug) : eligible, experiments };
}

/**
 * Whether a client holds this version's content: it names the content's hash (the script), or the version number (a
 * client that predates the hash; after a restore, a number can name other content, which such a client then keeps).
 * `hash` is the user's (contentHashFor): a centre whose blocks are shown on conditions has one per set of blocks,
 * which a version number cannot name, so such a client is sent its content every time.
 */
export const holds = (flow: CatalogFlow, known: number | string | undefined, hash = flow.contentHash) =>
  typeof known === 'string' ? known === hash : known === flow.flow.version && !flow.blocks.length;

/**
 * The flow's definition in its state: every field of the YAML `data`, and each step's definition
 * beside its `id` and `$state`, so a client can draw the flow from this answer alone. A resource centre's blocks
 * whose `visibleWhen` is false for the user are left out.
 */
function withContent(flow: CatalogFlow, state: FlowState, snapshot: UserSnapshot): FlowState {
  const { steps, ...fields } = visibleData(flow, localizedContent(flow, snapshot.cel.user.locale).data, snapshot.cel);
  return {
    ...state,
    data: {
      ...fields,
      steps: state.data.steps.map((step, index) => ({ ...steps[index], id: step.id, $state: step.$state })),
    },
  };
}

/**
 * The same answer as deriveFlowStates, as the parts of its UTF-8 JSON in order (shared ones among them: never
 * change a part). Each flow's constant parts (names, content) were serialised once per version, and a flow the
 * user has not touched is reused whole, so a read serialises only the state it stores. At hundreds of flows,
 * building and serialising the content again for every read would cost more than the rest of the read; the
 * reply serializer joins the parts with one copy.
 */
export function renderFlowStateParts(
  source: StateSource,
  snapshot: UserSnapshot,
  options: ReadOptions = {},
  tally: AnswerTally = { bytes: 0, made: [] },
): Buffer[] {
  const made = (text: string) => madeFor(tally, text);
  const parts: Buffer[] = [ELIGIBLE_OPEN];
  const ineligible: string[] = [];
  const eligible = eligibility(snapshot);
  const { shown, experiments } = experimentsOf(source, snapshot, eligible);
  const now = options.now ?? snapshot.cel.now;
  const { computedOrderParts, held } = computeCollections(source, snapshot, now, shown);
  const limited = computeLimits(source, snapshot, now).holds;
  for (const flow of source.flows) {
    const userEligible = eligible(flow);
    if (!userEligible) {
      ineligible.push(flow.flow.slug);
      if (!sentHidden(flow, options.targetedOut)) continue;
    }
    const known =
      options.content === 'none' ||
      holds(flow, options.knownVersions?.[flow.flow.slug], contentHashFor(flow, snapshot.cel));
    if (parts.length > 1) parts.push(COMMA);
    // Whether a collection holds a flow back depends on the clock and the user's other flows, but an untouched
    // flow held back reads the same for every such user: it is kept as its own kind of untouched answer. A flow sent
    // although targeted out reads the same as one held back (the mode only decides whether it is sent at all).
    // A global limit holds back only flows the user has not started: untouched ones, kept the same way.
    const isHidden = !shown(flow) || held.has(flow.flow.slug) || (limited?.(flow.flow.slug) ?? false);
    // The parts in the read's locale: each (version, locale) is serialised once, its untouched answers kept apart;
    // a resource centre's, once per set of blocks the user sees too (its hash too, with or without content).
    const json =
      known && !flow.blocks.length
        ? flow.json
        : visibleJson(flow, localizedContent(flow, snapshot.cel.user.locale), snapshot.cel);
    if (untouched(flow, snapshot)) parts.push(renderUntouched(flow, json, snapshot, !known, isHidden, made));
    else {
      const state = deriveFlowState(flow, snapshot, options.now);
      if (known) parts.push(made(renderFlowState(json, isHidden ? hidden(state) : state, false)));
      else pushWithContent(parts, json, isHidden ? hidden(state) : state, made);
    }
  }
  parts.push(
    sharedText(source, `],"ineligibleFlows":${JSON.stringify(ineligible)},"collections":{"computedOrder":`, made),
    ...computedOrderParts,
    experiments.exposuresJson ? made(`},"experiments":${experiments.exposuresJson}}`) : CLOSE_ANSWER,
  );
  return parts;
}

/** The parts made for this read alone (not the shared ones), and the memory they take once kept, as an estimate. */
export interface AnswerTally {
  bytes: number;
  /** Cut from Node's buffer pool: an answer that is kept copies them into memory of its own (see ownedParts). */
  made: Buffer[];
}

/** What one small Buffer costs beside its bytes, once it is a view of its answer's own memory: the object. */
const BUFFER_OVERHEAD = 100;

function madeFor(tally: AnswerTally, text: string): Buffer {
  const bytes = Buffer.from(text);
  tally.bytes += bytes.length + BUFFER_OVERHEAD;
  tally.made.push(bytes);
  return bytes;
}

const ELIGIBLE_OPEN = Buffer.from('{"eligibleFlows":[');
const COMMA = Buffer.from(',');
const CLOSE_ANSWER = Buffer.from('}}');

/** Kinds of answer kept per flow for untouched users; a flow with more condition outcomes than this renders the rest each time. */
const UNTOUCHED_KINDS = 32;

function untouched(flow: CatalogFlow, snapshot: UserSnapshot): boolean {
  const slug = flow.flow.slug;
  return !snapshot.flows.has(slug) && !snapshot.steps.has(slug) && !snapshot.responses.get(slug)?.length;
}

/**
 * A flow the user has stored nothing in: its state follows from its conditions alone, so the bytes are
 * made once per outcome of those conditions and reused for every such user until the flow changes.
 */
function renderUntouched(
  flow: CatalogFlow,
  json: FlowJson,
  snapshot: UserSnapshot,
  content: boolean,
  isHidden: boolean,
  made: (text: string) => Buffer,
): Buffer {
  // One bit for content, one for `$state.visible` forced false (held back, or targeted out), one per condition the
  // flow has: whether it holds for this user. Targeting is not a condition here: it only decides that bit.
  let key = (content ? 1 : 0) + (isHidden ? 2 : 0);
  let bit = 4;
  for (const condition of flow.conditions) {
    if (condition(snapshot.cel)) key += bit;
    bit *= 2;
  }
  const cached = json.untouched.get(key);
  if (cached) return cached;
  const state = deriveFlowState(flow, snapshot);
  const bytes = made(renderFlowState(json, isHidden ? hidden(state) : state, content));
  // Past 2^52 the keys would no longer be exact: such a flow is rendered every time.
  if (json.untouched.size < UNTOUCHED_KINDS && bit <= 2 ** 52) json.untouched.set(key, bytes);
  return bytes;
}

/**
 * A touched flow's answer with its content, as parts: the content is most of its bytes and the same for every
 * user, so it is encoded once per version and locale, and only the states are encoded per read.
 */
function pushWithContent(parts: Buffer[], json: FlowJson, state: FlowState, made: (text: string) => Buffer): void {
  const constant = (json.contentParts ??= contentParts(json));
  const steps = state.data.steps;
  if (steps.length === 0) parts.push(constant[0]);
  steps.forEach((step, index) => parts.push(constant[index], stepStatePart(step.$state, made)));
  parts.push(made(`${steps.length ? '}' : ''}]},"$state":${flowStateJson(state)}${json.tail}`));
}

function contentParts(json: FlowJson): Buffer[] {
  const open = json.head + json.fields + '"steps":[';
  if (json.stepIds.length === 0) return [Buffer.from(open)];
  return json.stepIds.map((id, index) => Buffer.from(`${index ? '},' : open}{${json.stepFields[index]}${id}`));
}

function renderFlowState(json: FlowJson, state: FlowState, content: boolean): string {
  let text = json.head + (content ? json.fields : '') + '"steps":[';
  state.data.steps.forEach((step, index) => {
    text += `${index ? ',' : ''}{${content ? json.stepFields[index] : ''}${json.stepIds[index]}${stepStateJson(step.$state)}}`;
  });
  return `${text}]},"$state":${flowStateJson(state)}${json.tail}`;
}

/** A flow's `$state` as JSON. Written out by hand: thousands of small JSON.stringify calls per read cost more than the booleans they hold. */
function flowStateJson(state: FlowState): string {
  const f = state.$state;
  return (
    `{"currentStepId":${JSON.stringify(f.currentStepId)},"currentStepIndex":${f.currentStepIndex},"completed":${f.completed},` +
    `"started":${f.started},"skipped":${f.skipped},"visible":${f.visible}${f.lastActionAt ? `,"lastActionAt":"${f.lastActionAt}"` : ''},` +
    `"flowResponses":${f.flowResponses.length ? JSON.stringify(f.flowResponses) : '[]'}${f.reshows === undefined ? '' : `,"reshows":${f.reshows}`}}`
  );
}

/**
 * A step's `$state` as bytes for a flow rendered with its content. Without a time or responses it is one of 32 (its
 * five flags): most steps of a flow a user has touched read so, and those bytes are made once for every answer.
 */
function stepStatePart(s: StepState, made: (text: string) => Buffer): Buffer {
  if (s.lastActionAt || s.flowResponses.length) return made(stepStateJson(s));
  const flags = +s.completed | (+s.skipped << 1) | (+s.started << 2) | (+s.visible << 3) | (+s.blocked << 4);
  return (PLAIN_STEP_STATES[flags] ??= Buffer.from(stepStateJson(s)));
}

const PLAIN_STEP_STATES: Buffer[] = [];

/** Texts kept per catalog version for answers to share; past this many, a text is made for its answer alone. */
const SHARED_TEXTS = 256;
const sharedTexts = new WeakMap<StateSource, Map<string, Buffer>>();

/**
 * `text`'s bytes, shared by every answer of this catalog version that holds the same text: for a part that depends on
 * few things, as the list of flows a user is not eligible for does (users who match the same targeting share it).
 */
function sharedText(source: StateSource, text: string, made: (text: string) => Buffer): Buffer {
  let texts = sharedTexts.get(source);
  if (!texts) sharedTexts.set(source, (texts = new Map<string, Buffer>()));
  const kept = texts.get(text);
  if (kept) return kept;
  if (texts.size >= SHARED_TEXTS) return made(text);
  const bytes = Buffer.from(text);
  texts.set(text, bytes);
  return bytes;
}

/** A step's `$state` as JSON; `lastActionAt` is an ISO time, which needs no escaping. */
function stepStateJson(s: StepState): string {
  return (
    `{"completed":${s.completed},"skipped":${s.skipped},"started":${s.started},"visible":${s.visible},"blocked":${s.blocked}` +
    `${s.lastActionAt ? `,"lastActionAt":"${s.lastActionAt}"` : ''},"flowResponses":${s.flowResponses.length ? JSON.stringify(s.flowResponses) : '[]'}}`
  );
}

/** ACTIVE, inside its schedule at the read's time, and targeted at the user. */
export function isEligible(flow: CatalogFlow, snapshot: UserSnapshot): boolean {
  return flow.flow.status === 'ACTIVE' && inSchedule(flow, snapshot.cel.now) && flow.targeting(snapshot.cel);
}

/** Whether `now` is inside the flow's schedule: from its start (inclusive) until its end (exclusive); always without one. */
export function inSchedule(flow: CatalogFlow, now: Date): boolean {
  const schedule = flow.definition.schedule;
  if (!schedule) return true;
  const at = now.getTime();
  return at >= schedule.startMs && at < schedule.endMs;
}

/** The flow's state for the user at `now` (the read's time: a dismissed flow with `reshow` may have come back). */
export function deriveFlowState(flow: CatalogFlow, snapshot: UserSnapshot, now: Date = snapshot.cel.now): FlowState {
  const slug = flow.flow.slug;
  const stored = snapshot.flows.get(slug);
  const storedSteps = snapshot.steps.get(slug);
  const responses = snapshot.responses.get(slug) ?? [];
  const steps = flow.steps.map((step) => {
    const id = step.definition.id;
    const s = storedSteps?.get(id);
    const state: StepState = {
      completed: Boolean(s?.completed) || (step.completion?.(snapshot.cel) ?? false),
      skipped: Boolean(s?.skipped),
      started: Boolean(s?.started),
      visible: step.visibility?.(snapshot.cel) ?? true,
      blocked: step.start ? !step.start(snapshot.cel) : false,
      ...(s?.lastActionAt ? { lastActionAt: s.lastActionAt } : {}),
      flowResponses: responses.filter((r) => r.stepId === id && !FLOW_ACTIONS.has(r.actionType)),
    };
    return { id, $state: state };
  });
  const isOpen = (s: (typeof steps)[number]) => s.$state.visible && !s.$state.completed && !s.$state.skipped;
  const storedIndex = stored?.currentStepId ? steps.findIndex((s) => s.id === stored.currentStepId) : -1;
  let currentIndex = storedIndex >= 0 && isOpen(steps[storedIndex]) ? storedIndex : steps.findIndex(isOpen);
  // With nothing left open, the pointer rests on the last visible step (or the first step) so it is never empty.
  if (currentIndex < 0) {
    const visible = steps.map((s, i) => (s.$state.visible ? i : -1)).filter((i) => i >= 0);
    currentIndex = visible.length ? visible[visible.length - 1] : 0;
  }
  const completed = Boolean(stored?.completed) || (flow.completion?.(snapshot.cel) ?? false);
  const back = comesBack(flow, stored, now);
  const skipped = Boolean(stored?.skipped) && !back;
  return {
    flowSlug: slug,
    flowName: flow.flow.name,
    flowType: flow.flow.type,
    data: { steps },
    $state: {
      currentStepId: steps[currentIndex]?.id ?? '',
      currentStepIndex: steps.length ? currentIndex : -1,
      completed,
      started: Boolean(stored?.started),
      skipped,
      visible: !completed && !skipped,
      ...(stored?.lastActionAt ? { lastActionAt: stored.lastActionAt } : {}),
      flowResponses: responses,
      ...(flow.definition.reshow ? { reshows: (stored?.reshows ?? 0) + (back ? 1 : 0) } : {}),
    },
    version: flow.flow.version,
    contentHash: contentHashFor(flow, snapshot.cel),
  };
}
