// <ob-dashboard>: the dashboard's shell: sign-in, the header with its views and date range, and the view the address's hash names.
import { css, html, LitElement, nothing } from 'lit';
import { state } from 'lit/decorators.js';
import { ApiError, session } from './api.js';
import shared from './styles.js';

/**
 * Where the hash points: `#/?days=30` (every flow), `#/flows/<slug>?days=30&version=2`, `#/experiments?days=30`,
 * `#/experiments/<id>?days=30`, `#/people?days=30` or `#/people/<user id>?days=30[&group=<group id>]`. No key is ever in it.
 */
interface Route {
  view: 'flows' | 'flow' | 'experiments' | 'experiment' | 'people';
  /** The flow's slug, the experiment's id or the user's id. */
  name: string;
  days: number;
  version: number;
  /** On a user's page: the group to explain the user's read with ('' for none). */
  group: string;
}

export const RANGES = [7, 30, 90];

/** A path segment as written; a malformed escape is kept as it is rather than thrown. */
function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A section's view of one item: a flow's report, an experiment's, a user's explanation. */
const VIEW_OF_ONE = { flows: 'flow', experiments: 'experiment', people: 'people' } as const;

function readRoute(hash = location.hash): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(search);
  const days = Number(params.get('days'));
  const match = /^\/(flows|experiments|people)(?:\/([^/]+))?$/.exec(path);
  const name = match?.[2] ? decode(match[2]) : '';
  const section = (match?.[1] ?? 'flows') as 'flows' | 'experiments' | 'people';
  return {
    view: name ? VIEW_OF_ONE[section] : section,
    name,
    days: RANGES.includes(days) ? days : 30,
    version: Math.max(0, Math.floor(Number(params.get('version')) || 0)),
    group: params.get('group') ?? '',
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
      nav {
        display: flex;
        gap: 4px;
      }
      nav a {
        padding: 6px 10px;
        border-radius: 8px;
        color: var(--db-muted);
        font-weight: 500;
        text-decoration: none;
      }
      nav a:hover {
        color: var(--db-text);
      }
      nav a[aria-current='page'] {
        background: var(--db-accent-soft);
        color: var(--db-accent-text);
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
    if (previous.view !== this.route.view || previous.name !== this.route.name) void this.focusHeading();
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
    const view = this.renderRoot.querySelector<LitElement>(
      'ob-flow-view, ob-flows-list, ob-experiments-list, ob-experiment-view, ob-people-view',
    );
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
    const { view, name, version } = this.route;
    location.hash =
      view === 'flow'
        ? `#/flows/${encodeURIComponent(name)}?days=${days}${version ? `&version=${version}` : ''}`
        : `#/?days=${days}`;
  }

  private renderView() {
    const { view, name, days, version, group } = this.route;
    if (view === 'flow') return html`<ob-flow-view slug=${name} days=${days} version=${version}></ob-flow-view>`;
    if (view === 'experiments') return html`<ob-experiments-list days=${days}></ob-experiments-list>`;
    if (view === 'experiment')
      return html`<ob-experiment-view experiment-id=${name} days=${days}></ob-experiment-view>`;
    if (view === 'people')
      return html`<ob-people-view user-id=${name} group-id=${group} days=${days}></ob-people-view>`;
    return html`<ob-flows-list days=${days}></ob-flows-list><ob-collections days=${days}></ob-collections>`;
  }

  override render() {
    if (!this.signedIn) return html`<ob-sign-in @ob-signed-in=${() => (this.signedIn = true)}></ob-sign-in>`;
    const { view, days } = this.route;
    const onExperiments = view === 'experiments' || view === 'experiment';
    const onFlows = !onExperiments && view !== 'people';
    return html`<header>
        <div class="bar-inner">
          <a class="brand" href="#/?days=${days}"><span class="logo" aria-hidden="true"></span>Onboarding insights</a>
          <nav aria-label="Views">
            <a href="#/?days=${days}" aria-current=${onFlows ? 'page' : nothing}>Flows</a>
            <a href="#/experiments?days=${days}" aria-current=${onExperiments ? 'page' : nothing}>Experiments</a>
            <a href="#/people?days=${days}" aria-current=${view === 'people' ? 'page' : nothing}>People</a>
          </nav>
          <span class="spacer"></span>
          ${
            // Experiments count every exposure since they began, and a user is explained now: the range is the flows' only.
            !onFlows
              ? nothing
              : html`<label class="sr-only" for="range">Date range</label>
                  <select id="range" @change=${this.chooseRange}>
                    ${RANGES.map((n) => html`<option value=${n} ?selected=${n === days}>Last ${n} days</option>`)}
                  </select>`
          }
          <button type="button" @click=${this.signOut}>Sign out</button>
        </div>
      </header>
      <main @ob-error=${this.onError}>
        ${this.error ? html`<p class="alert" role="alert">${this.error}</p>` : ''} ${this.renderView()}
      </main>`;
  }
}
