// What the SDK offers a page, member by member, with each member's documentation; the Onboarding class implements it.
import type { Properties } from '../api/wire.js';
import type { Flow } from '../flows/flow.js';
import type { IdentifyOptions, OnboardingConfig } from './config.js';
import type { OnboardingEventMap, OnboardingEventName } from './events.js';
import type { DebugOptions, FlowDebug } from './debugging.js';

export interface OnboardingApi {
  /** Resolves after the first state load of the current visitor (successful or not). */
  readonly ready: Promise<void>;
  /** The current ID: `guest_<uuid>` before identify, the real ID after. */
  readonly userId: string;
  /** Every eligible flow the script has a definition for. */
  readonly flows: Flow[];
  /** The locale reads ask for (`fr-CA`); undefined when flows show their own text. */
  readonly locale: string | undefined;
  /** Whether init has run. */
  readonly initialized: boolean;
  /** The eligible flow with this slug, if the script has its definition. */
  getFlow(slug: string): Flow | undefined;
  /** Subscribes to an SDK event; returns the function that unsubscribes. */
  on<N extends OnboardingEventName>(name: N, handler: (event: OnboardingEventMap[N]) => void): () => void;
  /** Configures the SDK and loads the current visitor's flows. Throws on a missing key: that is misuse, not a runtime failure. */
  init(config: OnboardingConfig): Promise<void>;
  /**
   * Upserts the user and loads their flow states. With `userHash`, every request for this user carries it. Never
   * rejects: failures are reported through `error`.
   */
  identify(userId: string, properties?: Properties, options?: IdentifyOptions): Promise<void>;
  /** Upserts a group with the current user as a member; later reads and writes carry its ID. */
  group(groupId: string, properties?: Properties): Promise<void>;
  /** Records a tracking event on the current user (through the users upsert `events`). */
  track(event: string, properties?: Properties): Promise<void>;
  /** Logs out: forgets the user and their cached state, and starts a new guest. Queued writes are still sent. */
  reset(): Promise<void>;
  /**
   * Shows flows and the elements' own strings in `code` (`fr-CA`) from now on: the state is read again in it, and
   * flows redraw. `undefined` goes back to the user property `locale`, else the browser's language.
   */
  setLocale(code: string | undefined): void;
  /** Reloads the current user's state from the service. Calls while a read for the same user and locale runs share it. */
  refresh(): Promise<void>;
  /** Stops listening to the page, the tabs and the network; queued writes stay for the next visit. */
  destroy(): void;
  /**
   * For each flow the script holds, why it is or is not open on this page now: `{ flowSlug, visible, open, waitingFor }`,
   * `waitingFor` being `page`, `element`, `click`, `delay`, `target`, `modal` or null. With `{ log: true }` it also
   * prints them with `console.table`. The script tag loads its code on the first call, so it is a promise; it never
   * rejects.
   */
  debug(options?: DebugOptions): Promise<FlowDebug[]>;
  /**
   * The resource centre's panel: `open()`, `close()`, `toggle()` and `isOpen()`. It shows once a RESOURCE_CENTER flow is
   * eligible (opened before, it opens then); `on('resource-center')` tells when it opens, closes, or its count changes.
   */
  readonly resourceCenter: ResourceCenterApi;
}

export interface ResourceCenterApi {
  /** Opens the panel. */
  open(): void;
  /** Closes the panel. */
  close(): void;
  /** Opens the panel when closed, else closes it. */
  toggle(): void;
  /** Whether the panel is open. */
  isOpen(): boolean;
}
