// Safe key-value storage: localStorage when it works, memory when it throws or is disabled.

export interface KeyValueStore {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
}

/** Wraps localStorage so that a throwing or missing storage falls back to memory instead of failing. */
export function createSafeStorage(prefix = 'onboarding:'): KeyValueStore {
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
        // Quota exceeded or storage disabled: the memory copy keeps this page working.
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
