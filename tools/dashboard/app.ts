// <ob-dashboard>: the dashboard's shell: sign-in, the header with the date range, and the flows or one flow, by the address's hash.
import { css, html, LitElement } from 'lit';
import { state } from 'lit/decorators.js';
import { ApiError, session } from './api.js';
import shared from './styles.js';

/** Where the hash points: `#/?days=30` (every flow) or `#/flows/<slug>?days=30&version=2`. No key is ever in it. */
interface Route {
  slug: string | undefined;
  days: number;
  version: number;
}

export const RANGES = [7, 30, 90];

function readRoute(hash = location.hash): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(search);
  const days = Number(params.get('days'));
  const match = /^\/flows\/([^/]+)$/.exec(path);
  return {
    slug: match ? decodeURIComponent(match[1]) : undefined,
    days: RANGES.includes(days) ? days : 30,
    version: Math.max(0, Math.floor(Number(params.get('version')) || 0)),
  };
}

/** @summary The whole dashboard; put it on a page with dashboard.css. */
export class ObDashboard extends LitElement {
  static override styles = [
    shared,
    css`
      header {
        background: var(--db-surface);
        border-bottom: 1px solid var(--db-border);
      }
      .bar-inner,
      main {
        max-width: 1180px;
        margin: 0 auto;
        padding: 0 24px;
      }
      .bar-inner {
        display: flex;
        align-items: center;
        gap: 16px;
        height: 60px;
      }
      .brand {
        display: flex;
        align-items: center;
        gap: 10px;
        font-weight: 650;
        color: var(--db-text);
        text-decoration: none;
      }
      .logo {
        width: 24px;
        height: 24px;
        border-radius: 7px;
        background: linear-gradient(135deg, var(--db-accent), var(--db-good));
      }
      .spacer {
        flex: 1;
      }
      main {
        padding-top: 28px;
        padding-bottom: 48px;
      }
      .alert {
        margin-bottom: 16px;
      }
    `,
  ];

  @state() private signedIn = session.key !== null;
  @state() private route = readRoute();
  @state() private error = '';
  private readonly onHash = () => {
    const previous = this.route;
    this.route = readRoute();
    this.error = '';
    // A new page for a screen reader: focus its heading once it is drawn.
    if (previous.slug !== this.route.slug) void this.focusHeading();
  };

  override connectedCallback(): void {
    super.connectedCallback();
    addEventListener('hashchange', this.onHash);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    removeEventListener('hashchange', this.onHash);
  }

  private async focusHeading(): Promise<void> {
    await this.updateComplete;
    const view = this.renderRoot.querySelector<LitElement>('ob-flow-view, ob-flows-list');
    // The view draws its heading after its report arrives; a short wait covers a quick answer.
    for (let i = 0; i < 40 && view; i++) {
      const heading = view.renderRoot.querySelector('h1') as HTMLElement | null;
      if (heading) return heading.focus();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private onError(event: CustomEvent<unknown>): void {
    const error = event.detail;
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return this.signOut();
    this.error = error instanceof Error ? error.message : String(error);
  }

  private signOut(): void {
    session.clear();
    this.signedIn = false;
  }

  private chooseRange(event: Event): void {
    const days = Number((event.target as HTMLSelectElement).value);
    const { slug, version } = this.route;
    location.hash = slug
      ? `#/flows/${encodeURIComponent(slug)}?days=${days}${version ? `&version=${version}` : ''}`
      : `#/?days=${days}`;
  }

  override render() {
    if (!this.signedIn) return html`<ob-sign-in @ob-signed-in=${() => (this.signedIn = true)}></ob-sign-in>`;
    const { slug, days, version } = this.route;
    return html`<header>
        <div class="bar-inner">
          <a class="brand" href="#/?days=${days}"><span class="logo" aria-hidden="true"></span>Onboarding insights</a>
          <span class="spacer"></span>
          <label class="sr-only" for="range">Date range</label>
          <select id="range" @change=${this.chooseRange}>
            ${RANGES.map((n) => html`<option value=${n} ?selected=${n === days}>Last ${n} days</option>`)}
          </select>
          <button type="button" @click=${this.signOut}>Sign out</button>
        </div>
      </header>
      <main @ob-error=${this.onError}>
        ${this.error ? html`<p class="alert" role="alert">${this.error}</p>` : ''}
        ${slug ? html`<ob-flow-view slug=${slug} days=${days} version=${version}></ob-flow-view>` : html`<ob-flows-list days=${days}></ob-flows-list><ob-collections days=${days}></ob-collections>`}
      </main>`;
  }
}
