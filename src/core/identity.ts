// Who the visitor is: a remembered real user, or a guest_<uuid> kept across visits.
import type { KeyValueStore } from './storage.js';

const USER_KEY = 'userId';
const GUEST_KEY = 'guestId';

export const isGuestId = (id: string) => id.startsWith('guest_');

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
  const user = storage.get(USER_KEY);
  if (user) return user;
  let guest = storage.get(GUEST_KEY);
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
