// Who the visitor is: a remembered real user, or a guest_<uuid> kept across visits.
import { isId } from '../api/guards.js';
import { readStored, type KeyValueStore } from './storage.js';

const USER_KEY = 'userId';
const GUEST_KEY = 'guestId';

export const isGuestId = (id: string) => id.startsWith('guest_');
const isStoredGuest = (value: unknown) => isId(value) && isGuestId(value);

export function newGuestId(): string {
  const uuid =
    typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function'
      ? crypto.randomUUID()
      : 'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx'.replace(/[xy]/g, (c) => {
          const r = (Math.random() * 16) | 0;
          return (c === 'x' ? r : (r & 0x3) | 0x8).toString(16);
        });
  return `guest_${uuid}`;
}

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

export function rememberUser(storage: KeyValueStore, userId: string): void {
  storage.set(USER_KEY, userId);
}

/** Forgets the identified user and starts a new guest; returns the new guest ID. */
export function forgetUser(storage: KeyValueStore): string {
  storage.remove(USER_KEY);
  const guest = newGuestId();
  storage.set(GUEST_KEY, guest);
  return guest;
}
