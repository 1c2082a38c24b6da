// What a tooltip opened by its target needs: open while the pointer or focus is on the target or the tooltip, closed a moment after both leave or on Escape.
const EVENTS = ['mouseenter', 'mouseleave', 'focusin', 'focusout'];

export class HoverIntent {
  #target: Element | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #open = false;
  #pointer = false;
  #focus = false;
  /** Dismissed with Escape: focus coming (back) onto the target does not open it again until focus or the pointer has left once. */
  #muted = false;

  constructor(
    /** Called when the tooltip is to open or close. */
    private readonly onChange: (open: boolean) => void,
    /** Called on Tab (without Shift) from the target while open; returns whether it moved focus into the tooltip. */
    private readonly onTab: () => boolean = () => false,
    /** How long the tooltip stays after the pointer and focus left, in milliseconds, so the pointer can cross to it. */
    private readonly delay = 300,
  ) {}

  /** Watches `target` (undefined: none), leaving the one watched before; without a target the tooltip closes. */
  watch(target: Element | undefined): void {
    if (target === this.#target) return;
    for (const name of EVENTS) {
      this.#target?.removeEventListener(name, this);
      target?.addEventListener(name, this);
    }
    this.#target = target;
    this.#muted = false;
    clearTimeout(this.#timer);
    this.#set(false);
  }

  /** Closes now (Escape): the pointer coming onto the target opens it again, and focus does once it has left. */
  dismiss(): void {
    clearTimeout(this.#timer);
    this.#muted = true;
    this.#set(false);
  }

  /**
   * Takes the pointer and focus events of the target and of the tooltip (which passes its own on): open while either is
   * on one of them, closed `delay` after both left. Also Escape and Tab while open.
   */
  handleEvent(event: Event): void {
    const { type } = event;
    if (type === 'keydown') {
      const { key, shiftKey } = event as KeyboardEvent;
      // Escape is the page's too (a dialog of its own may close on it): it is not prevented.
      if (key === 'Escape') this.dismiss();
      else if (
        key === 'Tab' &&
        !shiftKey &&
        this.#target &&
        event.composedPath().includes(this.#target) &&
        this.onTab()
      )
        event.preventDefault();
      return;
    }
    const inside = type === 'mouseenter' || type === 'focusin';
    if (type.startsWith('mouse')) this.#pointer = inside;
    else this.#focus = inside;
    clearTimeout(this.#timer);
    if (!inside) this.#muted = false;
    if (inside) this.#set(!this.#muted || type === 'mouseenter');
    else if (!this.#pointer && !this.#focus) this.#timer = setTimeout(() => this.#set(false), this.delay);
  }

  #set(open: boolean): void {
    // A closed tooltip is gone, and with it any leave event still owed: both start afresh.
    if (!open) this.#pointer = this.#focus = false;
    if (open === this.#open) return;
    this.#open = open;
    // Escape closes a tooltip wherever focus is, as the pointer may be on the target with focus elsewhere.
    if (open) addEventListener('keydown', this, true);
    else removeEventListener('keydown', this, true);
    this.onChange(open);
  }
}

/**
 * Gives `target` `text` as its accessible description while the tooltip is there, unless it has a description of its
 * own: `aria-description`, since `aria-describedby` cannot point into the tooltip's shadow root. Returns a function that
 * takes it back.
 */
export function describeTarget(target: Element, text: string): () => void {
  if (!text || target.hasAttribute('aria-description') || target.hasAttribute('aria-describedby')) return () => {};
  target.setAttribute('aria-description', text);
  return () => {
    if (target.getAttribute('aria-description') === text) target.removeAttribute('aria-description');
  };
}
