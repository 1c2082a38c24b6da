// A Lit reactive controller that re-renders its host whenever a nanostores store changes (or, with `pick`, the part of it the host shows).
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ReadableAtom } from 'nanostores';

export class StoreController<T> implements ReactiveController {
  #unsubscribe: (() => void) | undefined;
  #picked: unknown;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly store: ReadableAtom<T>,
    /** The part the host shows: a change elsewhere in the store does not re-render it (compared by identity). */
    private readonly pick?: (value: T) => unknown,
  ) {
    host.addController(this);
  }

  get value(): T {
    return this.store.get();
  }

  hostConnected(): void {
    this.#picked = undefined;
    this.#unsubscribe = this.store.subscribe((value) => {
      if (this.pick) {
        const picked = this.pick(value);
        if (picked === this.#picked && this.#picked !== undefined) return;
        this.#picked = picked;
      }
      this.host.requestUpdate();
    });
  }

  hostDisconnected(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }
}
