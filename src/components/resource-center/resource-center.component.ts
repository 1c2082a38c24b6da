// <onboarding-resource-center>: a RESOURCE_CENTER flow as a launcher with an unread badge and a non-modal panel of blocks.
import { html, nothing, type PropertyValues } from 'lit';
import type { ResourceCenterBlock, ResourceCenterData, ResourceCenterLauncher, ResourceLink } from '../../api/wire.js';
import { safeTarget, safeUrl } from '../../api/url.js';
import type { Flow } from '../../flows/flow.js';
import { $flows } from '../../stores/flows.js';
import { $resourceCenterOpen, $unread } from '../../stores/resource-center.js';
import {
  centreView,
  followUnread,
  isUnread,
  itemState,
  openContact,
  record,
  startFlow,
  type ShownBlock,
} from '../../core/resource-center.js';
import { emit } from '../shared/events.js';
import { deepActiveElement } from '../shared/modal-slot.js';
import { wantElement } from '../shared/on-demand.js';
import { OnboardingElement } from '../shared/onboarding-element.js';
import { StoreController } from '../shared/store-controller.js';
import baseStyles from '../shared/base.styles.js';
import styles from './resource-center.styles.js';
import { RESOURCE_CENTER_STRINGS } from './resource-center.strings.js';

/** How long typing must pause before a search is recorded. */
const SEARCH_PAUSE_MS = 800;
const STATE_WORDS = { new: 'stateNew', progress: 'stateInProgress', done: 'stateDone' } as const;

/**
 * @summary A RESOURCE_CENTER flow: a launcher (a floating button, or the page's own `launcher.selector` element) whose
 * badge counts unread announcements and open checklist tasks, and a non-modal panel of blocks: the user's checklist,
 * flows to start or replay with the user's state in each, a what's-new feed, links, text, search and contact. The
 * panel opens and closes with the launcher, `Onboarding.resourceCenter`, its close button and Escape; focus moves
 * into it and back. At phone width it is a sheet along the bottom.
 * @tag onboarding-resource-center
 *
 * @event onboarding-show - The panel opened.
 * @event onboarding-hide - The panel closed.
 * @event onboarding-step-change - The flow shown changed.
 *
 * @csspart launcher - The floating button.
 * @csspart badge - The unread count on the launcher.
 * @csspart panel - The panel (role dialog).
 * @csspart title - The panel's heading.
 * @csspart close-button - The close button.
 * @csspart block - One block; it also carries `block-<type>`.
 * @csspart item - A row of a flows or links block, the contact link, and an announcement.
 * @csspart search - The search field.
 *
 * @cssproperty --onboarding-surface - Background.
 * @cssproperty --onboarding-text - Text colour.
 * @cssproperty --onboarding-muted - Secondary text colour.
 * @cssproperty --onboarding-border - Border colour.
 * @cssproperty --onboarding-accent - Launcher, link and "new" colour.
 * @cssproperty --onboarding-danger - The badge's colour.
 * @cssproperty --onboarding-radius - Corner radius.
 * @cssproperty --onboarding-font - Font shorthand.
 * @cssproperty --onboarding-shadow - Launcher and panel shadow.
 * @cssproperty --onboarding-resource-center-width - Panel width.
 * @cssproperty --onboarding-resource-center-offset - Distance of the launcher from the window's edges.
 */
export class OnboardingResourceCenter extends OnboardingElement {
  static override styles = [baseStyles, styles];
  static override ownStrings = RESOURCE_CENTER_STRINGS;
  static override properties = { query: { state: true } };

  readonly #open = new StoreController(this, $resourceCenterOpen);
  readonly #unread = new StoreController(this, $unread);
  // Every listed flow's state shows, not the centre's alone.
  readonly #flows = new StoreController(this, $flows);
  #following = '';
  #stopUnread: (() => void) | undefined;
  /** The page's launcher elements that carry `data-onboarding-unread`. */
  #marked = new Set<Element>();
  #observer: MutationObserver | undefined;
  /** The slug of the centre whose panel is open ('' when closed). */
  #openSlug = '';
  #returnFocus: HTMLElement | null = null;
  /** Flows this element has recorded as seen (the centre, announcements): once each, even if a write is refused. */
  #seen = new Set<string>();
  #searchTimer: ReturnType<typeof setTimeout> | undefined;
  #searched = '';

  /** The search field's text. */
  private query = '';

  #data(): Partial<ResourceCenterData> {
    return (this.activeFlow?.data ?? {}) as Partial<ResourceCenterData>;
  }

  #launcher(): ResourceCenterLauncher {
    const launcher = this.#data().launcher;
    return launcher && typeof launcher === 'object' ? launcher : {};
  }

  /** The page's elements the `selector` names; none for a selector the page cannot read. */
  #hosts(): Element[] {
    const selector = this.#launcher().selector;
    try {
      return selector ? [...document.querySelectorAll(selector)] : [];
    } catch {
      return [];
    }
  }

  readonly #onPageClick = (event: Event) => {
    const hosts = this.#hosts();
    const host = event.composedPath().find((node) => hosts.includes(node as Element));
    if (!host || !this.activeFlow) return;
    this.#returnFocus = host as HTMLElement;
    $resourceCenterOpen.set(!$resourceCenterOpen.get());
  };

  /** Escape on the page's own launcher closes the centre too; focus stays on the launcher. */
  readonly #onPageKeydown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !this.#open.value) return;
    const hosts = this.#hosts();
    if (event.composedPath().some((node) => hosts.includes(node as Element))) this.#close();
  };

  override connectedCallback(): void {
    super.connectedCallback();
    document.addEventListener('click', this.#onPageClick);
    document.addEventListener('keydown', this.#onPageKeydown);
    // The page's launcher may come later than the centre (a framework drawing its header): its count follows it.
    this.#observer = new MutationObserver(() => this.#markHosts());
    this.#observer.observe(document.documentElement, { childList: true, subtree: true });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    document.removeEventListener('click', this.#onPageClick);
    document.removeEventListener('keydown', this.#onPageKeydown);
    this.#observer?.disconnect();
    this.#follow('');
    this.#markHosts();
    clearTimeout(this.#searchTimer);
    // A centre that leaves the page leaves nothing open.
    $resourceCenterOpen.set(false);
  }

  /** Counts the unread items of `slug` into `$unread` ('' stops). */
  #follow(slug: string): void {
    if (slug === this.#following) return;
    this.#stopUnread?.();
    this.#stopUnread = slug ? followUnread(slug) : undefined;
    this.#following = slug;
  }

  /** Sets `data-onboarding-unread` on the page's launcher elements (removed at 0, and from elements no longer named). */
  #markHosts(): void {
    const count = this.isConnected && this.activeFlow ? this.#unread.value : 0;
    const hosts = count ? this.#hosts() : [];
    for (const element of this.#marked)
      if (!hosts.includes(element)) {
        element.removeAttribute('data-onboarding-unread');
        this.#marked.delete(element);
      }
    for (const element of hosts) {
      if (element.getAttribute('data-onboarding-unread') !== String(count))
        element.setAttribute('data-onboarding-unread', String(count));
      this.#marked.add(element);
    }
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    const flow = this.activeFlow;
    this.#follow(flow?.slug ?? '');
    this.#markHosts();
    const data = this.#data();
    // The checklist block draws <onboarding-checklist>: its chunk comes now, not when the panel opens.
    if (data.blocks?.some((block) => block?.type === 'checklist')) wantElement('onboarding-checklist');
    const open = flow && this.#open.value ? flow.slug : '';
    if (open && !this.#openSlug) this.#opened(flow!);
    else if (!open && this.#openSlug) this.#closed();
    this.#openSlug = open;
    if (open) this.#markSeen();
  }

  #opened(flow: Flow): void {
    this.#returnFocus ??= deepActiveElement();
    const panel = this.find<HTMLElement>('.panel');
    this.#place(panel);
    (this.find<HTMLElement>('input') ?? panel)?.focus();
    // The first opening is the centre's start: STARTED_FLOW, once.
    if (!flow.isStarted && !this.#seen.has(flow.slug)) {
      this.#seen.add(flow.slug);
      void flow.start();
    }
    emit(this, 'onboarding-show', { flowSlug: flow.slug });
  }

  #closed(): void {
    emit(this, 'onboarding-hide', { flowSlug: this.#openSlug });
    const target = this.#returnFocus;
    this.#returnFocus = null;
    clearTimeout(this.#searchTimer);
    // Focus goes back only when it was in the panel (a close through the API leaves the page's focus alone).
    const active = deepActiveElement();
    if (!active || active === document.body || this.shadowRoot?.contains(active))
      (target?.isConnected && target !== document.body ? target : this.find<HTMLElement>('.launcher'))?.focus();
  }

  /** Beside the page's own launcher: under it (above it in the lower half of the window), aligned with its nearer edge. */
  #place(panel: HTMLElement | null): void {
    const host = this.#hosts()[0];
    if (!panel || !host) return;
    const rect = host.getBoundingClientRect();
    const below = rect.top + rect.height / 2 < innerHeight / 2;
    const left = rect.left + rect.width / 2 < innerWidth / 2;
    panel.style.cssText = `${below ? `top:${rect.bottom + 8}px` : `bottom:${innerHeight - rect.top + 8}px`};${left ? `left:${Math.max(8, rect.left)}px` : `right:${Math.max(8, innerWidth - rect.right)}px`}`;
  }

  /** Announcements drawn in the open panel are seen: STARTED_FLOW on each, through the same path as every transition. */
  #markSeen(): void {
    for (const shown of this.#view().blocks)
      if (shown.block.type === 'announcements')
        for (const flow of shown.flows)
          if (isUnread(flow) && !this.#seen.has(flow.slug)) {
            this.#seen.add(flow.slug);
            void flow.start();
          }
  }

  #view() {
    return centreView(this.#data(), this.#flows.value, this.query);
  }

  #close(): void {
    $resourceCenterOpen.set(false);
  }

  #onKeydown(event: KeyboardEvent): void {
    if (event.key !== 'Escape' || !this.#open.value) return;
    event.stopPropagation();
    this.#close();
  }

  #click(block: ResourceCenterBlock, item: string): void {
    record({ flow: this.activeFlow!.slug, action: 'click', block: block.id, item });
  }

  #startItem(block: ResourceCenterBlock, slug: string): void {
    this.#click(block, slug);
    this.#close();
    void startFlow(slug);
  }

  #onInput(event: Event): void {
    this.query = (event.target as HTMLInputElement).value;
    clearTimeout(this.#searchTimer);
    this.#searchTimer = setTimeout(() => this.#recordSearch(), SEARCH_PAUSE_MS);
  }

  /** Records the search once the user paused or submitted; the same query twice in a row is one search. */
  #recordSearch(): void {
    clearTimeout(this.#searchTimer);
    const query = this.query.trim().slice(0, 200);
    const flow = this.activeFlow;
    const block = this.#data().blocks?.find((b) => b?.type === 'search');
    if (!query || query === this.#searched || !flow || !block) return;
    this.#searched = query;
    record({ flow: flow.slug, action: 'search', block: block.id, query, results: this.#view().results });
  }

  #renderFlowRow(block: ResourceCenterBlock, flow: Flow) {
    const state = itemState(flow);
    return html`<li>
      <button part="item" class="item" type="button" @click=${() => this.#startItem(block, flow.slug)}>
        <span>${this.plain(flow.data.title) || flow.name}</span>
        <span class="state ${state}">${this.t(STATE_WORDS[state])}</span>
      </button>
    </li>`;
  }

  #renderNews(flow: Flow) {
    const step = flow.steps[0];
    const unread = isUnread(flow) && !this.#seen.has(flow.slug);
    return html`<li part="item" class="news ${unread ? 'unread' : ''}">
      ${unread ? html`<span class="state">${this.t('stateNew')}</span>` : nothing}
      ${step ? this.renderMedia(step) : nothing}
      <h4 class="title">${step?.title ? this.rich(step.title) : this.plain(flow.data.title) || flow.name}</h4>
      ${step?.subtitle ? html`<div class="text">${this.rich(step.subtitle)}</div>` : nothing}
    </li>`;
  }

  #renderLink(block: ResourceCenterBlock, link: ResourceLink) {
    const title = this.plain(link.title);
    if ('flow' in link)
      return html`<li>
        <button part="item" class="item" type="button" @click=${() => this.#startItem(block, link.flow)}>
          <span>${title}</span>
        </button>
      </li>`;
    const href = safeUrl(link.url);
    const target = safeTarget(link.target);
    return href
      ? html`<li>
          <a
            part="item"
            class="item"
            href=${href}
            target=${target}
            rel=${target === '_blank' ? 'noopener noreferrer' : nothing}
            @click=${() => this.#click(block, href)}
            ><span>${title}</span></a
          >
        </li>`
      : nothing;
  }

  #renderContact(block: Extract<ResourceCenterBlock, { type: 'contact' }>) {
    const href = safeUrl(block.url);
    const onClick = (event: Event) => {
      this.#click(block, 'contact');
      // The provider's widget, when on the page, instead of the address.
      if (openContact(block.provider)) event.preventDefault();
    };
    const title = this.plain(block.title);
    return href
      ? html`<a part="item" class="item" href=${href} @click=${onClick}><span>${title}</span></a>`
      : html`<button part="item" class="item" type="button" @click=${onClick}><span>${title}</span></button>`;
  }

  #renderBlock({ block, flows, links }: ShownBlock) {
    let body: unknown = nothing;
    if (block.type === 'checklist') body = html`<onboarding-checklist flow=${block.flow}></onboarding-checklist>`;
    else if (block.type === 'flows')
      body = html`<ul>
        ${flows.map((flow) => this.#renderFlowRow(block, flow))}
      </ul>`;
    else if (block.type === 'announcements')
      body = html`<ul>
        ${flows.map((flow) => this.#renderNews(flow))}
      </ul>`;
    else if (block.type === 'links')
      body = html`<ul>
        ${links.map((link) => this.#renderLink(block, link))}
      </ul>`;
    else if (block.type === 'text') body = html`<div class="text">${this.rich(block.text)}</div>`;
    else if (block.type === 'contact') body = this.#renderContact(block);
    else if (block.type === 'search')
      body = html`<form
        role="search"
        @submit=${(event: Event) => {
          event.preventDefault();
          this.#recordSearch();
        }}
      >
        <input
          part="search"
          type="search"
          .value=${this.query}
          placeholder=${this.plain(block.placeholder) || this.t('search')}
          aria-label=${this.t('search')}
          @input=${this.#onInput}
        />
      </form>`;
    const title = block.type !== 'contact' && block.title ? this.plain(block.title) : '';
    return html`<section part="block block-${block.type}">
      ${title ? html`<h3>${title}</h3>` : nothing}${body}
    </section>`;
  }

  override render() {
    const flow = this.activeFlow;
    if (!flow) return nothing;
    const data = this.#data();
    const launcher = this.#launcher();
    const corner = ['top-left', 'top-right', 'bottom-left'].includes(launcher.placement!)
      ? launcher.placement!
      : 'bottom-right';
    const title = this.plain(data.title) || flow.name;
    const open = this.#open.value;
    const unread = this.#unread.value;
    const label = this.plain(launcher.label);
    const view = open ? this.#view() : undefined;
    return html`<div @keydown=${this.#onKeydown}>
      ${
        launcher.selector
          ? nothing
          : html`<button
              part="launcher"
              class="launcher ${corner}"
              type="button"
              aria-expanded=${open ? 'true' : 'false'}
              aria-controls="panel"
              @click=${() => $resourceCenterOpen.set(!open)}
            >
              <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
                <circle cx="12" cy="12" r="10" fill="none" stroke="currentColor" stroke-width="2" />
                <path
                  fill="currentColor"
                  d="M11 17h2v2h-2zm1-12a4 4 0 0 0-4 4h2a2 2 0 1 1 2 2 1 1 0 0 0-1 1v2h2v-1.2A4 4 0 0 0 12 5z"
                />
              </svg>
              <span class=${label ? '' : 'sr'}>${label || title}</span>
              ${unread ? html`<span part="badge" class="badge" role="img" aria-label=${this.t('unread', { n: unread })}>${this.n(unread)}</span>` : nothing}
            </button>`
      }
      ${
        view
          ? html`<div
              part="panel"
              id="panel"
              class="panel surface ${corner}"
              role="dialog"
              aria-labelledby="title"
              tabindex="-1"
            >
              <div class="head">
                <h2 part="title" id="title" class="title">${title}</h2>
                <button
                  part="close-button"
                  class="close"
                  type="button"
                  aria-label=${this.t('close')}
                  @click=${this.#close}
                >
                  <span aria-hidden="true">×</span>
                </button>
              </div>
              <div class="body">
                ${view.blocks.map((shown) => this.#renderBlock(shown))}
                ${this.query.trim() && !view.results ? html`<p class="text" role="status">${this.t('noResults')}</p>` : nothing}
              </div>
            </div>`
          : nothing
      }
    </div>`;
  }
}
