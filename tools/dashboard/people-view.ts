// <ob-people-view>: the People page: look a user up by id, and see their properties, groups, latest events, and why each flow is or is not shown to them.
import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { property, query, state } from 'lit/decorators.js';
import { heldBackFirst } from '../../src/api/explain-reading.js';
import type { ExplainResponse } from '../../src/api/wire.js';
import { api } from './api.js';
import { renderFlow } from './explanation.js';
import { time, value } from './format.js';
import peopleStyles from './people.styles.js';
import shared from './styles.js';
import styles from './view.styles.js';

/** The address of a user's page, explained as a read with `group` if given; `days` keeps the flows' range for the way back. */
export const personHref = (userId: string, days: number, group = '') =>
  `#/people/${encodeURIComponent(userId)}?days=${days}${group ? `&group=${encodeURIComponent(group)}` : ''}`;

/**
 * @summary The look-up form and, for the user it names, what the rules read about them and every flow's explanation:
 * flows not shown first, and in each flow the failed rules first. Everything from the user is drawn as text.
 * @event ob-error - A call failed; `detail` is the error.
 */
export class ObPeopleView extends LitElement {
  static override styles = [shared, styles, peopleStyles];

  @query('input') private input!: HTMLInputElement;
  /** The user looked up; '' shows the form alone. */
  @property({ attribute: 'user-id' }) userId = '';
  /** A group of the user's to explain their read with, as the page reads with it; '' for a read without a group. */
  @property({ attribute: 'group-id' }) groupId = '';
  /** Days of the flows' range, carried into the links. */
  @property({ type: Number }) days = 30;
  @state() private answer: ExplainResponse | undefined;
  /** The id and group the answer is for, as asked (a linked guest's answer names the user it became). */
  @state() private answered = { userId: '', groupId: '' };
  /** The last look-up failed (the dashboard shows why): no "Looking up" left on the page. */
  @state() private failed = false;

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('userId') || changed.has('groupId')) void this.load();
  }

  private async load(): Promise<void> {
    const asked = { userId: this.userId, groupId: this.groupId };
    const current = () => asked.userId === this.userId && asked.groupId === this.groupId;
    if (this.answered.userId !== asked.userId || this.answered.groupId !== asked.groupId) this.answer = undefined;
    this.failed = false;
    if (!asked.userId) return;
    try {
      const answer = await api.explain(asked.userId, asked.groupId || undefined);
      if (!current()) return;
      this.answer = answer;
      this.answered = asked;
    } catch (error) {
      if (current()) this.failed = true;
      this.dispatchEvent(new CustomEvent('ob-error', { detail: error, bubbles: true, composed: true }));
    }
  }

  private lookUp(event: Event): void {
    event.preventDefault();
    const id = this.input.value.trim();
    if (!id) return this.input.focus();
    // The same id again reads the explanation afresh: its answer is for the moment it was asked.
    if (id === this.userId && !this.groupId) void this.load();
    else location.hash = personHref(id, this.days);
  }

  private renderUser(answer: ExplainResponse) {
    const { properties, groups, recentEvents } = answer.user;
    const entries = Object.entries(properties);
    return html`<div class="user-grid">
        <section class="card" aria-labelledby="properties-title">
          <div class="card-head"><h2 id="properties-title">Properties</h2></div>
          ${
            entries.length
              ? html`<table class="props">
                  <tbody>
                    ${entries.map(
                      ([name, v]) =>
                        html`<tr>
                          <th scope="row">${name}</th>
                          <td>${value(v)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
              : html`<p class="muted">No properties.</p>`
          }
        </section>
        <section class="card" aria-labelledby="groups-title">
          <div class="card-head"><h2 id="groups-title">Groups</h2></div>
          ${
            groups.length
              ? html`<p class="hint">Explain the read your page makes with one of them:</p>
                  <ul class="groups">
                    ${groups.map(
                      (group) =>
                        html`<li>
                          <a
                            href=${personHref(this.userId, this.days, group)}
                            aria-current=${group === this.groupId ? 'true' : nothing}
                            >${group}</a
                          >
                        </li>`,
                    )}
                  </ul>`
              : html`<p class="muted">In no group.</p>`
          }
          ${
            this.groupId
              ? html`<p class="hint">
                  <a href=${personHref(this.userId, this.days)}>Explain without a group</a>
                </p>`
              : nothing
          }
        </section>
      </div>
      <section class="card flush events-card" aria-labelledby="events-title">
        <div class="card-head padded">
          <h2 id="events-title">Latest events</h2>
          <span class="hint">The latest 50, newest first</span>
        </div>
        ${
          recentEvents.length
            ? html`<div class="events" tabindex="0" role="region" aria-label="Events table">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Event</th>
                      <th scope="col">Properties</th>
                      <th scope="col" class="num">When</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${recentEvents.map(
                      (e) =>
                        html`<tr>
                          <td><code>${e.event}</code></td>
                          <td>${Object.keys(e.properties).length ? html`<code>${value(e.properties)}</code>` : '–'}</td>
                          <td class="num">${time(e.createdAt)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
            : html`<p class="empty">No events.</p>`
        }
      </section>`;
  }

  private renderAnswer(answer: ExplainResponse) {
    const shown = answer.flows.filter((flow) => flow.shown).length;
    const group = this.answered.groupId ? ` in a read with group ${this.answered.groupId}` : '';
    return html`${
        answer.exists
          ? nothing
          : html`<p class="banner warn unknown" role="status">
              <strong>Unknown user:</strong> the service has stored nothing for “${this.answered.userId}”. Check the id;
              the flows below are what a new user with this id would be shown.
            </p>`
      }${
        answer.userId !== this.answered.userId
          ? html`<p class="banner warn linked" role="status">
              “${this.answered.userId}” is a guest who became “${answer.userId}”: this is ${answer.userId}'s
              explanation.
            </p>`
          : nothing
      }
      ${this.renderUser(answer)}
      <section class="card" aria-labelledby="explain-title">
        <div class="card-head">
          <h2 id="explain-title">Flows</h2>
          <span class="hint"
            >${shown} of ${answer.flows.length} shown at ${time(answer.at)}${group}; flows not shown first</span
          >
        </div>
        ${
          answer.flows.length
            ? html`<div class="flows">${heldBackFirst(answer.flows).map(renderFlow)}</div>`
            : html`<p class="empty">No flows yet.</p>`
        }
      </section>`;
  }

  override render() {
    const answer = this.answer;
    return html`<div class="title-row">
        <h1 tabindex="-1">${this.userId || 'People'}</h1>
        ${answer && answer.exists ? html`<span class="badge">known user</span>` : nothing}
        <span class="hint">Why each flow is or is not shown to one user, now</span>
      </div>
      <form class="lookup" role="search" @submit=${this.lookUp}>
        <label
          >User ID
          <input type="search" name="userId" .value=${this.userId} autocomplete="off" spellcheck="false" required
        /></label>
        <button class="primary" type="submit">Look up</button>
      </form>
      ${
        !this.userId
          ? html`<p class="muted">Enter a user's ID, as your app sends it to identify them, or a guest's ID.</p>`
          : answer
            ? this.renderAnswer(answer)
            : this.failed
              ? nothing
              : html`<p class="muted" role="status">Looking up ${this.userId}…</p>`
      }`;
  }
}
