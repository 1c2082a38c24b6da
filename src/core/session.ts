// Who the visitor is: the current user (a guest until identified), their hash, group and properties, kept across reloads and tabs.
import { isId, isObject } from '../api/guards.js';
import type { FlowStatesResponse, Properties } from '../api/wire.js';
import { $userId } from '../stores/flows.js';
import { $userProperties } from '../stores/user.js';
import { currentUserHash, currentUserId, forgetUser, rememberUser } from './identity.js';
import { forgetState } from './cache.js';
import { EMPTY, type StateSync } from './state-sync.js';
import { readStored, writeJson, type KeyValueStore } from './storage.js';
import type { Tabs } from './tabs.js';

/** localStorage keys (under the `onboarding:` prefix); core/identity.ts keeps the user, core/cache.ts the content and the state. */
const GROUP_KEY = 'groupId';
const PROPERTIES_KEY = 'properties';

export class Session {
  /** The current user's hash, when the page gave one. */
  #userHash: string | undefined;
  #groupId: string | undefined;

  constructor(
    private readonly storage: KeyValueStore,
    private readonly state: StateSync,
    private readonly tabs: () => Tabs | undefined,
  ) {}

  /** The current ID: `guest_<uuid>` before identify, the real ID after. */
  get userId(): string {
    return $userId.get() ?? currentUserId(this.storage);
  }

  get userHash(): string | undefined {
    return this.#userHash;
  }

  set userHash(hash: string | undefined) {
    this.#userHash = hash;
  }

  get groupId(): string | undefined {
    return this.#groupId;
  }

  /** The current user as every request names them: the ID, and the hash when the page gave one. */
  user(): { userId: string; userHash?: string } {
    return { userId: this.userId, ...(this.#userHash ? { userHash: this.#userHash } : {}) };
  }

  /** Takes the group stored by this tab or another. */
  readGroup(): void {
    this.#groupId = readStored<string>(this.storage, GROUP_KEY, isId, true);
  }

  /** The group later reads and writes name, kept across reloads. */
  joinGroup(groupId: string): void {
    this.#groupId = groupId;
    this.storage.set(GROUP_KEY, groupId);
  }

  /** Makes `userId` the current user, with their hash and properties as stored, and their state (`base`, else cached). */
  switchTo(userId: string, base?: FlowStatesResponse): void {
    $userId.set(userId);
    this.#userHash = currentUserHash(this.storage, userId);
    $userProperties.set(this.storedProperties());
    this.state.switchTo(userId, base);
  }

  /** The user properties kept across reloads. */
  storedProperties(): Properties {
    return readStored<Properties>(this.storage, PROPERTIES_KEY, isObject) ?? {};
  }

  /** Stores the identified user (and hash) and tells the other tabs. */
  remember(userId: string, userHash: string | undefined): void {
    rememberUser(this.storage, userId, userHash);
    this.tabs()?.post({ type: 'user', userId, ...(userHash ? { userHash } : {}) });
  }

  /** Adds to the user's properties, which elements substitute `${name}` from; the service merges them the same way. */
  addProperties(properties: Properties): void {
    $userProperties.set({ ...$userProperties.get(), ...properties });
    writeJson(this.storage, PROPERTIES_KEY, $userProperties.get());
  }

  /** Forgets the identified user: a new guest, no cached state, no group. With `switching`, the guest becomes current. */
  forget(switching: boolean): void {
    const guest = forgetUser(this.storage);
    forgetState(this.storage);
    this.storage.remove(GROUP_KEY);
    this.storage.remove(PROPERTIES_KEY);
    $userProperties.set({});
    this.#groupId = undefined;
    if (!switching) return;
    this.switchTo(guest, EMPTY);
    this.tabs()?.post({ type: 'user', userId: guest });
  }
}
