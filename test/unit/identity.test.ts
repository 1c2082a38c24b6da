import { afterEach, describe, expect, it, vi } from 'vitest';
import { currentUserId, forgetUser, isGuestId, rememberUser } from '../../src/core/identity.js';
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
});
