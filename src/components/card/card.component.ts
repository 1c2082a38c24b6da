// <onboarding-card>: an inline card with the CARD flow's current step: media, title, text, buttons and dismiss.
import { html, nothing } from 'lit';
import { OnboardingElement } from '../shared/onboarding-element.js';
import baseStyles from '../shared/base.styles.js';
import styles from './card.styles.js';

/**
 * @summary An inline card that shows the current step of a CARD flow, with optional image or video.
 * @tag onboarding-card
 *
 * @event onboarding-action - Before a button, the close button or a link runs its action; cancel it to veto or take over.
 * @event onboarding-step-change - The flow or current step shown changed.
 *
 * @csspart base - The card.
 * @csspart media - The step's image or video.
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
 * @cssproperty --onboarding-shadow - Card shadow.
 */
export class OnboardingCard extends OnboardingElement {
  static override styles = [baseStyles, styles];

  override render() {
    const flow = this.activeFlow;
    const step = flow?.currentStep;
    return html`<div aria-live="polite">
      ${
        step
          ? html`<article part="base" class="surface" aria-labelledby="title">
              <div class="head">
                <h2 part="title" id="title" class="title">${this.rich(step.title)}</h2>
                ${this.renderClose(flow)}
              </div>
              ${this.renderMedia(step)}
              ${step.subtitle ? html`<div part="subtitle" class="text">${this.rich(step.subtitle)}</div>` : nothing}
              ${
                step.primaryButton || step.secondaryButton
                  ? html`<div part="actions" class="actions">
                      ${this.renderButton(step.secondaryButton, 'secondary', { fallbackAction: 'flow.skip' })}
                      ${this.renderButton(step.primaryButton, 'primary', { fallbackAction: 'flow.forward' })}
                    </div>`
                  : nothing
              }
            </article>`
          : nothing
      }
    </div>`;
  }
}
