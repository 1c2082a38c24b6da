// The SDK's public face: what a page calls (init, identify, group, track, refresh, reset, events), wiring the session, the state and the outbox.
import { ApiError, createApiClient, isRetryable, type ApiClient } from '../api/client.js';
import { isFlowStates, isId, isJson } from '../api/guards.js';
import type { ActionType, FlowStateWriteRequest, Properties } from '../api/wire.js';
import { TARGET_MISSING_EVENT } from '../api/wire.js';
import type { Flow } from '../flows/flow.js';
import { $flowDefinitions, $flowStates, $flows, $ineligibleFlows, $transitionSlot } from '../stores/flows.js';
import { $elementOptions, takeElementOptions } from '../stores/options.js';
import { $userProperties } from '../stores/user.js';
import { $resourceCenterOpen, $unread } from '../stores/resource-center.js';
import { createEmitter, type OnboardingEventMap, type OnboardingEventName, type TargetMissingEvent } from './events.js';
import { currentUserId, isGuestId, isUserHash } from './identity.js';
import { backoffMs } from './backoff.js';
import { createOutbox } from './outbox.js';
import { watchForRefresh } from './refresh.js';
import { dropError, type Outbox } from './outbox-api.js';
import { onError, reportError } from './errors.js';
import { contentIn, knownVersions, readContent, readState } from './cache.js';
import { resolveLocale } from './locale.js';
import { Session } from './session.js';
import { StateSync } from './state-sync.js';
import { createSafeStorage, type KeyValueStore } from './storage.js';
import { connectTabs, type TabMessage, type Tabs } from './tabs.js';
import { startForwarding } from './forwarding.js';
import { debugFlows, type DebugOptions, type FlowDebug } from './debugging.js';
import { startRules } from '../page/rules.js';
import { doc, onDocument } from '../page/document.js';
import { badValue, checkConfig, checkEventName, failureCode, nonEmpty, refused, STEP_METHODS } from './checks.js';
import type { IdentifyOptions, OnboardingConfig } from './config.js';
import type { OnboardingApi, ResourceCenterApi } from './public-api.js';

/**
 * The SDK, as core/public-api.ts documents it. Who the visitor is lives in the session (core/session.ts), their flow
 * state kept in step with the service and other tabs in the state (core/state-sync.ts), queued writes in the outbox.
 */
export class Onboarding implements OnboardingApi {
  #client: ApiClient | null = null;
  #storage: KeyValueStore = createSafeStorage();
  #outbox: Outbox | undefined;
  #tabs: Tabs | undefined;
  #emitter = createEmitter((error, name) => {
    // An error handler that throws is not reported again, or it would be called for ever.
    if (name !== 'error') reportError('listener-failed', error);
  });
  #state: StateSync = new StateSync({
    storage: this.#storage,
    userId: () => this.userId,
    groupId: () => this.#session.groupId,
    initialized: () => this.#client !== null,
    outbox: () => this.#outbox,
    tabs: () => this.#tabs,
    contentLocale: () => this.#contentLocale ?? '',
    refresh: () => void this.refresh(),
    emit: (name, event) => this.#emitter.emit(name, event),
  });
  #session: Session = new Session(this.#storage, this.#state, () => this.#tabs);
  #stops: Array<() => void> = [];
  #initialLoad: ReturnType<typeof setTimeout> | undefined;
  /** A read that the network lost or the service shed, tried again after Retry-After or a backoff. */
  #readRetry: ReturnType<typeof setTimeout> | undefined;
  #readFailures = 0;
  /** Whether the first read is still the guest's to make (an identify first makes it unneeded). */
  #guestRead = true;
  #reading: { userId: string; groupId?: string; locale?: string; promise: Promise<void> } | undefined;
  #resolveReady!: () => void;
  /** The locale init or setLocale gave (undefined: none), its resolution, and the locale of the content held. */
  #chosenLocale: unknown;
  #locale: string | undefined;
  #contentLocale: string | undefined;
  #located = false;

  readonly ready: Promise<void> = new Promise((resolve) => {
    this.#resolveReady = resolve;
  });

  readonly resourceCenter: ResourceCenterApi = {
    open: () => $resourceCenterOpen.set(true),
    close: () => $resourceCenterOpen.set(false),
    toggle: () => $resourceCenterOpen.set(!$resourceCenterOpen.get()),
    isOpen: () => $resourceCenterOpen.get(),
  };

  constructor() {
    onError((error, code) => this.#emitter.emit('error', { code, error }));
    const centre = () =>
      this.#emitter.emit('resource-center', { open: $resourceCenterOpen.get(), unread: $unread.get() });
    $resourceCenterOpen.listen(centre);
    $unread.listen(centre);
  }

  get userId(): string {
    return this.#session.userId;
  }

  get flows(): Flow[] {
    return Object.values($flows.get());
  }

  get locale(): string | undefined {
    return this.#locale;
  }

  get initialized(): boolean {
    return this.#client !== null;
  }

  getFlow(slug: string): Flow | undefined {
    return $flows.get()[slug];
  }

  on<N extends OnboardingEventName>(name: N, handler: (event: OnboardingEventMap[N]) => void): () => void {
    checkEventName(name);
    return this.#emitter.on(name, handler);
  }

  init(config: OnboardingConfig): Promise<void> {
    checkConfig(config);
    if (this.#client) return this.ready;
    const { apiUrl, publicKey } = config;
    const client = (this.#client = createApiClient({ apiUrl, publicKey, locale: () => this.#locale }));
    const storage = this.#storage;
    takeElementOptions(config);
    this.#outbox = createOutbox(storage, client, {
      sent: (entry, response, badAnswer) => this.#state.written(entry, response, badAnswer),
      dropped: (entry, error) => {
        // A rollback undoes a change the service never made: `change` fires, flow and step events do not.
        this.#state.recomputeQuietly();
        if (error instanceof ApiError) reportError('write-refused', error);
        else reportError('write-dropped', dropError(entry, error));
        // The optimistic change is already rolled back; the service may know a newer state.
        if (entry.userId === this.userId) void this.refresh();
      },
      failed: (_entry, error) => reportError('write-failed', error),
      changed: (settled) => {
        this.#state.recompute();
        this.#tabs?.post({ type: 'outbox', settled });
      },
      knownVersions: () => this.#knownVersions(),
    });
    this.#tabs = connectTabs((message) => this.#receive(message));
    if (config.forward) startForwarding(this.#emitter.on, config.forward);
    $transitionSlot.set((...args) => this.#transition(...args));
    this.#stops.push(this.#state.announceChanges());

    // Render from cache at once, if it is in this locale; the service's answers replace it (stale-while-revalidate).
    if (config.locale !== undefined) this.#chosenLocale = config.locale;
    this.#relocate(this.#session.storedProperties(), false);
    this.#session.readGroup();
    this.#session.switchTo(currentUserId(storage));
    this.#stops.push($userProperties.listen((properties) => this.#relocate(properties)));

    const onPageHide = () => {
      this.#state.persist();
      this.#outbox?.flushOnExit();
    };
    // A tour, hint or tooltip whose target stayed missing: the page hears of it, and the flow's analytics count it.
    const onTargetMissing = ({ detail }: CustomEvent<TargetMissingEvent>) => {
      this.#emitter.emit('target-missing', detail);
      void this.track(TARGET_MISSING_EVENT, { ...detail });
    };
    addEventListener('pagehide', onPageHide);
    this.#stops.push(
      () => removeEventListener('pagehide', onPageHide),
      onDocument('visibilitychange', () => this.#outbox?.flush()),
      onDocument('onboarding-target-missing', onTargetMissing as EventListener),
      watchForRefresh(() => void this.refresh(), { routes: config.refreshOnRouteChange !== false }),
      startRules(),
    );

    this.#outbox.flush();
    if (nonEmpty(config.userId)) void this.identify(config.userId, undefined, { userHash: config.userHash });
    // Else after the document is parsed: an identify right after init, or in a script after the tag, then loads the
    // state itself (one round trip), and the guest's read is not made at all.
    else {
      const load = () => {
        if (this.#guestRead) this.#initialLoad = setTimeout(() => void this.refresh(), 0);
      };
      if (doc('readyState') === 'loading') this.#stops.push(onDocument('DOMContentLoaded', load, { once: true }));
      else load();
    }
    return this.ready;
  }

  async identify(userId: string, properties?: Properties, options?: IdentifyOptions): Promise<void> {
    const outbox = this.#outbox;
    const given = options?.userHash;
    if (refused('identify', outbox, userId, properties, given)) return;
    try {
      const previous = this.userId;
      // A hash given before stays with its user; one user's hash never goes with another's requests.
      const userHash = given ?? (previous === userId ? this.#session.userHash : undefined);
      // One user's state never leaks to the next: switching real users logs the first one out.
      const switching = previous !== userId && !isGuestId(previous);
      // A guest's progress carries over; the guest made by logging the previous user out has none to link.
      const linkGuestId = previous !== userId && isGuestId(previous) ? previous : undefined;
      // Queued first: a write the outbox refuses (`outbox-full`) changes nothing here either.
      const pending = outbox.add(userId, {
        path: 'users',
        body: {
          userId,
          ...(userHash ? { userHash } : {}),
          ...(properties ? { properties } : {}),
          ...(linkGuestId ? { linkGuestId } : {}),
        },
      });
      // Still the previous visitor: their state is loaded, so `ready` resolves all the same.
      if (!pending) return await this.refresh();
      // The state comes with this write's answer: no guest read, now or once the document is parsed.
      this.#guestRead = false;
      clearTimeout(this.#initialLoad);
      if (switching) this.#session.forget(this.#client !== null);
      if (previous !== userId || userHash !== this.#session.userHash) this.#session.remember(userId, userHash);
      if (previous !== userId) {
        // The guest's progress is about to be linked: keep showing it until the service answers.
        this.#session.switchTo(userId, {
          eligibleFlows: Object.values($flowStates.get()),
          ineligibleFlows: $ineligibleFlows.get(),
        });
      }
      this.#session.userHash = userHash;
      if (properties) this.#session.addProperties(properties);
      const attempt = await pending;
      if (this.userId !== userId) return;
      // One round trip when the answer carried flowStates; a spec-only service answers nothing, so read.
      const answered = attempt.sent && isFlowStates(attempt.response?.flowStates) && !this.#session.groupId;
      if (attempt.sent && !answered) await this.refresh();
      this.#loaded(userId);
    } catch (error) {
      reportError('internal-error', error);
    }
  }

  async group(groupId: string, properties?: Properties): Promise<void> {
    const outbox = this.#outbox;
    if (refused('group', outbox, groupId, properties)) return;
    try {
      const pending = outbox.add(this.userId, {
        path: 'groups',
        body: { groupId, ...this.#session.user(), ...(properties ? { properties } : {}) },
      });
      if (!pending) return;
      this.#session.joinGroup(groupId);
      // Group membership can change which flows the user is eligible for: the batch's state is read with the group.
      const attempt = await pending;
      if (attempt.sent && !isFlowStates(attempt.response?.flowStates)) await this.refresh();
    } catch (error) {
      reportError('internal-error', error);
    }
  }

  async track(event: string, properties?: Properties): Promise<void> {
    const outbox = this.#outbox;
    if (refused('track', outbox, event, properties)) return;
    try {
      await outbox.add(this.userId, {
        path: 'users',
        body: { ...this.#session.user(), events: [{ event, ...(properties ? { properties } : {}) }] },
      });
    } catch (error) {
      reportError('internal-error', error);
    }
  }

  async reset(): Promise<void> {
    try {
      this.#session.forget(this.#client !== null);
      if (this.#client) await this.refresh();
    } catch (error) {
      reportError('internal-error', error);
    }
  }

  setLocale(code: string | undefined): void {
    this.#chosenLocale = code;
    this.#relocate($userProperties.get());
  }

  refresh(): Promise<void> {
    const client = this.#client;
    if (!client) return Promise.resolve();
    const userId = this.userId;
    const groupId = this.#session.groupId;
    const locale = this.#locale;
    if (this.#reading?.userId === userId && this.#reading.groupId === groupId && this.#reading.locale === locale)
      return this.#reading.promise;
    const answers = this.#state.answers;
    const known = this.#knownVersions();
    clearTimeout(this.#readRetry);
    const promise = client
      .readFlowStates({ ...this.#session.user(), ...(groupId ? { groupId } : {}), knownVersions: known })
      // A write's answer that arrived meanwhile is newer than this read; the content this one carries is kept all the same.
      .then((states) => {
        this.#readFailures = 0;
        // Read in a locale since left: the read in the new one brings the state.
        if (locale !== this.#locale) return;
        if (locale !== this.#contentLocale) {
          // The answer carries every flow's content in this locale (no known versions were sent): it replaces the old.
          $flowDefinitions.set({});
          this.#contentLocale = locale;
        }
        return this.#state.take(states, known, userId === this.userId && answers === this.#state.answers);
      })
      // A wrong-shaped answer keeps the state the script has; so does a read that failed. A lost or shed read is tried
      // again with the outbox's backoff, which honours the Retry-After the service asked for, unless destroy() has
      // emptied the stops since it left.
      .catch((error) => {
        reportError(failureCode(error, 'load-failed'), error);
        if (isRetryable(error) && this.#stops.length)
          this.#readRetry = setTimeout(
            () => void this.refresh(),
            backoffMs(this.#readFailures++, (error as ApiError).retryAfterMs),
          );
      })
      .finally(() => {
        if (this.#reading?.promise === promise) this.#reading = undefined;
        this.#loaded(userId);
      });
    this.#reading = { userId, groupId, locale, promise };
    this.#outbox?.flush();
    return promise;
  }

  debug(options?: DebugOptions): Promise<FlowDebug[]> {
    return debugFlows(options);
  }

  destroy(): void {
    clearTimeout(this.#initialLoad);
    clearTimeout(this.#readRetry);
    this.#state.persist();
    for (const stop of this.#stops.splice(0)) stop();
    this.#outbox?.stop();
    this.#tabs?.close();
  }

  // ---- internals ----

  /** The flow versions whose content reads may leave out: none while the content held is in another locale. */
  #knownVersions() {
    return this.#contentLocale === this.#locale ? knownVersions($flowDefinitions.get()) : {};
  }

  /**
   * Resolves the locale again (init, setLocale, new user properties). A new one goes to the elements and the cache, and,
   * with `read`, the state is read again in it.
   */
  #relocate(properties: Properties, read = true): void {
    const locale = resolveLocale(this.#chosenLocale, properties);
    if (this.#located && locale === this.#locale) return;
    this.#located = true;
    this.#locale = locale;
    $elementOptions.set({ ...$elementOptions.get(), locale });
    // No content held is content in any locale: the cache's, when it is in this one (a setLocale right after the tag
    // still paints from it). Else reads send no known versions until content in this locale lands.
    if (!Object.keys($flowDefinitions.get()).length) {
      this.#contentLocale = locale;
      if (contentIn(this.#storage, locale ?? '')) $flowDefinitions.set(readContent(this.#storage));
    }
    if (read && this.#client) void this.refresh();
  }

  #loaded(userId: string): void {
    if (userId === this.userId) this.#resolveReady();
  }

  async #transition(flowSlug: string, actionType: ActionType, stepId: string, data?: unknown): Promise<void> {
    const outbox = this.#outbox;
    if (!outbox) return void reportError('not-initialized', new Error('A flow action ran before Onboarding.init.'));
    if (!$flowStates.get()[flowSlug]) {
      return void reportError('unknown-flow', new Error(`There is no eligible flow "${flowSlug}" for this user.`));
    }
    if (!isJson(data))
      return badValue(`${STEP_METHODS[actionType] ?? actionType} on step "${stepId}" of "${flowSlug}"`);
    try {
      const userId = this.userId;
      const body: FlowStateWriteRequest = {
        ...this.#session.user(),
        ...(this.#session.groupId ? { groupId: this.#session.groupId } : {}),
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
    if (message.type === 'state') this.#state.receive(message);
    else if (message.type === 'outbox') {
      this.#outbox?.settled(Array.isArray(message.settled) ? message.settled : []);
      this.#state.recompute();
    } else {
      // Another tab identified, logged out, or (without BroadcastChannel) changed what is stored.
      const userId = message.type === 'user' && isId(message.userId) ? message.userId : currentUserId(this.#storage);
      this.#session.readGroup();
      const switching = userId !== this.userId;
      if (switching) this.#session.switchTo(userId);
      // The message may arrive before the other tab's localStorage writes do.
      if (message.type === 'user' && isUserHash(message.userHash)) this.#session.userHash = message.userHash;
      if (switching) void this.refresh();
      else if (message.type === 'storage') {
        // Content another tab cached in another locale is not this tab's.
        if (this.#contentLocale === this.#locale && contentIn(this.#storage, this.#locale ?? ''))
          $flowDefinitions.set({ ...$flowDefinitions.get(), ...readContent(this.#storage) });
        // Stored state replaces this tab's; with none stored yet, a read under way stays the one to apply.
        const stored = readState(this.#storage, userId);
        if (stored) this.#session.switchTo(userId, stored);
        else this.#state.recompute();
      }
    }
  }
}
