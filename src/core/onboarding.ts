// The SDK core: init, identity and guests, and the user's flow state kept in step with the service and other tabs.
import { ApiError, createApiClient, isRetryable, type ApiClient } from '../api/client.js';
import { isDefinition, isFlowStates, isId, isJson, isObject } from '../api/guards.js';
import { nextTask } from '../api/next-task.js';
import type { ActionType, FlowStatesResponse, FlowStateWriteRequest, Properties } from '../api/wire.js';
import { TARGET_MISSING_EVENT } from '../api/wire.js';
import type { Flow, FlowDefinition } from '../flows/flow.js';
import { $flowDefinitions, $flowStates, $flows, $ineligibleFlows, $transition, $userId } from '../stores/flows.js';
import { $elementOptions, type ElementOptions } from '../stores/options.js';
import { $userProperties } from '../stores/user.js';
import { createEmitter, diffFlowStates, type OnboardingEventMap, type OnboardingEventName, type TargetMissingEvent } from './events.js';
import { currentUserHash, currentUserId, forgetUser, isGuestId, isUserHash, rememberUser } from './identity.js';
import { backoffMs, createOutbox, dropError, type Outbox, type OutboxEntry, type Sent } from './outbox.js';
import { watchForRefresh } from './refresh.js';
import { onError, reportError } from './report.js';
import { definitionOf, forgetState, knownVersions, readContent, readState, writeContent, writeState, type KnownVersions } from './cache.js';
import { createSafeStorage, readStored, writeJson, type KeyValueStore } from './storage.js';
import { connectTabs, type TabMessage, type Tabs } from './tabs.js';
import { foldWrite, replayWrites, sameFlowState } from './transitions.js';
import { forwardEvents, type ForwardTarget } from './forward.js';

export interface OnboardingConfig extends Partial<ElementOptions> {
  /** The public API key (`pk_…`). Required. */
  publicKey: string;
  /** Base address of the onboarding service. Required. */
  apiUrl: string;
  /** Identifies this user right away, as `identify(userId, undefined, { userHash })` would. @default undefined (a guest) */
  userId?: string;
  /** The hash of `userId` for identity verification, from your backend. @default undefined */
  userHash?: string;
  /** Reloads state when the SPA route changes (history and hash navigation). @default true */
  refreshOnRouteChange?: boolean;
  /** Sends flow and step events to PostHog and/or Segment when they are on the page. @default undefined (nothing is sent) */
  forward?: ForwardTarget | ForwardTarget[];
}

const EMPTY: FlowStatesResponse = { eligibleFlows: [], ineligibleFlows: [] };
/** localStorage keys (under the `onboarding:` prefix); core/cache.ts keeps the content and the state. */
const GROUP_KEY = 'groupId';
const PROPERTIES_KEY = 'properties';
const EVENT_NAMES = 'flow.start flow.complete flow.skip flow.restart step.start step.complete step.skip step.reset change error target-missing';

/** `bad-answer` for a 2xx the script cannot use, else the caller's code. */
const failureCode = (error: unknown, code: string) => (error instanceof ApiError && error.kind === 'bad-answer' ? 'bad-answer' : code);
/** A read's answer that changes more flows than this becomes the base this many flows per task. */
const SLICE = 200;
const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((item, i) => item === b[i]);
const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const ID_RULE = '1 to 256 characters, no control characters.';
/** The step actions that take `data`, by the transition they write. */
const STEP_METHODS: Partial<Record<ActionType, string>> = { STARTED_STEP: 'step.start()', COMPLETED_STEP: 'step.complete()', SKIPPED_STEP: 'step.skip()' };
/** Refuses one call given a value that cannot go over the wire; nothing is queued or applied, and the call resolves. */
const badValue = (method: string) =>
  reportError('bad-value', new Error(`${method} got a value that is not JSON (a BigInt, a cycle, a function); the call did nothing.`));

export interface IdentifyOptions {
  /**
   * hex(HMAC-SHA256(identity secret, userId)) from your backend, for a service that verifies identity. It is sent
   * in the body of every request for this user and kept with the user ID across reloads and tabs.
   */
  userHash?: string;
}

export class Onboarding {
  #client: ApiClient | null = null;
  #storage: KeyValueStore = createSafeStorage();
  #outbox: Outbox | undefined;
  #tabs: Tabs | undefined;
  #emitter = createEmitter((error, name) => {
    // An error handler that throws is not reported again, or it would be called for ever.
    if (name !== 'error') reportError('listener-failed', error);
  });
  #stops: Array<() => void> = [];
  #initialLoad: ReturnType<typeof setTimeout> | undefined;
  /** A read that the network lost or the service shed, tried again after Retry-After or a backoff. */
  #readRetry: ReturnType<typeof setTimeout> | undefined;
  #readFailures = 0;
  /** Whether the first read is still the guest's to make (an identify first makes it unneeded). */
  #guestRead = true;
  /** The service's last answer for the current user; pending writes are replayed on top of it. */
  #base: FlowStatesResponse = EMPTY;
  /** Counts answers taken as the base, so a read that overlapped one is known to be older. */
  #answers = 0;
  #groupId: string | undefined;
  /** The current user's hash, when the page gave one. */
  #userHash: string | undefined;
  #reading: { userId: string; groupId?: string; promise: Promise<void> } | undefined;
  /** Flow versions already read for, so a state naming a version without content reads once more, not for ever. */
  #askedVersions = new Set<string>();
  /** Pending writes of the caches to localStorage, off the path of an answer: the state's, and the content's. */
  #persisting: ReturnType<typeof setTimeout> | undefined;
  #persistingContent: ReturnType<typeof setTimeout> | undefined;
  #persistContent = false;
  #announced: { userId: string | null; states: Record<string, OnboardingState> } = { userId: null, states: {} };
  #resolveReady!: () => void;
  #quiet = false;

  /** Resolves after the first state load of the current visitor (successful or not). */
  readonly ready: Promise<void> = new Promise((resolve) => {
    this.#resolveReady = resolve;
  });

  constructor() {
    onError((error, code) => this.#emitter.emit('error', { code, error }));
  }

  /** The current ID: `guest_<uuid>` before identify, the real ID after. */
  get userId(): string {
    return $userId.get() ?? currentUserId(this.#storage);
  }

  /** Every eligible flow the script has a definition for. */
  get flows(): Flow[] {
    return Object.values($flows.get());
  }

  get initialized(): boolean {
    return this.#client !== null;
  }

  getFlow(slug: string): Flow | undefined {
    return $flows.get()[slug];
  }

  /** Subscribes to an SDK event; returns the function that unsubscribes. */
  on<N extends OnboardingEventName>(name: N, handler: (event: OnboardingEventMap[N]) => void): () => void {
    if (!EVENT_NAMES.split(' ').includes(name)) reportError('unknown-event', new Error(`Onboarding.on: there is no "${name}" event. Use one of: ${EVENT_NAMES}.`));
    return this.#emitter.on(name, handler);
  }

  /** Configures the SDK and loads the current visitor's flows. Throws on a missing key: that is misuse, not a runtime failure. */
  init(config: OnboardingConfig): Promise<void> {
    if (!config || !nonEmpty(config.publicKey)) {
      throw new Error('Onboarding.init: publicKey is required. Pass the public key (pk_…) from your onboarding service.');
    }
    if (!nonEmpty(config.apiUrl)) {
      throw new Error('Onboarding.init: apiUrl is required. Pass the base address of your onboarding service.');
    }
    if (this.#client) return this.ready;
    const client = (this.#client = createApiClient({ apiUrl: config.apiUrl, publicKey: config.publicKey }));
    const storage = this.#storage;
    const { autoMount, nonce, strings } = config;
    $elementOptions.set({
      ...$elementOptions.get(),
      ...(autoMount !== undefined ? { autoMount } : {}),
      ...(nonce !== undefined ? { nonce } : {}),
      ...(strings ? { strings } : {}),
    });
    this.#outbox = createOutbox(storage, client, {
      sent: (entry, response, badAnswer) => this.#writeSent(entry, response, badAnswer),
      dropped: (entry, error) => {
        // A rollback undoes a change the service never made: `change` fires, flow and step events do not.
        this.#quiet = true;
        this.#recompute();
        this.#quiet = false;
        if (error instanceof ApiError) reportError('write-refused', error);
        else reportError('write-dropped', dropError(entry, error));
        // The optimistic change is already rolled back; the service may know a newer state.
        if (entry.userId === this.userId) void this.refresh();
      },
      failed: (_entry, error) => reportError('write-failed', error),
      changed: (settled) => {
        this.#recompute();
        this.#tabs?.post({ type: 'outbox', settled });
      },
      knownVersions: () => knownVersions($flowDefinitions.get()),
    });
    this.#tabs = connectTabs((message) => this.#receive(message));
    if (config.forward) forwardEvents(this.#emitter.on, config.forward);
    $transition.set((...args) => this.#transition(...args));
    this.#stops.push($flows.listen(() => this.#announce()));

    // Render from cache at once; the service's answers replace it (stale-while-revalidate).
    $flowDefinitions.set(readContent(storage));
    this.#groupId = this.#storedGroup();
    this.#switchUser(currentUserId(storage));

    const onPageHide = () => {
      this.#persist();
      this.#outbox?.flushOnExit();
    };
    const onVisibility = () => this.#outbox?.flush();
    // A tour, hint or tooltip whose target stayed missing: the page hears of it, and the flow's analytics count it.
    const onTargetMissing = ({ detail }: CustomEvent<TargetMissingEvent>) => {
      this.#emitter.emit('target-missing', detail);
      void this.track(TARGET_MISSING_EVENT, { ...detail });
    };
    addEventListener('pagehide', onPageHide);
    document.addEventListener('visibilitychange', onVisibility);
    document.addEventListener('onboarding-target-missing', onTargetMissing as EventListener);
    this.#stops.push(
      () => removeEventListener('pagehide', onPageHide),
      () => document.removeEventListener('visibilitychange', onVisibility),
      () => document.removeEventListener('onboarding-target-missing', onTargetMissing as EventListener),
      watchForRefresh(() => void this.refresh(), { routes: config.refreshOnRouteChange !== false }),
    );

    this.#outbox.flush();
    if (nonEmpty(config.userId)) void this.identify(config.userId, undefined, { userHash: config.userHash });
    // An identify that follows init at once loads the state itself; the guest read is then not needed.
    else {
      // After the document is parsed: an identify in a script after the tag then loads the state itself (one round
      // trip), and the guest's read is not made at all.
      const load = () => {
        if (this.#guestRead) this.#initialLoad = setTimeout(() => void this.refresh(), 0);
      };
      if (document.readyState === 'loading') {
        document.addEventListener('DOMContentLoaded', load, { once: true });
        this.#stops.push(() => document.removeEventListener('DOMContentLoaded', load));
      } else load();
    }
    return this.ready;
  }

  /**
   * Upserts the user and loads their flow states. With `userHash`, every request for this user carries it. Never
   * rejects: failures are reported through `error`.
   */
  async identify(userId: string, properties?: Properties, options?: IdentifyOptions): Promise<void> {
    const outbox = this.#outbox;
    if (!outbox) return void reportError('not-initialized', new Error('Onboarding.identify was called before Onboarding.init.'));
    if (!isId(userId)) return void reportError('bad-user-id', new Error(`Onboarding.identify needs a user ID: ${ID_RULE}`));
    const given = options?.userHash;
    if (given !== undefined && !isUserHash(given)) {
      return void reportError('bad-user-hash', new Error('Onboarding.identify: userHash must be the hex string your backend computed; the call did nothing.'));
    }
    if (!isJson(properties)) return badValue('Onboarding.identify');
    try {
      const previous = this.userId;
      // A hash given before stays with its user; one user's hash never goes with another's requests.
      const userHash = given ?? (previous === userId ? this.#userHash : undefined);
      // One user's state never leaks to the next: switching real users logs the first one out.
      const switching = previous !== userId && !isGuestId(previous);
      // A guest's progress carries over; the guest made by logging the previous user out has none to link.
      const linkGuestId = previous !== userId && isGuestId(previous) ? previous : undefined;
      // Queued first: a write the outbox refuses (`outbox-full`) changes nothing here either.
      const pending = outbox.add(userId, {
        path: 'users',
        body: { userId, ...(userHash ? { userHash } : {}), ...(properties ? { properties } : {}), ...(linkGuestId ? { linkGuestId } : {}) },
      });
      // Still the previous visitor: their state is loaded, so `ready` resolves all the same.
      if (!pending) return await this.refresh();
      // The state comes with this write's answer: no guest read, now or once the document is parsed.
      this.#guestRead = false;
      clearTimeout(this.#initialLoad);
      if (switching) this.#forget();
      if (previous !== userId || userHash !== this.#userHash) {
        rememberUser(this.#storage, userId, userHash);
        this.#tabs?.post({ type: 'user', userId, ...(userHash ? { userHash } : {}) });
      }
      if (previous !== userId) {
        // The guest's progress is about to be linked: keep showing it until the service answers.
        this.#switchUser(userId, { eligibleFlows: Object.values($flowStates.get()), ineligibleFlows: $ineligibleFlows.get() });
      }
      this.#userHash = userHash;
      if (properties) {
        // Elements substitute ${name} from these; the service merges them the same way.
        $userProperties.set({ ...$userProperties.get(), ...properties });
        writeJson(this.#storage, PROPERTIES_KEY, $userProperties.get());
      }
      const attempt = await pending;
      if (this.userId !== userId) return;
      // One round trip when the answer carried flowStates; a spec-only service answers nothing, so read.
      const answered = attempt.sent && isFlowStates(attempt.response?.flowStates) && !this.#groupId;
      if (attempt.sent && !answered) await this.refresh();
      this.#loaded(userId);
    } catch (error) {
      reportError('internal-error', error);
    }
  }

  /** Upserts a group with the current user as a member; later reads and writes carry its ID. */
  async group(groupId: string, properties?: Properties): Promise<void> {
    const outbox = this.#outbox;
    if (!outbox) return void reportError('not-initialized', new Error('Onboarding.group was called before Onboarding.init.'));
    if (!isId(groupId)) return void reportError('bad-group-id', new Error(`Onboarding.group needs a group ID: ${ID_RULE}`));
    if (!isJson(properties)) return badValue('Onboarding.group');
    try {
      const pending = outbox.add(this.userId, { path: 'groups', body: { groupId, ...this.#user(), ...(properties ? { properties } : {}) } });
      if (!pending) return;
      this.#groupId = groupId;
      this.#storage.set(GROUP_KEY, groupId);
      // Group membership can change which flows the user is eligible for: the batch's state is read with the group.
      const attempt = await pending;
      if (attempt.sent && !isFlowStates(attempt.response?.flowStates)) await this.refresh();
    } catch (error) {
      reportError('internal-error', error);
    }
  }

  /** Records a tracking event on the current user (through the users upsert `events`). */
  async track(event: string, properties?: Properties): Promise<void> {
    const outbox = this.#outbox;
    if (!outbox) return void reportError('not-initialized', new Error('Onboarding.track was called before Onboarding.init.'));
    if (!nonEmpty(event)) return void reportError('bad-event', new Error('Onboarding.track needs a non-empty event name.'));
    if (!isJson(properties)) return badValue('Onboarding.track');
    try {
      await outbox.add(this.userId, { path: 'users', body: { ...this.#user(), events: [{ event, ...(properties ? { properties } : {}) }] } });
    } catch (error) {
      reportError('internal-error', error);
    }
  }

  /** Logs out: forgets the user and their cached state, and starts a new guest. Queued writes are still sent. */
  async reset(): Promise<void> {
    try {
      this.#forget();
      if (this.#client) await this.refresh();
    } catch (error) {
      reportError('internal-error', error);
    }
  }

  /** Reloads the current user's state from the service. Calls while a read for the same user runs share it. */
  refresh(): Promise<void> {
    const client = this.#client;
    if (!client) return Promise.resolve();
    const userId = this.userId;
    const groupId = this.#groupId;
    if (this.#reading?.userId === userId && this.#reading.groupId === groupId) return this.#reading.promise;
    const answers = this.#answers;
    const known = knownVersions($flowDefinitions.get());
    clearTimeout(this.#readRetry);
    const promise = client
      .readFlowStates({ ...this.#user(), ...(groupId ? { groupId } : {}), knownVersions: known })
      // A write's answer that arrived meanwhile is newer than this read; the content this one carries is kept all the same.
      .then((states) => {
        this.#readFailures = 0;
        return this.#take(states, known, userId === this.userId && answers === this.#answers);
      })
      // A wrong-shaped answer keeps the state the script has; so does a read that failed. A lost or shed read is tried
      // again with the outbox's backoff, which honours the Retry-After the service asked for.
      .catch((error) => {
        reportError(failureCode(error, 'load-failed'), error);
        if (isRetryable(error)) this.#readRetry = setTimeout(() => void this.refresh(), backoffMs(this.#readFailures++, (error as ApiError).retryAfterMs));
      })
      .finally(() => {
        if (this.#reading?.promise === promise) this.#reading = undefined;
        this.#loaded(userId);
      });
    this.#reading = { userId, groupId, promise };
    this.#outbox?.flush();
    return promise;
  }

  /** Stops listening to the page, the tabs and the network; queued writes stay for the next visit. */
  destroy(): void {
    clearTimeout(this.#initialLoad);
    clearTimeout(this.#readRetry);
    this.#persist();
    for (const stop of this.#stops.splice(0)) stop();
    this.#outbox?.stop();
    this.#tabs?.close();
  }

  // ---- internals ----

  /** The current user as every request names them: the ID, and the hash when the page gave one. */
  #user(): { userId: string; userHash?: string } {
    return { userId: this.userId, ...(this.#userHash ? { userHash: this.#userHash } : {}) };
  }

  #storedGroup(): string | undefined {
    return readStored<string>(this.#storage, GROUP_KEY, isId, true);
  }

  #loaded(userId: string): void {
    if (userId === this.userId) this.#resolveReady();
  }

  /** Forgets the identified user: a new guest, no cached state, no group. */
  #forget(): void {
    const guest = forgetUser(this.#storage);
    forgetState(this.#storage);
    this.#storage.remove(GROUP_KEY);
    this.#storage.remove(PROPERTIES_KEY);
    $userProperties.set({});
    this.#groupId = undefined;
    if (!this.#client) return;
    this.#switchUser(guest, EMPTY);
    this.#tabs?.post({ type: 'user', userId: guest });
  }

  #switchUser(userId: string, base?: FlowStatesResponse): void {
    $userId.set(userId);
    this.#userHash = currentUserHash(this.#storage, userId);
    $userProperties.set(readStored<Properties>(this.#storage, PROPERTIES_KEY, isObject) ?? {});
    this.#base = base ?? readState(this.#storage, userId) ?? EMPTY;
    this.#answers++;
    this.#recompute();
    // Later changes are this user's; whatever the switch itself changed was a load, not a transition.
    this.#announced = { userId, states: $flowStates.get() };
  }

  /**
   * Takes an answer: the content it carries (every flow whose version was not in `known`; none with `known` null)
   * joins the definitions, and with `apply` the answer becomes the base (as it is: stripping the content would only
   * cost allocations on the answer's path; the cached copy leaves it out).
   */
  #take(answer: FlowStatesResponse, known: KnownVersions | null, apply = true, broadcast = false, persistNow = false): void | Promise<void> {
    const added: FlowDefinition[] = [];
    if (known) {
      const held = $flowDefinitions.get();
      for (const state of answer.eligibleFlows) {
        const had = held[state.flowSlug];
        if (known[state.flowSlug] === state.version || (had && had.version === state.version) || (had && !apply && had.version > state.version)) continue;
        const definition = definitionOf(state);
        if (definition) added.push(definition);
      }
      this.#addDefinitions(added);
    }
    if (!apply) return;
    // A write's answer is the base at once (writeSent says why); a read's that changes many flows, a slice per task.
    if (!persistNow && answer.eligibleFlows.length > SLICE && this.#changes(answer) > SLICE) return this.#setBaseInSlices(answer);
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
      this.#base = { eligibleFlows: [...head, ...this.#base.eligibleFlows.filter((state) => !taken.has(state.flowSlug))], ineligibleFlows: this.#base.ineligibleFlows };
      this.#answers++;
      this.#recompute();
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
    const userId = this.userId;
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
      this.#persist(true, false);
      this.#schedulePersist(false);
    }
    // Other tabs get the flows this answer changed, and the order of all: they hold the others already.
    if (definitions) {
      const changed = states.eligibleFlows.filter((state) => before.get(state.flowSlug) !== state);
      const order = states.eligibleFlows.map((state) => state.flowSlug);
      this.#tabs?.post({ type: 'state', userId, states: { eligibleFlows: changed, ineligibleFlows: states.ineligibleFlows }, order, definitions });
    }
    this.#recompute();
    // A state naming a version the script has no content for (a write's answer carries none): read once more for it.
    const held = $flowDefinitions.get();
    let missing = false;
    for (const state of states.eligibleFlows) {
      const key = `${state.flowSlug}@${state.version}`;
      if (held[state.flowSlug]?.version === state.version || this.#askedVersions.has(key)) continue;
      this.#askedVersions.add(key);
      missing = true;
    }
    if (missing) void this.refresh();
  }

  /**
   * Writes the caches a moment later, each in a task of its own, as both can be large: the state (unless `state` is
   * false), then the content when it changed.
   */
  #schedulePersist(state = true): void {
    if (state) {
      this.#persisting ??= setTimeout(() => {
        this.#persist(true, false);
        this.#schedulePersist(false);
      }, 50);
    } else if (this.#persistContent) this.#persistingContent ??= setTimeout(() => this.#persist(false), 0);
  }

  /** Writes the caches now: the state of the current user, and the content when it changed. */
  #persist(state = true, content = true): void {
    if (state) {
      clearTimeout(this.#persisting);
      this.#persisting = undefined;
    }
    if (content) {
      clearTimeout(this.#persistingContent);
      this.#persistingContent = undefined;
    }
    if (!this.#client) return;
    if (state) writeState(this.#storage, this.userId, this.#base);
    if (!content || !this.#persistContent) return;
    writeContent(this.#storage, $flowDefinitions.get(), this.#base.eligibleFlows.map((state) => state.flowSlug));
    this.#persistContent = false;
  }

  /** The view: the base with every pending flowStates write of this user replayed on top; unchanged flows keep their objects. */
  #recompute(): void {
    const userId = this.userId;
    const pending: FlowStateWriteRequest[] = [];
    for (const entry of this.#outbox?.entries() ?? []) {
      if (entry.path === 'flowStates' && entry.userId === userId) pending.push(entry.body);
    }
    const view = replayWrites(this.#base, pending);
    const previous = $flowStates.get();
    let changed = !sameList(Object.keys(previous), Object.keys(view));
    for (const slug in view) {
      const before = previous[slug];
      if (before && sameFlowState(before, view[slug]!)) view[slug] = before;
      else changed = true;
    }
    if (!sameList($ineligibleFlows.get(), this.#base.ineligibleFlows)) $ineligibleFlows.set(this.#base.ineligibleFlows);
    if (changed) $flowStates.set(view);
  }

  #writeSent(entry: OutboxEntry, sent: Sent, badAnswer?: ApiError): void {
    // The write was applied, but its answer cannot be used: the service's state is read instead.
    if (badAnswer) reportError('bad-answer', badAnswer);
    if (entry.userId !== this.userId) return;
    // A users write's state is read without the group, so with a group the read below decides eligibility.
    const states = entry.path === 'users' && this.#groupId ? undefined : sent.flowStates;
    // Written to localStorage at once: the entries leave the queue as this becomes the base.
    if (isFlowStates(states)) this.#take(states, sent.known, true, true, true);
    else if (entry.path === 'flowStates') {
      // A write before the last of its batch: its change stays in the base until the batch's state (or the next read)
      // replaces it. The outbox computes the view again once for the whole batch.
      this.#base = foldWrite(this.#base, entry.body);
      this.#answers++;
      this.#schedulePersist();
    }
    if (badAnswer || (sent.last && entry.path !== 'flowStates' && !isFlowStates(states))) void this.refresh();
  }

  async #transition(flowSlug: string, actionType: ActionType, stepId: string, data?: unknown): Promise<void> {
    const outbox = this.#outbox;
    if (!outbox) return void reportError('not-initialized', new Error('A flow action ran before Onboarding.init.'));
    if (!$flowStates.get()[flowSlug]) {
      return void reportError('unknown-flow', new Error(`There is no eligible flow "${flowSlug}" for this user.`));
    }
    if (!isJson(data)) return badValue(`${STEP_METHODS[actionType] ?? actionType} on step "${stepId}" of "${flowSlug}"`);
    try {
      const userId = this.userId;
      const body: FlowStateWriteRequest = {
        ...this.#user(),
        ...(this.#groupId ? { groupId: this.#groupId } : {}),
        flowSlug,
        stepId,
        actionType,
        ...(data !== undefined ? { data } : {}),
        createdAt: new Date().toISOString(),
      };
      // Adding the entry updates the view at once (optimistic); the service's answer replaces it later.
      void outbox.add(userId, { path: 'flowStates', body });
    } catch (error) {
      reportError('internal-error', error);
    }
  }

  #receive(message: TabMessage): void {
    if (message.type === 'state') {
      if (message.userId === this.userId && isFlowStates(message.states) && Array.isArray(message.order)) {
        this.#addDefinitions(Array.isArray(message.definitions) ? message.definitions.filter(isDefinition) : []);
        const held = new Map(this.#base.eligibleFlows.map((state) => [state.flowSlug, state]));
        for (const state of message.states.eligibleFlows) held.set(state.flowSlug, state);
        const eligibleFlows = message.order.map((slug) => held.get(slug));
        // A flow this tab has no state for: it reads the whole state instead.
        if (!eligibleFlows.every((state) => state)) return void this.refresh();
        this.#base = { eligibleFlows: eligibleFlows as FlowStatesResponse['eligibleFlows'], ineligibleFlows: message.states.ineligibleFlows };
        this.#answers++;
        this.#recompute();
      }
    } else if (message.type === 'outbox') {
      this.#outbox?.settled(Array.isArray(message.settled) ? message.settled : []);
      this.#recompute();
    } else {
      // Another tab identified, logged out, or (without BroadcastChannel) changed what is stored.
      const userId = message.type === 'user' && isId(message.userId) ? message.userId : currentUserId(this.#storage);
      this.#groupId = this.#storedGroup();
      const switching = userId !== this.userId;
      if (switching) this.#switchUser(userId);
      // The message may arrive before the other tab's localStorage writes do.
      if (message.type === 'user' && isUserHash(message.userHash)) this.#userHash = message.userHash;
      if (switching) void this.refresh();
      else if (message.type === 'storage') {
        $flowDefinitions.set({ ...$flowDefinitions.get(), ...readContent(this.#storage) });
        // Stored state replaces this tab's; with none stored yet, a read under way stays the one to apply.
        const stored = readState(this.#storage, userId);
        if (stored) this.#switchUser(userId, stored);
        else this.#recompute();
      }
    }
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
          if (step) this.#emitter.emit(change.name, { flow, step });
        } else {
          this.#emitter.emit(change.name, { flow } as never);
        }
      }
    }
    this.#emitter.emit('change', { flows });
  }
}

type OnboardingState = FlowStatesResponse['eligibleFlows'][number];
