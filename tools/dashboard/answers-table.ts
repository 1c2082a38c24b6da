// <ob-answers>: a flow's form and survey answers, newest first, page by page, with a CSV download of the whole window.
import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { property, state } from 'lit/decorators.js';
import type { AnswerRow } from '../../src/api/wire.js';
import { api } from './api.js';
import { time, value } from './format.js';
import shared from './styles.js';
import styles from './view.styles.js';

/**
 * @summary The answers table; "Load more" reads the next page, "Download CSV" every answer of the window.
 * @event ob-error - A call failed; `detail` is the error.
 */
export class ObAnswers extends LitElement {
  static override styles = [shared, styles];

  @property() slug = '';
  @property({ type: Number }) days = 30;
  @property({ type: Number }) version = 0;
  /** Shows nothing when the window has no answers (flows other than forms and surveys rarely have any). */
  @property({ type: Boolean }) optional = false;
  @state() private rows: AnswerRow[] | undefined;
  @state() private next: string | null = null;
  @state() private busy = false;
  @state() private status = '';

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('slug') || changed.has('days') || changed.has('version')) {
      this.rows = undefined;
      void this.load();
    }
  }

  private get query() {
    return { days: this.days, version: this.version || undefined };
  }

  private fail(error: unknown): void {
    this.dispatchEvent(new CustomEvent('ob-error', { detail: error, bubbles: true, composed: true }));
  }

  private async load(cursor?: string): Promise<void> {
    this.busy = true;
    try {
      const page = await api.answers(this.slug, this.query, cursor);
      this.rows = [...(cursor ? (this.rows ?? []) : []), ...page.data];
      this.next = page.nextCursor;
      this.status = cursor ? `${page.data.length} more answers loaded.` : '';
    } catch (error) {
      this.fail(error);
    } finally {
      this.busy = false;
    }
  }

  private async download(): Promise<void> {
    this.busy = true;
    this.status = 'Preparing the CSV…';
    try {
      await api.downloadCsv(this.slug, this.query);
      this.status = 'The CSV was downloaded.';
    } catch (error) {
      this.status = '';
      this.fail(error);
    } finally {
      this.busy = false;
    }
  }

  override render() {
    const rows = this.rows;
    if (this.optional && rows?.length === 0) return nothing;
    return html`<section class="card flush answers" aria-labelledby="answers-title">
      <div class="card-head padded">
        <h2 id="answers-title">Answers</h2>
        <button type="button" @click=${this.download} ?disabled=${this.busy || !rows?.length}>Download CSV</button>
      </div>
      ${
        !rows
          ? html`<p class="empty" role="status">Loading answers…</p>`
          : rows.length === 0
            ? html`<p class="empty">No form or survey answers in this window.</p>`
            : html`<div class="scroll" tabindex="0" role="region" aria-label="Answers table">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Time (UTC)</th>
                      <th scope="col">User</th>
                      <th scope="col">Step</th>
                      <th scope="col">Field</th>
                      <th scope="col">Answer</th>
                      <th scope="col">Page</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${rows.map(
                      (row) =>
                        html`<tr>
                          <td class="nowrap">${time(row.createdAt)}</td>
                          <td>${row.userId}</td>
                          <td>${row.stepId}</td>
                          <td>${row.field}</td>
                          <td class="answer">${value(row.value)}</td>
                          <td class="page">${row.url ?? ''}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
      }
      <div class="foot padded">
        ${this.next ? html`<button type="button" @click=${() => this.load(this.next ?? undefined)} ?disabled=${this.busy}>Load more</button>` : ''}
        <span class="hint" role="status">${this.status}</span>
      </div>
    </section>`;
  }
}
