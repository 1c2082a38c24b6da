// <onboarding-checklist>: a CHECKLIST flow as a titled list of expandable steps with an "n of m" progress bar.
import { html, nothing, type PropertyValues } from 'lit';
import type { Flow, Step } from '../../flows/flow.js';
import { OnboardingElement } from '../shared/onboarding-element.js';
import baseStyles from '../shared/base.styles.js';
import styles from './checklist.styles.js';

const LOCK = html`<svg viewBox="0 0 16 16" width="12" height="12">
  <path fill="currentColor" d="M5 7V5a3 3 0 0 1 6 0v2h1v7H4V7h1zm1 0h4V5a2 2 0 0 0-4 0v2z" />
</svg>`;

/** How a checklist step shows: done, skipped, blocked (its start criteria fail), locked (an earlier step is open in a sequential list), current, or pending. */
export type ChecklistStepState = 'done' | 'skipped' | 'blocked' | 'locked' | 'current' | 'pending';

/**
 * @summary A CHECKLIST flow: a title, a progress bar showing "n of m", and expandable steps with their own buttons.
 * Blocked and locked steps cannot be opened; a sequential checklist (`sequential`, or `props.sequential` in the
 * definition) opens steps only in order. A step collapses once it is done and the next one opens. Once every step
 * is done it shows an "all done" state (`props.doneTitle`, `props.doneSubtitle`) until closed: by default when the
 * user finished on this page (`props.whenDone: show`), on every visit (`keep`), or never (`hide`).
 * @tag onboarding-checklist
 *
 * @event onboarding-action - Before a step button or the close button runs its action; cancel it to veto or take over.
 * @event onboarding-step-change - The flow or current step changed.
 *
 * @csspart base - The checklist; the "all done" state also carries `done`.
 * @csspart header - The title row.
 * @csspart title - The checklist title.
 * @csspart progress - The progress bar.
 * @csspart progress-label - The "n of m" text.
 * @csspart steps - The list of steps.
 * @csspart step - One step; it also carries `step-done`, `step-skipped`, `step-blocked`, `step-locked`, `step-current` or `step-pending`.
 * @csspart step-header - The button that opens a step.
 * @csspart step-body - The opened step's text and buttons.
 * @csspart subtitle - A step's text.
 * @csspart actions - A step's button row.
 * @csspart primary-button - A step's primary button or link.
 * @csspart secondary-button - A step's secondary button or link.
 * @csspart close-button - The dismiss button.
 *
 * @cssproperty --onboarding-surface - Background.
 * @cssproperty --onboarding-text - Text colour.
 * @cssproperty --onboarding-muted - Secondary text colour.
 * @cssproperty --onboarding-border - Border and track colour.
 * @cssproperty --onboarding-accent - Progress, button and link colour.
 * @cssproperty --onboarding-radius - Corner radius.
 * @cssproperty --onboarding-font - Font shorthand.
 */
export class OnboardingChecklist extends OnboardingElement {
  static override styles = [baseStyles, styles];
  static override properties = {
    chosen: { state: true },
    closed: { state: true },
    sequential: { type: Boolean, reflect: true },
  };

  #lastCurrent: string | undefined;
  /** The flow was unfinished on this page, so finishing it here shows the "all done" state. */
  #seen = false;

  /** The step the user opened ('' for none); undefined follows the current step. */
  private chosen: string | undefined;
  private closed = false;

  /** Steps open only in order: a step is locked until every earlier visible step is done or skipped. */
  sequential = false;

  #stepState(flow: Flow, step: Step, steps: Step[]): ChecklistStepState {
    if (step.state.completed) return 'done';
    if (step.state.skipped) return 'skipped';
    if (step.state.blocked) return 'blocked';
    const sequential = this.sequential || flow.data.props?.sequential === true;
    if (sequential && steps.some((s) => s.index < step.index && !s.state.completed && !s.state.skipped))
      return 'locked';
    return flow.currentStep?.id === step.id ? 'current' : 'pending';
  }

  protected override willUpdate(changed: PropertyValues): void {
    super.willUpdate(changed);
    // A finished step collapses as the pointer moves on: the user's choice gives way to the new current step.
    const current = this.activeFlow?.currentStep?.id;
    if (current !== this.#lastCurrent) this.chosen = undefined;
    this.#lastCurrent = current;
    if (this.activeFlow) this.#seen = !(this.closed = false);
  }

  #toggle(step: Step, stepState: ChecklistStepState, open: boolean): void {
    if (stepState === 'blocked' || stepState === 'locked') return;
    this.chosen = open ? '' : step.id;
  }

  #renderStep(flow: Flow, step: Step, steps: Step[]) {
    const stepState = this.#stepState(flow, step, steps);
    const unavailable = stepState === 'blocked' || stepState === 'locked';
    const open = !unavailable && (this.chosen === undefined ? stepState === 'current' : this.chosen === step.id);
    const label =
      stepState === 'done' ? 'completed' : stepState === 'pending' || stepState === 'current' ? undefined : stepState;
    return html`<li part="step step-${stepState}" class="step ${stepState}">
      <button
        part="step-header"
        class="step-header"
        type="button"
        aria-expanded=${open ? 'true' : 'false'}
        aria-controls="panel-${step.index}"
        aria-disabled=${unavailable ? 'true' : 'false'}
        aria-current=${stepState === 'current' ? 'step' : nothing}
        @click=${() => this.#toggle(step, stepState, open)}
      >
        <span class="marker" aria-hidden="true"
          >${stepState === 'done' ? '✓' : stepState === 'skipped' ? '–' : unavailable ? LOCK : step.index + 1}</span
        >
        <span class="step-title">${this.rich(step.title)}</span>
        ${label ? html`<span class="state">${this.t(label)}</span>` : nothing}
      </button>
      <div part="step-body" class="step-body" id="panel-${step.index}" ?hidden=${!open}>
        ${
          open
            ? html`${step.subtitle ? html`<div part="subtitle" class="text">${this.rich(step.subtitle)}</div>` : nothing}
                <div part="actions" class="actions">
                  ${this.renderButton(step.secondaryButton, 'secondary', { step, fallbackAction: 'step.skip' })}
                  ${this.renderButton(step.primaryButton, 'primary', { step, fallbackTitle: this.t('done'), fallbackAction: 'step.complete' })}
                </div>`
            : nothing
        }
      </div>
    </li>`;
  }

  #renderDone(flow: Flow) {
    const props = flow.data.props ?? {};
    return html`<section part="base done" class="surface" role="status">
      <div part="header" class="header">
        <h2 part="title" class="title">✓ ${this.plain(props.doneTitle) || this.t('allDone')}</h2>
        <button
          part="close-button"
          class="close"
          type="button"
          aria-label=${this.t('close')}
          @click=${() => (this.closed = true)}
        >
          ×
        </button>
      </div>
      ${props.doneSubtitle ? html`<p part="subtitle" class="text">${this.rich(props.doneSubtitle)}</p>` : nothing}
    </section>`;
  }

  override render() {
    const done = this.currentFlow;
    const when = done?.data.props?.whenDone;
    if (done?.isCompleted && !this.closed && when !== 'hide' && (this.#seen || when === 'keep'))
      return this.#renderDone(done);
    const flow = this.activeFlow;
    if (!flow) return nothing;
    const steps = this.visibleSteps(flow);
    const n = steps.filter((s) => s.state.completed || s.state.skipped).length;
    const m = steps.length;
    const progress = this.t('progress', { n, m });
    return html`<section part="base" class="surface" aria-labelledby="title">
      <div part="header" class="header">
        <h2 part="title" id="title" class="title">${this.rich(flow.data.title ?? flow.name)}</h2>
        <span part="progress-label" class="progress-label">${progress}</span>
        ${this.renderClose(flow)}
      </div>
      <progress part="progress" max=${m || 1} .value=${n} aria-label=${progress}></progress>
      <ol part="steps" class="steps">
        ${steps.map((step) => this.#renderStep(flow, step, steps))}
      </ol>
    </section>`;
  }
}
