// The base of every element: finds its flow in the stores, and renders text, buttons and the close button safely.
import { LitElement, html, nothing, type PropertyDeclarations, type PropertyValues } from 'lit';
import type { ButtonAction, FlowButton } from '../../api/wire.js';
import type { Flow, Step } from '../../flows/flow.js';
import { $flows } from '../../stores/flows.js';
import { $elementOptions } from '../../stores/options.js';
import { $userProperties } from '../../stores/user.js';
import { reportError } from '../../core/errors.js';
import { markShownSoon, runAction } from './actions.js';
import { emit, type ActionEventName, type ActionTrigger } from './events.js';
import { autoMounted, notePlaced } from './placement.js';
import { plainText, richText, substitute, type Variables } from './rich-text.js';
import { StoreController } from './store-controller.js';
import { isRightToLeft } from './locale.js';
import { format, pageString, type OnboardingStrings } from './strings.js';
import { safeMediaUrl, safeTarget, safeUrl } from '../../api/url.js';

type ActionName = Exclude<ButtonAction, false>;

export class OnboardingElement extends LitElement {
  // Lit's reactive properties declared without decorators: the decorators' code would ship in every page's script.
  // Lit defines an accessor for each, so reactive state stays TS-private where other private members are #private.
  static override properties: PropertyDeclarations = {
    flow: { reflect: true },
    theme: { reflect: true },
    strings: { attribute: false },
    variables: { attribute: false },
    // Our own accessor; declared so a value set before the element was defined (a chunk still loading) is kept.
    currentFlow: { attribute: false, noAccessor: true },
  };

  /** The element's own built-in strings (the form's and the survey's), beside the shared ones in strings.ts. */
  static ownStrings: Partial<OnboardingStrings> = {};

  // One click rebuilds one Flow object; only the elements showing that flow render again.
  readonly #flowStore = new StoreController(this, $flows, (flows) => flows[this.flow]);
  readonly #optionStore = new StoreController(this, $elementOptions);
  readonly #propertyStore = new StoreController(this, $userProperties);
  #flowOverride: Flow | undefined;
  #shownKey = '';
  #announcedKey = '';
  #placedSlug = '';
  /** Whether `dir="rtl"` is this element's doing, not the page's. */
  #rightToLeft = false;

  /** Slug of the flow to show. */
  flow = '';

  /** `light` or `dark`; without it the element follows `prefers-color-scheme`. */
  theme: 'light' | 'dark' | undefined;

  /** Overrides of the built-in strings for this element (Close, Next, Back, "Step {n} of {m}", …). */
  strings: Partial<OnboardingStrings> = {};

  /** Values for `${name}` in flow text, on top of the user properties passed to identify. */
  variables: Variables = {};

  /** The Flow shown: the stores' flow named by `flow`, or a Flow object the page set. */
  get currentFlow(): Flow | undefined {
    return this.#flowOverride ?? this.#flowStore.value[this.flow];
  }
  set currentFlow(value: Flow | undefined) {
    this.#flowOverride = value;
    this.requestUpdate();
  }

  /** The current step of the flow, while the flow is eligible, not completed and not dismissed. */
  get currentStep(): Step | undefined {
    return this.activeFlow?.currentStep;
  }

  /** The flow while it is eligible, not completed and not dismissed; otherwise undefined. */
  protected get activeFlow(): Flow | undefined {
    const flow = this.currentFlow;
    return flow && flow.isVisible && !flow.isCompleted && !flow.isSkipped ? flow : undefined;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#notePlacement();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    notePlaced(this.#placedSlug, -1);
    this.#placedSlug = '';
  }

  /** Counts this element as the page's own for its flow, so auto-mount does not add another. */
  #notePlacement(): void {
    const slug = this.isConnected && !autoMounted.has(this) ? this.flow : '';
    if (slug === this.#placedSlug) return;
    notePlaced(this.#placedSlug, -1);
    notePlaced(slug, 1);
    this.#placedSlug = slug;
  }

  protected override scheduleUpdate(): void | Promise<unknown> {
    try {
      return super.scheduleUpdate();
    } catch (error) {
      // A definition shaped in a way nobody foresaw must not throw into the page: report it and show nothing new.
      reportError('render-failed', error);
    }
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    if (changed.has('flow')) this.#notePlacement();
    // Arabic and Hebrew read right to left whatever the page's direction; a `dir` the page set is left alone otherwise.
    const rightToLeft = isRightToLeft(this.#optionStore.value.locale);
    if (rightToLeft) this.dir = 'rtl';
    else if (this.#rightToLeft) this.removeAttribute('dir');
    this.#rightToLeft = rightToLeft;
    const flow = this.activeFlow;
    const key = flow ? `${flow.slug}:${flow.currentStep?.id ?? ''}` : '';
    if (key !== this.#announcedKey) {
      this.#announcedKey = key;
      emit(this, 'onboarding-step-change', { flow, step: flow?.currentStep });
    }
    // The first showing of a step is recorded (STARTED_FLOW, STARTED_STEP) once it is really on screen.
    const shown = flow && this.isShowing() ? key : '';
    if (shown && shown !== this.#shownKey)
      markShownSoon(() => (this.#shownKey === shown && this.isConnected ? this.activeFlow : undefined));
    this.#shownKey = shown;
  }

  /** The first element of the shadow root that matches `selector`, as Lit's `@query` finds it. */
  protected find<T extends Element>(selector: string): T | null {
    return this.renderRoot?.querySelector<T>(selector) ?? null;
  }

  /** Whether the current step is on screen; modal elements answer false while they wait for the slot. */
  protected isShowing(): boolean {
    return Boolean(this.activeFlow?.currentStep);
  }

  protected get vars(): Variables {
    return { ...this.#propertyStore.value, ...this.variables };
  }

  /** A built-in string, translated, with `{name}` placeholders filled. */
  protected t(key: keyof OnboardingStrings, values?: Record<string, string | number>): string {
    const value =
      this.strings[key] ??
      pageString(this.#optionStore.value, key) ??
      (this.constructor as typeof OnboardingElement).ownStrings[key];
    return format(typeof value === 'string' ? value : '', values, this.#optionStore.value.locale);
  }

  /** A number as the locale writes it (`٧` in ar-EG). */
  protected n(value: number): string {
    return format('{n}', { n: value }, this.#optionStore.value.locale);
  }

  /** Safe rich text from the definition, with variables substituted. */
  protected rich(source: unknown): unknown {
    return richText(source, this.vars);
  }

  /** Plain text from the definition, with variables substituted. */
  protected plain(source: unknown): string {
    return plainText(source, this.vars);
  }

  /** Visible steps of the flow, in order. */
  protected visibleSteps(flow: Flow): Step[] {
    return flow.steps.filter((step) => step.state.visible);
  }

  /**
   * Fires the cancelable `onboarding-action` and the action's own event (`onboarding-step-complete`, …), then runs
   * the action unless a listener cancelled either.
   * Returns whether the action ran; a cancelled link click is prevented too.
   */
  protected act(action: ActionName, trigger: ActionTrigger, step?: Step, data?: unknown, event?: Event): boolean {
    const flow = this.currentFlow;
    if (!flow) return false;
    const target = step ?? flow.currentStep;
    const detail = { flowSlug: flow.slug, stepId: target?.id, action, trigger, data };
    // The generic event first, then the action's own (`onboarding-step-complete`, …); either can veto.
    const proceed =
      emit(this, 'onboarding-action', detail, true) &&
      emit(this, `onboarding-${action.replace('.', '-')}` as ActionEventName, detail, true);
    if (!proceed) {
      event?.preventDefault();
      return false;
    }
    void runAction(flow, target, action, data);
    return true;
  }

  /**
   * A definition button: a real `<a>` when it has a safe `uri`, else a `<button>`. A missing `action`
   * falls back to `fallbackAction`; `action: false` only follows the link.
   */
  protected renderButton(
    button: FlowButton | undefined,
    kind: 'primary' | 'secondary',
    options: { step?: Step; fallbackTitle?: string; fallbackAction?: ActionName } = {},
  ) {
    if (!button && !options.fallbackTitle) return nothing;
    const title = this.plain(button?.title) || options.fallbackTitle || '';
    const action: ButtonAction =
      button && 'action' in button && button.action !== undefined ? button.action : (options.fallbackAction ?? false);
    const href = safeUrl(substitute(typeof button?.uri === 'string' ? button.uri : '', this.vars, encodeURIComponent));
    const onClick = (event: Event) => {
      if (action) this.act(action, kind, options.step, undefined, event);
    };
    const classes = `button ${kind}`;
    if (href) {
      const target = safeTarget(button?.target);
      return html`<a
        part="${kind}-button"
        class=${classes}
        href=${href}
        target=${target}
        rel=${target === '_blank' ? 'noopener noreferrer' : nothing}
        @click=${onClick}
        >${title}</a
      >`;
    }
    return html`<button part="${kind}-button" class=${classes} type="button" @click=${onClick}>${title}</button>`;
  }

  /** The close button of a dismissible flow (`props.dismissible` is not false); it skips the flow. */
  protected renderClose(flow: Flow) {
    if (flow.data.props?.dismissible === false) return nothing;
    return html`<button
      part="close-button"
      class="close"
      type="button"
      aria-label=${this.t('close')}
      @click=${(event: Event) => this.act('flow.skip', 'close', undefined, undefined, event)}
    >
      <span aria-hidden="true">×</span>
    </button>`;
  }

  /** An image (`imageUri`, `imageAlt`) or a video (`videoUri`) from the step, when its address is safe. */
  protected renderMedia(step: Step) {
    const video = safeMediaUrl(step.videoUri);
    if (video)
      return html`<video part="media" class="media" src=${video} controls playsinline preload="metadata"></video>`;
    const image = safeMediaUrl(step.imageUri);
    if (image)
      return html`<img part="media" class="media" src=${image} alt=${this.plain(step.imageAlt)} loading="lazy" />`;
    return nothing;
  }
}
