// Who the visitor is: a remembered real user (with the hash that proves it, when the page gave one), or a guest_<uuid> kept across visits.
import { isId, isObject, isString } from '../api/guards.js';
import { readStored, type KeyValueStore } from './storage.js';

const USER_KEY = 'userId';
const GUEST_KEY = 'guestId';
const HASH_KEY = 'userHash';

export const isGuestId = (id: string) => id.startsWith('guest_');
const isStoredGuest = (value: unknown) => isId(value) && isGuestId(value);
/** A userHash as the script takes it: a non-empty string of at most 128 characters (the service checks the rest). */
export const isUserHash = (value: unknown): value is string =>
  isString(value) && value.length > 0 && value.length <= 128;
const isStoredHash = (value: unknown) => isObject(value) && isId(value.userId) && isUserHash(value.userHash);

/**
 * A random UUID v4 from the browser's cryptographic generator: `crypto.randomUUID` where there is one (it needs a
 * secure context, so plain-http pages lack it), else `crypto.getRandomValues`. A guest ID is the guest's only
 * secret, so it never comes from Math.random.
 */
export function randomUuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const newGuestId = (): string => `guest_${randomUuid()}`;

/** The current user ID: the identified user if one is remembered, else this browser's guest ID (made on first use). */
export function currentUserId(storage: KeyValueStore): string {
  const user = readStored<string>(storage, USER_KEY, isId, true);
  if (user) return user;
  let guest = readStored<string>(storage, GUEST_KEY, isStoredGuest, true);
  if (!guest) {
    guest = newGuestId();
    storage.set(GUEST_KEY, guest);
  }
  return guest;
}

/** The hash remembered for `userId`; a hash kept for another user is never returned. */
export function currentUserHash(storage: KeyValueStore, userId: string): string | undefined {
  const stored = readStored<{ userId: string; userHash: string }>(storage, HASH_KEY, isStoredHash);
  return stored?.userId === userId ? stored.userHash : undefined;
}

/** Remembers the identified user, and the hash given with them (none forgets any hash kept before). */
export function rememberUser(storage: KeyValueStore, userId: string, userHash?: string): void {
  storage.set(USER_KEY, userId);
  if (userHash) storage.set(HASH_KEY, JSON.stringify({ userId, userHash }));
  else storage.remove(HASH_KEY);
}

/** Forgets the identified user and their hash, and starts a new guest; returns the new guest ID. */
export function forgetUser(storage: KeyValueStore): string {
  storage.remove(USER_KEY);
  storage.remove(HASH_KEY);
  const guest = newGuestId();
  storage.set(GUEST_KEY, guest);
  return guest;
}
