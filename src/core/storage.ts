// Safe key-value storage: localStorage when it works, memory when it throws, is full or is disabled.
import { reportError } from './errors.js';

export interface KeyValueStore {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
}

export const STORAGE_PREFIX = 'onboarding:';

/** Wraps localStorage so that a throwing, full or missing storage falls back to memory instead of failing. */
export function createSafeStorage(prefix = STORAGE_PREFIX): KeyValueStore {
  const memory = new Map<string, string>();
  const local = (): Storage | null => {
    try {
      return globalThis.localStorage ?? null;
    } catch {
      return null;
    }
  };
  return {
    get(key) {
      try {
        const value = local()?.getItem(prefix + key);
        if (value !== null && value !== undefined) return value;
      } catch {
        // Storage disabled or throwing: memory answers.
      }
      return memory.get(key) ?? null;
    },
    set(key, value) {
      memory.set(key, value);
      try {
        local()?.setItem(prefix + key, value);
      } catch {
        // Quota exceeded or storage disabled: the memory copy keeps this page working, and an older
        // value left in localStorage must not shadow it.
        try {
          local()?.removeItem(prefix + key);
        } catch {
          // Nothing more to do.
        }
      }
    },
    remove(key) {
      memory.delete(key);
      try {
        local()?.removeItem(prefix + key);
      } catch {
        // Nothing to do: memory is already clean.
      }
    },
  };
}

/**
 * Reads a stored value that passes `valid`: parsed as JSON, or the text itself with `raw`. Anything else stored
 * under the key (corrupted, or written by someone else) is removed and reported as `storage-discarded`.
 */
export function readStored<T>(
  storage: KeyValueStore,
  key: string,
  valid: (value: unknown) => boolean,
  raw = false,
): T | undefined {
  const text = storage.get(key);
  if (text === null) return undefined;
  try {
    const value: unknown = raw ? text : JSON.parse(text);
    if (valid(value)) return value as T;
  } catch {
    // Not JSON: discarded below.
  }
  storage.remove(key);
  discarded(key);
  return undefined;
}

/** Reports what was read back from localStorage, did not fit, and was thrown away. */
export const discarded = (what: string) =>
  reportError('storage-discarded', new Error(`Unreadable, discarded from localStorage: ${what}.`));

export function writeJson(storage: KeyValueStore, key: string, value: unknown): void {
  storage.set(key, JSON.stringify(value));
}
