// Who the visitor is: guest IDs, remembered users, and what is read back from storage.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { currentUserId, forgetUser, isGuestId, rememberUser } from '../../src/core/identity.js';
import { onError } from '../../src/core/errors.js';
import { createSafeStorage } from '../../src/core/storage.js';

afterEach(() => {
  vi.restoreAllMocks();
  localStorage.clear();
});

describe('identity', () => {
  it('makes a guest_<uuid> ID once and keeps it in localStorage', () => {
    const storage = createSafeStorage();
    const first = currentUserId(storage);
    expect(first).toMatch(/^guest_[0-9a-f-]{36}$/);
    expect(isGuestId(first)).toBe(true);
    expect(currentUserId(createSafeStorage())).toBe(first);
    expect(localStorage.getItem('onboarding:guestId')).toBe(first);
  });

  it('prefers a remembered real user, and forgetting it starts a new guest', () => {
    const storage = createSafeStorage();
    const guest = currentUserId(storage);
    rememberUser(storage, 'user-42');
    expect(currentUserId(storage)).toBe('user-42');
    const next = forgetUser(storage);
    expect(next).not.toBe(guest);
    expect(currentUserId(storage)).toBe(next);
  });

  it('falls back to memory when localStorage throws', () => {
    vi.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('full', 'QuotaExceededError');
    });
    const storage = createSafeStorage();
    const id = currentUserId(storage);
    expect(isGuestId(id)).toBe(true);
    expect(currentUserId(storage)).toBe(id);
  });

  it('discards a remembered ID the service would refuse, and a guest ID that is not a guest’s, and reports each', () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const codes: string[] = [];
    const stop = onError((_error, code) => codes.push(code));
    localStorage.setItem('onboarding:userId', 'user\u0000one');
    localStorage.setItem('onboarding:guestId', 'user-7');
    const id = currentUserId(createSafeStorage());
    expect(isGuestId(id)).toBe(true);
    expect(localStorage.getItem('onboarding:userId')).toBeNull();
    expect(localStorage.getItem('onboarding:guestId')).toBe(id);
    localStorage.setItem('onboarding:userId', 'x'.repeat(257));
    expect(currentUserId(createSafeStorage())).toBe(id);
    expect(codes).toEqual(['storage-discarded', 'storage-discarded', 'storage-discarded']);
    stop();
  });
});
