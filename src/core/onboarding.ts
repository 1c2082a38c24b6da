// The SDK core: init, identity, and loading the user's flow state into the stores.
import { createApiClient, type ApiClient } from '../api/client.js';
import type { Properties } from '../api/wire.js';
import { $flowDefinitions, $flows, $userId, applyFlowStates, parseDefinitions } from '../stores/flows.js';
import type { Flow } from '../flows/flow.js';
import { currentUserId, isGuestId, rememberUser } from './identity.js';
import { createSafeStorage, type KeyValueStore } from './storage.js';
import { reportError } from './report.js';

export interface OnboardingConfig {
  /** The public API key (`pk_…`). Required. */
  publicKey: string;
  /** Base address of the onboarding service. */
  apiUrl: string;
}

export class Onboarding {
  private client: ApiClient | null = null;
  private storage: KeyValueStore = createSafeStorage();
  private resolveReady!: () => void;

  /** Resolves after the first state load (successful or not). */
  readonly ready: Promise<void> = new Promise((resolve) => {
    this.resolveReady = resolve;
  });

  get userId(): string | null {
    return $userId.get();
  }

  get flows(): Flow[] {
    return Object.values($flows.get());
  }

  get initialized(): boolean {
    return this.client !== null;
  }

  getFlow(slug: string): Flow | undefined {
    return $flows.get()[slug];
  }

  /** Configures the SDK and loads the current visitor's flows. Throws on a missing key: that is misuse, not a runtime failure. */
  init(config: OnboardingConfig): Promise<void> {
    if (!config || typeof config.publicKey !== 'string' || !config.publicKey) {
      throw new Error('Onboarding.init: publicKey is required. Pass the public key (pk_…) from your onboarding service.');
    }
    if (typeof config.apiUrl !== 'string' || !config.apiUrl) {
      throw new Error('Onboarding.init: apiUrl is required. Pass the base address of your onboarding service.');
    }
    if (this.client) return this.ready;
    this.client = createApiClient({ apiUrl: config.apiUrl, publicKey: config.publicKey });
    $userId.set(currentUserId(this.storage));
    this.load().finally(() => this.resolveReady());
    return this.ready;
  }

  /** Upserts the user and loads their flow states. Never rejects: failures are reported through `error`. */
  async identify(userId: string, properties?: Properties): Promise<void> {
    const client = this.client;
    if (!client) {
      reportError('not-initialized', new Error('Onboarding.identify was called before Onboarding.init.'));
      return;
    }
    if (typeof userId !== 'string' || !userId) {
      reportError('bad-user-id', new Error('Onboarding.identify needs a non-empty string user ID.'));
      return;
    }
    const previous = $userId.get();
    rememberUser(this.storage, userId);
    $userId.set(userId);
    try {
      const [response] = await Promise.all([
        client.upsertUser({
          userId,
          ...(properties ? { properties } : {}),
          ...(previous && previous !== userId && isGuestId(previous) ? { linkGuestId: previous } : {}),
        }),
        this.loadDefinitions(client),
      ]);
      applyFlowStates(response?.flowStates ?? (await client.getFlowStates(userId)));
    } catch (error) {
      reportError('identify-failed', error);
    }
  }

  private async load(): Promise<void> {
    const client = this.client!;
    const userId = $userId.get()!;
    try {
      const [states] = await Promise.all([client.getFlowStates(userId), this.loadDefinitions(client)]);
      if ($userId.get() === userId) applyFlowStates(states);
    } catch (error) {
      reportError('load-failed', error);
    }
  }

  private async loadDefinitions(client: ApiClient): Promise<void> {
    const response = await client.getFlows();
    $flowDefinitions.set(parseDefinitions(response.data));
  }
}
