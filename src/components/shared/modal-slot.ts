// A controller that holds an element's place in the modal queue while its flow wants to open.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { FlowType } from '../../api/wire.js';
import { $activeModal, releaseModal, requestModal } from './modal-queue.js';
import { StoreController } from './store-controller.js';

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
  let active = document.activeElement;
  for (let depth = 0; depth < 32 && active?.shadowRoot?.activeElement; depth++) active = active.shadowRoot.activeElement;
  return active instanceof HTMLElement ? active : null;
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), video[controls], [tabindex]:not([tabindex="-1"])';

/** Keeps Tab and Shift+Tab inside `container` (a modal's own shadow content). */
export function trapTab(event: KeyboardEvent, container: Element, root: ShadowRoot): void {
  if (event.key !== 'Tab') return;
  const items = [...container.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((item) => item.getClientRects().length > 0);
  if (!items.length) return;
  const first = items[0]!;
  const last = items[items.length - 1]!;
  const active = root.activeElement;
  if (event.shiftKey && (active === first || !container.contains(active))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !container.contains(active))) {
    event.preventDefault();
    first.focus();
  }
}
