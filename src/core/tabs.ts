// Keeps the open tabs of one site in step: BroadcastChannel, with the storage event as fallback.
import type { FlowStatesResponse } from '../api/wire.js';
import type { FlowDefinition } from '../flows/flow.js';
import { STORAGE_PREFIX } from './storage.js';

export type TabMessage =
  /**
   * The service answered a write with this user's state: `states` holds the flows it changed (without content),
   * `order` the slugs of every eligible flow, `definitions` the content it brought, in `locale` ('' for the flows' own text).
   */
  | {
      type: 'state';
      userId: string;
      states: FlowStatesResponse;
      order: string[];
      definitions?: FlowDefinition[];
      locale?: string;
    }
  /** The outbox changed: pending writes are re-read from storage; `settled` entries were sent or dropped. */
  | { type: 'outbox'; settled: string[] }
  /** Another tab identified a user (with their hash, if any) or logged out. */
  | { type: 'user'; userId: string; userHash?: string }
  /** Without BroadcastChannel: something this SDK keeps in localStorage changed in another tab. */
  | { type: 'storage' };

export interface Tabs {
  post(message: TabMessage): void;
  close(): void;
}

const CHANNEL = 'onboarding';

export function connectTabs(receive: (message: TabMessage) => void): Tabs {
  if (typeof BroadcastChannel === 'function') {
    try {
      const channel = new BroadcastChannel(CHANNEL);
      channel.onmessage = (event: MessageEvent<TabMessage>) => receive(event.data);
      return {
        post(message) {
          try {
            channel.postMessage(message);
          } catch {
            // A closed channel or an uncloneable value: the other tabs catch up on their next refresh.
          }
        },
        close: () => channel.close(),
      };
    } catch {
      // Fall through to the storage event.
    }
  }
  const onStorage = (event: StorageEvent) => {
    if (!event.key || event.key.startsWith(STORAGE_PREFIX)) receive({ type: 'storage' });
  };
  globalThis.addEventListener?.('storage', onStorage);
  return {
    // Writes to localStorage are the message: other tabs get a storage event.
    post() {},
    close: () => globalThis.removeEventListener?.('storage', onStorage),
  };
}
