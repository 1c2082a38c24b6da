// <onboarding-banner>: an inline bar showing the banner flow's current step.
import { LitElement, html, nothing } from 'lit';
import { property } from 'lit/decorators.js';
import { $flows } from '../../stores/flows.js';
import { StoreController } from '../shared/store-controller.js';
import styles from './banner.styles.js';

/**
 * @summary An inline bar that shows the current step of a BANNER flow.
 * @tag onboarding-banner
 *
 * @csspart base - The bar.
 * @csspart title - The step title.
 * @csspart subtitle - The step subtitle.
 *
 * @cssproperty --onboarding-surface - Background.
 * @cssproperty --onboarding-text - Text colour.
 * @cssproperty --onboarding-muted - Subtitle colour.
 * @cssproperty --onboarding-border - Border colour.
 * @cssproperty --onboarding-radius - Corner radius.
 * @cssproperty --onboarding-font - Font shorthand.
 */
export class OnboardingBanner extends LitElement {
  static override styles = styles;

  private readonly flows = new StoreController(this, $flows);

  /** Slug of the flow to show. */
  @property({ reflect: true }) flow = '';

  override render() {
    const flow = this.flows.value[this.flow];
    const step = flow?.isVisible ? flow.currentStep : undefined;
    if (!step) return nothing;
    return html`
      <div part="base" role="region" aria-label=${step.title ?? flow!.name}>
        <div>
          <p part="title">${step.title}</p>
          ${step.subtitle ? html`<p part="subtitle">${step.subtitle}</p>` : nothing}
        </div>
      </div>
    `;
  }
}
