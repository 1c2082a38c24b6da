// <onboarding-survey>: a SURVEY flow as a non-modal corner popover: NPS first by default, then a free-text follow-up, or Frigade's fields.
import { html, nothing, type PropertyValues } from 'lit';
import type { FormField } from '../../api/wire.js';
import type { Step } from '../../flows/flow.js';
import { emit } from '../shared/events.js';
import { ModalSlot } from '../shared/modal-slot.js';
import baseStyles from '../shared/base.styles.js';
import { FieldsElement } from '../fields/fields-element.js';
import scaleStyles from '../fields/scale.styles.js';
import { drawnFields, fieldData, isEmpty, isList } from '../fields/validate.js';
import { SURVEY_STRINGS } from './survey.strings.js';
import styles from './survey.styles.js';

/** Survey step kinds; a step without `type` is `nps` when it is the first step and `text` after it. */
export type SurveyStepType = 'nps' | 'rating' | 'single' | 'multiple' | 'text';
const TYPES: SurveyStepType[] = ['nps', 'rating', 'single', 'multiple', 'text'];

/** One question: a step's `type` asks one, answered under `value`; a step given as fields asks one per field drawn. */
interface Question {
  kind: SurveyStepType;
  field: FormField;
}

/** The question a field is drawn as, or undefined for a field the page draws. */
function kindOf(field: FormField): SurveyStepType | undefined {
  if (field.type === 'nps') return 'nps';
  if (field.type === 'text' || field.type === 'textarea') return 'text';
  if (field.type === 'radio' || field.type === 'select') return isList(field) ? 'multiple' : 'single';
  return field.type === 'checkbox' && isList(field) ? 'multiple' : undefined;
}

/**
 * @summary A SURVEY flow in a non-modal popover in the page corner, in the top layer. Step `type` is `nps` (0–10 with
 * labels, the default first step), `rating` (1–`props.max`, default 5), `single` or `multiple` choice from
 * `options`, or `text` (the default follow-up); an answer is sent as the step's data: `{ value }`. A step given as
 * `fields` (Frigade's shape) draws each as a question: `nps` as the scale, `text` and `textarea` as the text answer,
 * `radio` and `select` as a single choice, `checkbox` with options and `select` with `multiple` as a multiple choice;
 * other types are the page's to draw and are left out. Its data is each answer under its field's `id`.
 * It takes part in the modal queue, so it never opens together with an announcement or a tour.
 * @tag onboarding-survey
 *
 * @event onboarding-action - Before submit (`step.complete` with `{ value }`, or `{ [fieldId]: answer }`), Skip or dismiss; cancel it to veto or take over.
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
 * @csspart label - A field's label, in a step given as fields.
 * @csspart error - A field's error message, in a step given as fields.
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
 * @cssproperty --onboarding-danger - Error colour.
 * @cssproperty --onboarding-radius - Corner radius.
 * @cssproperty --onboarding-font - Font shorthand.
 * @cssproperty --onboarding-shadow - Popover shadow.
 * @cssproperty --onboarding-survey-width - Popover width.
 */
export class OnboardingSurvey extends FieldsElement {
  static override styles = [baseStyles, scaleStyles, styles];
  static override properties = { announcement: { state: true } };
  static override ownStrings = SURVEY_STRINGS;

  readonly #modal = new ModalSlot(this, 'SURVEY', () => {
    const flow = this.activeFlow;
    return flow?.currentStep ? { slug: flow.slug, priority: flow.data.props?.priority } : undefined;
  });
  #opened = '';

  private announcement = '';

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#opened = '';
  }

  protected override isShowing(): boolean {
    return this.#modal.granted && super.isShowing();
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

  #questions(step: Step): Question[] {
    if (Array.isArray(step.fields)) {
      return drawnFields(step.fields).flatMap((field) => {
        const kind = kindOf(field);
        return kind ? [{ kind, field }] : [];
      });
    }
    const kind: SurveyStepType = TYPES.includes(step.type as SurveyStepType)
      ? (step.type as SurveyStepType)
      : step.index === 0
        ? 'nps'
        : 'text';
    // The step's one question as a field: its choices and the NPS scale's end labels are the step's.
    const field: FormField = {
      id: 'value',
      type: kind,
      options: kind === 'single' || kind === 'multiple' ? step.options : undefined,
      negativeLabel: step.props?.lowLabel,
      positiveLabel: step.props?.highLabel,
    };
    return [{ kind, field }];
  }

  #submit(event: Event, step: Step, questions: Question[]): void {
    event.preventDefault();
    const data = Object.fromEntries(questions.map(({ field }) => [field.id, fieldData(field, this.values[field.id])]));
    this.act('step.complete', 'submit', step, data);
  }

  #onKeydown(event: KeyboardEvent): void {
    if (event.key !== 'Escape' || this.activeFlow?.data.props?.dismissible === false) return;
    event.preventDefault();
    this.act('flow.skip', 'escape');
  }

  /** One question, named by its field's label, else by the step's title. */
  #renderQuestion({ kind, field }: Question, index: number, step: Step) {
    const id = `q${index}`;
    const label = this.plain(field.label);
    const labelledBy = label ? `${id}-label` : 'title';
    const error = this.touched.has(field.id) ? this.fieldError(field) : '';
    const names = { id, labelledBy, error: error ? `${id}-error` : undefined };
    const value = this.values[field.id];
    let answer;
    if (kind === 'nps' || kind === 'rating') {
      answer = this.renderScale(
        field,
        names,
        kind === 'rating' ? Math.min(Math.max(Number(step.props?.max) || 5, 2), 10) : 0,
      );
    } else if (kind === 'text') {
      answer = html`<textarea
        part="input"
        aria-labelledby=${labelledBy}
        aria-describedby=${names.error ?? nothing}
        aria-invalid=${error ? 'true' : nothing}
        placeholder=${this.plain(field.placeholder) || nothing}
        .value=${typeof value === 'string' ? value : ''}
        @input=${(event: Event) => this.setValue(field, (event.target as HTMLTextAreaElement).value)}
        @blur=${() => this.touch(field)}
      ></textarea>`;
    } else {
      const options = Array.isArray(field.options) ? field.options : [];
      const chosen = Array.isArray(value) ? value : [];
      answer = html`<div
        class="options"
        role=${kind === 'multiple' ? 'group' : 'radiogroup'}
        aria-labelledby=${labelledBy}
        aria-describedby=${names.error ?? nothing}
      >
        ${options.map((option) => {
          const choice = String(option.value);
          return html`<label part="choice" class="option">
            <input
              type=${kind === 'single' ? 'radio' : 'checkbox'}
              name=${id}
              value=${choice}
              .checked=${kind === 'single' ? value === choice : chosen.includes(choice)}
              @change=${(event: Event) => {
                const checked = (event.target as HTMLInputElement).checked;
                if (kind === 'single') this.setValue(field, choice);
                else this.toggle(field, choice, checked);
              }}
            />
            <span>${this.plain(option.label)}</span>
          </label>`;
        })}
      </div>`;
    }
    return html`${label ? html`<span part="label" class="label" id=${labelledBy}>${label}</span>` : nothing}${answer}
    ${error ? html`<p part="error" class="error" id=${names.error}>${error}</p>` : nothing}`;
  }

  override render() {
    const flow = this.activeFlow;
    const step = flow?.currentStep;
    const live = html`<div class="visually-hidden" aria-live="polite">${this.announcement}</div>`;
    if (!flow || !step || !this.#modal.granted) return live;
    const questions = this.#questions(step);
    // Submit waits for an answer (any, when the step asks several) and for every answer to be valid.
    const disabled =
      (questions.length > 0 && questions.every(({ field }) => isEmpty(this.values[field.id]))) ||
      questions.some(({ field }) => this.fieldError(field));
    return html`${live}
      <form
        part="base"
        class="surface"
        popover="manual"
        role="dialog"
        aria-labelledby="title"
        @keydown=${this.#onKeydown}
        @submit=${(event: Event) => this.#submit(event, step, questions)}
      >
        <div class="head">
          <h2 part="title" id="title" class="title">${step.title ? this.rich(step.title) : flow.name}</h2>
          ${this.renderClose(flow)}
        </div>
        ${step.subtitle ? html`<div part="subtitle" class="text">${this.rich(step.subtitle)}</div>` : nothing}
        ${questions.map((question, index) => this.#renderQuestion(question, index, step))}
        <div part="actions" class="actions">
          ${
            step.secondaryButton
              ? this.renderButton(step.secondaryButton, 'secondary', { step, fallbackAction: 'step.skip' })
              : questions.every(({ kind }) => kind === 'text')
                ? this.renderButton(undefined, 'secondary', {
                    step,
                    fallbackTitle: this.t('skip'),
                    fallbackAction: 'step.skip',
                  })
                : nothing
          }
          <button part="primary-button" class="button primary" type="submit" ?disabled=${disabled}>
            ${this.plain(step.primaryButton?.title) || this.t('submit')}
          </button>
        </div>
      </form>`;
  }
}
