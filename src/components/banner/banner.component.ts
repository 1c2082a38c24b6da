// <onboarding-banner>: an inline or top-of-page bar with the BANNER flow's current step, its buttons and a dismiss.
import { html, nothing } from 'lit';
import { OnboardingElement } from '../shared/onboarding-element.js';
import baseStyles from '../shared/base.styles.js';
import styles from './banner.styles.js';

/**
 * @summary An inline or top-of-page bar that shows the current step of a BANNER flow.
 * @tag onboarding-banner
 *
 * @event onboarding-action - Before a button, the close button or a link runs its action; cancel it to veto or take over.
 * @event onboarding-step-change - The flow or current step shown changed.
 *
 * @csspart base - The bar.
 * @csspart title - The step title.
 * @csspart subtitle - The step text.
 * @csspart actions - The button row.
 * @csspart primary-button - The primary button or link.
 * @csspart secondary-button - The secondary button or link.
 * @csspart close-button - The dismiss button.
 *
 * @cssproperty --onboarding-surface - Background.
 * @cssproperty --onboarding-text - Text colour.
 * @cssproperty --onboarding-muted - Secondary text colour.
 * @cssproperty --onboarding-border - Border colour.
 * @cssproperty --onboarding-accent - Button and link colour.
 * @cssproperty --onboarding-radius - Corner radius.
 * @cssproperty --onboarding-font - Font shorthand.
 */
export class OnboardingBanner extends OnboardingElement {
  static override styles = [baseStyles, styles];
  static override properties = { placement: { reflect: true } };

  /** `inline` where it is placed, or `top` to stick to the top of the page while scrolling. */
  placement: 'inline' | 'top' = 'inline';

  override render() {
    const flow = this.activeFlow;
    const step = flow?.currentStep;
    // The live region stays in place so a banner that arrives later is announced politely.
    return html`<div aria-live="polite">
      ${
        step
          ? html`<section part="base" class="surface" aria-label=${this.plain(step.title) || flow.name}>
              <div class="body">
                <p part="title" class="title">${this.rich(step.title)}</p>
                ${step.subtitle ? html`<div part="subtitle" class="text">${this.rich(step.subtitle)}</div>` : nothing}
              </div>
              ${
                step.primaryButton || step.secondaryButton
                  ? html`<div part="actions" class="actions">
                      ${this.renderButton(step.secondaryButton, 'secondary', { fallbackAction: 'flow.skip' })}
                      ${this.renderButton(step.primaryButton, 'primary', { fallbackAction: 'flow.forward' })}
                    </div>`
                  : nothing
              }
              ${this.renderClose(flow)}
            </section>`
          : nothing
      }
    </div>`;
  }
}
