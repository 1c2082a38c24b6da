// Safe key-value storage: localStorage when it works, memory when it throws, is full or is disabled.

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

/** Reads a JSON value; anything missing or unreadable is `undefined`. */
export function readJson<T>(storage: KeyValueStore, key: string): T | undefined {
  try {
    const text = storage.get(key);
    return text ? (JSON.parse(text) as T) : undefined;
  } catch {
    return undefined;
  }
}

export function writeJson(storage: KeyValueStore, key: string, value: unknown): void {
  storage.set(key, JSON.stringify(value));
}
