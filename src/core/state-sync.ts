// The user's flow state: the service's last answer as the base, pending writes replayed on top, the caches, other tabs' answers, and the events announced.
import type { ApiError } from '../api/client.js';
import { isDefinition, isFlowStates, isString } from '../api/guards.js';
import { nextTask } from '../api/next-task.js';
import type { FlowStatesResponse, FlowStateWriteRequest, KnownVersions } from '../api/wire.js';
import type { FlowDefinition } from '../flows/flow.js';
import { $collections, $flowDefinitions, $flowStates, $flows, $ineligibleFlows, $userId } from '../stores/flows.js';
import { diffFlowStates, type Emitter } from './events.js';
import type { Outbox, OutboxEntry, Sent } from './outbox-api.js';
import { reportError } from './errors.js';
import { contentTag, definitionOf, holdsContent, readState, writeContent, writeState } from './cache.js';
import type { KeyValueStore } from './storage.js';
import type { TabMessage, Tabs } from './tabs.js';
import { foldWrite, replayWrites, sameFlowState } from './optimistic.js';

export const EMPTY: FlowStatesResponse = { eligibleFlows: [], ineligibleFlows: [] };
/** A read's answer that changes more flows than this becomes the base this many flows per task. */
const SLICE = 200;
const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((item, i) => item === b[i]);

type OnboardingState = FlowStatesResponse['eligibleFlows'][number];

/** What the state needs of the SDK around it. */
export interface StateHost {
  readonly storage: KeyValueStore;
  /** The current user's ID. */
  userId(): string;
  /** The group every read and write names, if any. */
  groupId(): string | undefined;
  /** Whether init ran (the caches are written only then). */
  initialized(): boolean;
  outbox(): Outbox | undefined;
  tabs(): Tabs | undefined;
  /** The locale of the content held ('' for the flows' own text). */
  contentLocale(): string;
  /** Reads the current user's state again. */
  refresh(): void;
  emit: Emitter['emit'];
}

export class StateSync {
  /** The service's last answer for the current user; pending writes are replayed on top of it. */
  #base: FlowStatesResponse = EMPTY;
  /** Counts answers taken as the base, so a read that overlapped one is known to be older. */
  #answers = 0;
  /** Flow versions already read for, so a state naming a version without content reads once more, not for ever. */
  #askedVersions = new Set<string>();
  /** Pending writes of the caches to localStorage, off the path of an answer: the state's, and the content's. */
  #persisting: ReturnType<typeof setTimeout> | undefined;
  #persistingContent: ReturnType<typeof setTimeout> | undefined;
  #persistContent = false;
  #announced: { userId: string | null; states: Record<string, OnboardingState> } = { userId: null, states: {} };
  #quiet = false;
  /** "<user id> <experiment id>" of each exposure this page announced. */
  #exposed = new Set<string>();

  constructor(private readonly host: StateHost) {}

  /** How many answers have been taken: a read that started at another count overlapped a newer answer. */
  get answers(): number {
    return this.#answers;
  }

  /** Starts announcing flow and step events as the flows change; returns the function that stops. */
  announceChanges(): () => void {
    return $flows.listen(() => this.#announce());
  }

  /** Makes `userId`'s state the base: `base`, else what is cached for them, else none. The switch itself raises no flow or step events. */
  switchTo(userId: string, base?: FlowStatesResponse): void {
    this.#base = base ?? readState(this.host.storage, userId) ?? EMPTY;
    this.#answers++;
    this.recompute();
    // Later changes are this user's; whatever the switch itself changed was a load, not a transition.
    this.#announced = { userId, states: $flowStates.get() };
  }

  /** Computes the view again without raising flow and step events (`change` still fires): a rollback. */
  recomputeQuietly(): void {
    this.#quiet = true;
    this.recompute();
    this.#quiet = false;
  }

  /**
   * Takes an answer: the content it carries (every flow whose version was not in `known`; none with `known` null)
   * joins the definitions, and with `apply` the answer becomes the base (as it is: stripping the content would only
   * cost allocations on the answer's path; the cached copy leaves it out).
   */
  take(
    answer: FlowStatesResponse,
    known: KnownVersions | null,
    apply = true,
    broadcast = false,
    persistNow = false,
  ): void | Promise<void> {
    const added: FlowDefinition[] = [];
    if (known) {
      const held = $flowDefinitions.get();
      for (const state of answer.eligibleFlows) {
        const had = held[state.flowSlug];
        // Sent as known (by hash, or by number from content cached before hashes), the answer left its content out.
        const sent = known[state.flowSlug];
        if (
          sent === contentTag(state) ||
          sent === state.version ||
          (had && holdsContent(had, state)) ||
          (had && !apply && had.version > state.version)
        )
          continue;
        const definition = definitionOf(state);
        if (definition) added.push(definition);
      }
      this.#addDefinitions(added);
    }
    if (!apply) return;
    // A write's answer is the base at once (written() says why); a read's that changes many flows, a slice per task.
    if (!persistNow && answer.eligibleFlows.length > SLICE && this.#changes(answer) > SLICE)
      return this.#setBaseInSlices(answer);
    this.#setBase(answer, broadcast ? added : undefined, persistNow);
  }

  /** How many flows of `answer` are new or changed; each unchanged one takes the object the base has for it. */
  #changes(answer: FlowStatesResponse): number {
    const before = new Map(this.#base.eligibleFlows.map((state) => [state.flowSlug, state]));
    let changes = 0;
    answer.eligibleFlows = answer.eligibleFlows.map((state) => {
      const known = before.get(state.flowSlug);
      if (known && sameFlowState(known, state)) return known;
      changes++;
      return state;
    });
    return changes;
  }

  /**
   * An answer that changes many flows becomes the base in slices, a task each: the first SLICE flows of the answer in
   * place of their old states, then the next, and finally the whole answer. No task then builds and draws every flow at
   * once. It stops when another answer became the base meanwhile (a write's, another tab's or another user's): that
   * one is newer.
   */
  async #setBaseInSlices(answer: FlowStatesResponse): Promise<void> {
    const flows = answer.eligibleFlows;
    for (let end = SLICE; ; end += SLICE) {
      const answers = this.#answers;
      await nextTask();
      if (answers !== this.#answers) return;
      if (end >= flows.length) return this.#setBase(answer);
      const head = flows.slice(0, end);
      const taken = new Set(head.map((state) => state.flowSlug));
      this.#base = {
        ...this.#base,
        eligibleFlows: [...head, ...this.#base.eligibleFlows.filter((state) => !taken.has(state.flowSlug))],
      };
      this.#answers++;
      this.recompute();
    }
  }

  #addDefinitions(added: FlowDefinition[]): void {
    if (!added.length) return;
    const definitions = { ...$flowDefinitions.get() };
    for (const definition of added) definitions[definition.slug] = definition;
    $flowDefinitions.set(definitions);
    this.#persistContent = true;
    this.#schedulePersist();
  }

  /** `definitions`: the content this answer brought, sent to the other tabs with it. */
  #setBase(states: FlowStatesResponse, definitions?: FlowDefinition[], persistNow = false): void {
    const userId = this.host.userId();
    // A flow the answer did not change keeps its object, so later views find it unchanged by identity, not field by field.
    const before = new Map(this.#base.eligibleFlows.map((state) => [state.flowSlug, state]));
    states.eligibleFlows = states.eligibleFlows.map((state) => {
      const known = before.get(state.flowSlug);
      return known && sameFlowState(known, state) ? known : state;
    });
    this.#base = states;
    this.#answers++;
    // A write's answer at once: its entry leaves the queue as the answer becomes the base, and the next page load
    // must find one or the other. The content, and a read's state, in tasks of their own, off the answer's path.
    if (!persistNow) this.#schedulePersist();
    else {
      this.persist(true, false);
      this.#schedulePersist(false);
    }
    // Other tabs get the flows this answer changed, and the order of all: they hold the others already.
    if (definitions) {
      const changed = states.eligibleFlows.filter((state) => before.get(state.flowSlug) !== state);
      const order = states.eligibleFlows.map((state) => state.flowSlug);
      this.host.tabs()?.post({
        type: 'state',
        userId,
        states: { ...states, eligibleFlows: changed },
        order,
        definitions,
        locale: this.host.contentLocale(),
      });
    }
    this.recompute();
    this.#readMissing(states.eligibleFlows);
  }

  /** A state naming a version the script has no content for (a write's answer carries none): read once more for it. */
  #readMissing(states: OnboardingState[]): void {
    const held = $flowDefinitions.get();
    let missing = false;
    for (const state of states) {
      const key = `${state.flowSlug}@${contentTag(state)}`;
      const had = held[state.flowSlug];
      if ((had && holdsContent(had, state)) || this.#askedVersions.has(key)) continue;
      this.#askedVersions.add(key);
      missing = true;
    }
    if (missing) this.host.refresh();
  }

  /**
   * Writes the caches a moment later, each in a task of its own, as both can be large: the state (unless `state` is
   * false), then the content when it changed.
   */
  #schedulePersist(state = true): void {
    if (state) {
      this.#persisting ??= setTimeout(() => {
        this.persist(true, false);
        this.#schedulePersist(false);
      }, 50);
    } else if (this.#persistContent) this.#persistingContent ??= setTimeout(() => this.persist(false), 0);
  }

  /** Writes the caches now: the state of the current user, and the content when it changed. */
  persist(state = true, content = true): void {
    if (state) {
      clearTimeout(this.#persisting);
      this.#persisting = undefined;
    }
    if (content) {
      clearTimeout(this.#persistingContent);
      this.#persistingContent = undefined;
    }
    if (!this.host.initialized()) return;
    if (state) writeState(this.host.storage, this.host.userId(), this.#base);
    if (!content || !this.#persistContent) return;
    writeContent(
      this.host.storage,
      $flowDefinitions.get(),
      this.#base.eligibleFlows.map((state) => state.flowSlug),
      this.host.contentLocale(),
    );
    this.#persistContent = false;
  }

  /** The view: the base with every pending flowStates write of this user replayed on top; unchanged flows keep their objects. */
  recompute(): void {
    const userId = this.host.userId();
    const pending: FlowStateWriteRequest[] = [];
    for (const entry of this.host.outbox()?.entries() ?? []) {
      if (entry.path === 'flowStates' && entry.userId === userId) pending.push(entry.body);
    }
    const view = replayWrites(this.#base, pending);
    const previous = $flowStates.get();
    let changed = !sameList(Object.keys(previous), Object.keys(view));
    for (const slug in view) {
      const before = previous[slug];
      if (before && sameFlowState(before, view[slug])) view[slug] = before;
      else changed = true;
    }
    if (!sameList($ineligibleFlows.get(), this.#base.ineligibleFlows)) $ineligibleFlows.set(this.#base.ineligibleFlows);
    const order = this.#base.collections?.computedOrder;
    if (Array.isArray(order) && order !== $collections.get()) $collections.set(order);
    if (changed) $flowStates.set(view);
    this.#announceExposures(userId);
  }

  /** `experiment.exposed` for each experiment of the base this page has not announced for `userId`. */
  #announceExposures(userId: string): void {
    const experiments = this.#base.experiments;
    // Checked here, not by isFlowStates: a bad list (from the cache, or a service of another version) loses only this.
    if (!Array.isArray(experiments)) return;
    for (const exposure of experiments) {
      const key = `${userId} ${exposure?.id}`;
      if (!isString(exposure?.id) || this.#exposed.has(key)) continue;
      this.#exposed.add(key);
      this.host.emit('experiment.exposed', {
        experiment: exposure.id,
        variant: exposure.variant,
        exposedAt: exposure.exposedAt,
      });
    }
  }

  /** A write the service applied: its answer (or, for a write before the last of its batch, the write) becomes the base. */
  written(entry: OutboxEntry, sent: Sent, badAnswer?: ApiError): void {
    // The write was applied, but its answer cannot be used: the service's state is read instead.
    if (badAnswer) reportError('bad-answer', badAnswer);
    if (entry.userId !== this.host.userId()) return;
    // A users write's state is read without the group, so with a group the read below decides eligibility.
    const states = entry.path === 'users' && this.host.groupId() ? undefined : sent.flowStates;
    // Written to localStorage at once: the entries leave the queue as this becomes the base.
    if (isFlowStates(states)) void this.take(states, sent.known, true, true, true);
    else if (entry.path === 'flowStates') {
      // A write before the last of its batch: its change stays in the base until the batch's state (or the next read)
      // replaces it. The outbox computes the view again once for the whole batch.
      this.#base = foldWrite(this.#base, entry.body);
      this.#answers++;
      this.#schedulePersist();
    }
    if (badAnswer || (sent.last && entry.path !== 'flowStates' && !isFlowStates(states))) this.host.refresh();
  }

  /** Another tab's answer for this user: the flows it changed, in the order of all. */
  receive(message: Extract<TabMessage, { type: 'state' }>): void {
    if (message.userId !== this.host.userId() || !isFlowStates(message.states) || !Array.isArray(message.order)) return;
    // Content read in another locale is not this tab's: its states are, and a version they name is read for here.
    const sameLocale = (message.locale ?? '') === this.host.contentLocale();
    this.#addDefinitions(
      sameLocale && Array.isArray(message.definitions) ? message.definitions.filter(isDefinition) : [],
    );
    const held = new Map(this.#base.eligibleFlows.map((state) => [state.flowSlug, state]));
    for (const state of message.states.eligibleFlows) held.set(state.flowSlug, state);
    const eligibleFlows = message.order.map((slug) => held.get(slug));
    // A flow this tab has no state for: it reads the whole state instead.
    if (!eligibleFlows.every((state) => state)) return this.host.refresh();
    this.#base = {
      eligibleFlows: eligibleFlows as FlowStatesResponse['eligibleFlows'],
      ineligibleFlows: message.states.ineligibleFlows,
      collections: message.states.collections,
      experiments: message.states.experiments,
    };
    this.#answers++;
    this.recompute();
    if (!sameLocale) this.#readMissing(message.states.eligibleFlows);
  }

  /** Raises flow and step events for what changed since the last announcement, then `change`. */
  #announce(): void {
    const flows = $flows.get();
    const states = $flowStates.get();
    const userId = $userId.get();
    const previous = this.#announced;
    this.#announced = { userId, states };
    if (previous.userId === userId && !this.#quiet) {
      for (const change of diffFlowStates(previous.states, states)) {
        const flow = flows[change.slug];
        if (!flow) continue;
        if (change.stepId) {
          const step = flow.steps.find((s) => s.id === change.stepId);
          if (step) this.host.emit(change.name, { flow, step });
        } else {
          this.host.emit(change.name, { flow });
        }
      }
    }
    this.host.emit('change', { flows });
  }
}
