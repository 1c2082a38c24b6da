// A controller that holds an element's place in the modal queue while its flow wants to open.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { FlowType } from '../../api/wire.js';
import { $activeModal, releaseModal, requestModal } from './modal-queue.js';
import { StoreController } from './store-controller.js';
import { doc } from '../../page/document.js';

export class ModalSlot implements ReactiveController {
  readonly #active: StoreController<string | null>;
  #held = '';

  constructor(
    host: ReactiveControllerHost,
    private readonly type: FlowType,
    /** The slug and priority that want the slot now, or undefined when nothing should open. */
    private readonly wants: () => { slug: string; priority: unknown } | undefined,
  ) {
    this.#active = new StoreController(host, $activeModal);
    host.addController(this);
  }

  /** Whether this element holds the slot and may open. */
  get granted(): boolean {
    return this.#held !== '' && this.#active.value === this.#held;
  }

  hostUpdated(): void {
    const want = this.wants();
    const slug = want?.slug ?? '';
    if (slug === this.#held) return;
    if (this.#held) releaseModal(this.#held);
    this.#held = slug;
    if (want) requestModal(want.slug, this.type, want.priority);
  }

  hostDisconnected(): void {
    if (this.#held) releaseModal(this.#held);
    this.#held = '';
  }
}

/** The focused element, looking through open shadow roots, so focus can return there. */
export function deepActiveElement(): HTMLElement | null {
  let active = doc('activeElement');
  for (let depth = 0; depth < 32 && active?.shadowRoot?.activeElement; depth++)
    active = active.shadowRoot.activeElement;
  return active instanceof HTMLElement ? active : null;
}
