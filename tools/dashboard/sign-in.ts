// <ob-sign-in>: asks for a private key, checks it against the service, and keeps it for this tab only.
import { html, LitElement, nothing } from 'lit';
import { query, state } from 'lit/decorators.js';
import { api, ApiError, session } from './api.js';
import shared from './styles.js';
import styles from './sign-in.styles.js';

/**
 * @summary The sign-in card. The key is checked with one analytics call, then kept in sessionStorage (this tab,
 * until it closes) and sent only in the Authorization header, never in an address.
 * @event ob-signed-in - The key was accepted.
 */
export class ObSignIn extends LitElement {
  static override styles = [shared, styles];

  @query('input') private input!: HTMLInputElement;
  @state() private error = '';
  @state() private busy = false;

  private async submit(event: Event): Promise<void> {
    event.preventDefault();
    const key = this.input.value.trim();
    if (!key) {
      this.error = 'Paste a private key (it begins with sk_).';
      return;
    }
    this.busy = true;
    this.error = '';
    try {
      await api.check(key);
      session.set(key);
      this.input.value = '';
      this.dispatchEvent(new CustomEvent('ob-signed-in', { bubbles: true, composed: true }));
    } catch (error) {
      this.error =
        error instanceof ApiError && (error.status === 401 || error.status === 403)
          ? 'That key was refused. The dashboard needs a private key (sk_…) of this service; a public key cannot read analytics.'
          : `The service could not be reached: ${error instanceof Error ? error.message : String(error)}`;
      this.input.focus();
    } finally {
      this.busy = false;
    }
  }

  override render() {
    return html`<main class="wrap">
      <form class="card" @submit=${this.submit} novalidate>
        <p class="brand"><span class="logo" aria-hidden="true"></span>Onboarding insights</p>
        <h1>Sign in</h1>
        <p class="muted">
          Paste a private key of this service. It stays in this tab only, and is sent in a header, never in an address.
        </p>
        <label for="key">Private key</label>
        <input
          id="key"
          type="password"
          autocomplete="off"
          spellcheck="false"
          placeholder="sk_…"
          aria-describedby=${this.error ? 'error' : nothing}
          aria-invalid=${this.error ? 'true' : 'false'}
        />
        ${this.error ? html`<p id="error" class="alert" role="alert">${this.error}</p>` : ''}
        <button class="primary" type="submit" ?disabled=${this.busy}>${this.busy ? 'Checking…' : 'Sign in'}</button>
      </form>
    </main>`;
  }
}
