// <onboarding-survey>: a SURVEY flow as a non-modal corner popover: NPS first by default, then a free-text follow-up.
import { html, nothing, type PropertyValues } from 'lit';
import type { Step } from '../../flows/flow.js';
import { emit } from '../shared/events.js';
import { ModalSlot } from '../shared/modal-slot.js';
import { OnboardingElement } from '../shared/onboarding-element.js';
import baseStyles from '../shared/base.styles.js';
import { SURVEY_STRINGS } from './survey.strings.js';
import styles from './survey.styles.js';

/** Survey step kinds; a step without `type` is `nps` when it is the first step and `text` after it. */
export type SurveyStepType = 'nps' | 'rating' | 'single' | 'multiple' | 'text';
const TYPES: SurveyStepType[] = ['nps', 'rating', 'single', 'multiple', 'text'];

/**
 * @summary A SURVEY flow in a non-modal popover in the page corner, in the top layer. Step `type` is `nps` (0–10 with
 * labels, the default first step), `rating` (1–`props.max`, default 5), `single` or `multiple` choice from
 * `options`, or `text` (the default follow-up). An answer is sent as the step's data: `{ value }`.
 * It takes part in the modal queue, so it never opens together with an announcement or a tour.
 * @tag onboarding-survey
 *
 * @event onboarding-action - Before submit (`step.complete` with `{ value }`), Skip or dismiss; cancel it to veto or take over.
 * @event onboarding-show - The popover opened.
 * @event onboarding-hide - The popover closed.
 * @event onboarding-step-change - The flow or current step changed.
 *
 * @csspart base - The popover.
 * @csspart title - The question.
 * @csspart subtitle - The step text.
 * @csspart scale - The row of NPS or rating choices.
 * @csspart choice - One choice.
 * @csspart scale-labels - The low and high labels under the NPS scale.
 * @csspart input - The free-text answer.
 * @csspart actions - The button row.
 * @csspart primary-button - The submit button.
 * @csspart secondary-button - The Skip button or the step's secondary button.
 * @csspart close-button - The dismiss button.
 *
 * @cssproperty --onboarding-surface - Background.
 * @cssproperty --onboarding-text - Text colour.
 * @cssproperty --onboarding-muted - Secondary text colour.
 * @cssproperty --onboarding-border - Border colour.
 * @cssproperty --onboarding-accent - Selected choice and button colour.
 * @cssproperty --onboarding-radius - Corner radius.
 * @cssproperty --onboarding-font - Font shorthand.
 * @cssproperty --onboarding-shadow - Popover shadow.
 * @cssproperty --onboarding-survey-width - Popover width.
 */
export class OnboardingSurvey extends OnboardingElement {
  static override styles = [baseStyles, styles];
  static override properties = { answer: { state: true }, announcement: { state: true } };
  static override ownStrings = SURVEY_STRINGS;

  readonly #modal = new ModalSlot(this, 'SURVEY', () => {
    const flow = this.activeFlow;
    return flow?.currentStep ? { slug: flow.slug, priority: flow.data.props?.priority } : undefined;
  });
  #stepId: string | undefined;
  #opened = '';

  private answer: string | string[] = '';
  private announcement = '';

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#opened = '';
  }

  protected override isShowing(): boolean {
    return this.#modal.granted && super.isShowing();
  }

  protected override willUpdate(changed: PropertyValues): void {
    super.willUpdate(changed);
    const id = this.activeFlow?.currentStep?.id;
    if (id !== this.#stepId) {
      this.#stepId = id;
      this.answer = '';
    }
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    const popover = this.find<HTMLElement>('[part="base"]');
    if (popover && !this.#opened) {
      try {
        popover.showPopover?.();
      } catch {
        // Without the Popover API the element is fixed in the corner by its styles instead.
      }
      this.#opened = this.activeFlow!.slug;
      // Non-modal: focus stays where the user is, and the question is announced politely.
      this.announcement = this.plain(this.activeFlow!.currentStep?.title) || this.activeFlow!.name;
      emit(this, 'onboarding-show', { flowSlug: this.#opened });
    } else if (!popover && this.#opened) {
      emit(this, 'onboarding-hide', { flowSlug: this.#opened });
      this.#opened = '';
      this.announcement = '';
    }
  }

  #kind(step: Step): SurveyStepType {
    if (TYPES.includes(step.type as SurveyStepType)) return step.type as SurveyStepType;
    return step.index === 0 ? 'nps' : 'text';
  }

  #submit(event: Event, step: Step): void {
    event.preventDefault();
    const value = this.#kind(step) === 'nps' || this.#kind(step) === 'rating' ? Number(this.answer) : this.answer;
    this.act('step.complete', 'submit', step, { value });
  }

  #onKeydown(event: KeyboardEvent): void {
    if (event.key !== 'Escape' || this.activeFlow?.data.props?.dismissible === false) return;
    event.preventDefault();
    this.act('flow.skip', 'escape');
  }

  #renderScale(step: Step, kind: 'nps' | 'rating') {
    const max = kind === 'nps' ? 10 : Math.min(Math.max(Number(step.props?.max) || 5, 2), 10);
    const values = Array.from({ length: kind === 'nps' ? 11 : max }, (_, i) => (kind === 'nps' ? i : i + 1));
    return html`<div part="scale" class="scale ${kind}">
        ${values.map(
          (v) => html`<label part="choice" class="choice">
            <input type="radio" name="answer" value=${v} .checked=${this.answer === String(v)} @change=${() => (this.answer = String(v))}
              aria-label=${kind === 'rating' ? this.t('rating', { n: v, m: max }) : nothing} />
            <span aria-hidden=${kind === 'rating' ? 'true' : 'false'}>${kind === 'rating' ? '★' : v}</span>
          </label>`,
        )}
      </div>
      ${kind === 'nps'
        ? html`<div part="scale-labels" class="scale-labels" aria-hidden="true">
            <span>${this.plain(step.props?.lowLabel) || this.t('npsLow')}</span><span>${this.plain(step.props?.highLabel) || this.t('npsHigh')}</span>
          </div>`
        : nothing}`;
  }

  #renderAnswer(step: Step, kind: SurveyStepType) {
    if (kind === 'nps' || kind === 'rating') return this.#renderScale(step, kind);
    if (kind === 'text') {
      return html`<textarea part="input" aria-labelledby="title" .value=${typeof this.answer === 'string' ? this.answer : ''}
        @input=${(event: Event) => (this.answer = (event.target as HTMLTextAreaElement).value)}></textarea>`;
    }
    const options = Array.isArray(step.options) ? (step.options as Array<{ value: unknown; label: unknown }>) : [];
    const chosen = Array.isArray(this.answer) ? this.answer : [];
    return html`<div class="options">
      ${options.map((option) => {
        const value = String(option.value);
        return html`<label part="choice" class="option">
          <input type=${kind === 'single' ? 'radio' : 'checkbox'} name="answer" value=${value}
            .checked=${kind === 'single' ? this.answer === value : chosen.includes(value)}
            @change=${(event: Event) => {
              const checked = (event.target as HTMLInputElement).checked;
              // Read the answer now, not as rendered: two changes can land before the next render.
              const now = Array.isArray(this.answer) ? this.answer.filter((v) => v !== value) : [];
              this.answer = kind === 'single' ? value : checked ? [...now, value] : now;
            }} />
          <span>${this.plain(option.label)}</span>
        </label>`;
      })}
    </div>`;
  }

  override render() {
    const flow = this.activeFlow;
    const step = flow?.currentStep;
    const live = html`<div class="visually-hidden" aria-live="polite">${this.announcement}</div>`;
    if (!flow || !step || !this.#modal.granted) return live;
    const kind = this.#kind(step);
    const empty = Array.isArray(this.answer) ? this.answer.length === 0 : this.answer === '';
    const grouped = kind !== 'text';
    return html`${live}
      <form part="base" class="surface" popover="manual" role="dialog" aria-labelledby="title" @keydown=${this.#onKeydown}
        @submit=${(event: Event) => this.#submit(event, step)}>
        <div class="head">
          <h2 part="title" id="title" class="title">${step.title ? this.rich(step.title) : flow.name}</h2>
          ${this.renderClose(flow)}
        </div>
        ${step.subtitle ? html`<div part="subtitle" class="text">${this.rich(step.subtitle)}</div>` : nothing}
        ${grouped
          ? html`<div role=${kind === 'multiple' ? 'group' : 'radiogroup'} aria-labelledby="title">${this.#renderAnswer(step, kind)}</div>`
          : this.#renderAnswer(step, kind)}
        <div part="actions" class="actions">
          ${step.secondaryButton
            ? this.renderButton(step.secondaryButton, 'secondary', { step, fallbackAction: 'step.skip' })
            : kind === 'text'
              ? this.renderButton(undefined, 'secondary', { step, fallbackTitle: this.t('skip'), fallbackAction: 'step.skip' })
              : nothing}
          <button part="primary-button" class="button primary" type="submit" ?disabled=${empty}>
            ${this.plain(step.primaryButton?.title) || this.t('submit')}
          </button>
        </div>
      </form>`;
  }
}
