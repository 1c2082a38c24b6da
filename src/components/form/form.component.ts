// <onboarding-form>: a FORM flow's current step as fields with accessible validation; the values go as the step's data.
import { html, nothing } from 'lit';
import type { FormField } from '../../api/wire.js';
import baseStyles from '../shared/base.styles.js';
import { FieldsElement } from '../fields/fields-element.js';
import scaleStyles from '../fields/scale.styles.js';
import { drawnFields, fieldData, isList, isRequired, rule } from '../fields/validate.js';
import { FORM_STRINGS } from './form.strings.js';
import styles from './form.styles.js';

/**
 * @summary A FORM flow: one step of fields at a time (text, textarea, email, number, select, radio, checkbox, and
 * `nps`, a 0–10 scale) with required, pattern, length and range rules, in our shapes or Frigade's. A field of any other
 * type is the page's to draw: it is left out and never blocks submitting. Submit stays disabled while a field is
 * invalid; the values are sent as the step's data, and steps whose visibility depends on an answer appear or not
 * after the service answers.
 * @tag onboarding-form
 *
 * @event onboarding-action - Before submit (`step.complete` with the values as `data`), Back or dismiss; cancel it to veto or take over.
 * @event onboarding-step-change - The flow or current step changed.
 *
 * @csspart base - The form.
 * @csspart title - The step title.
 * @csspart subtitle - The step text.
 * @csspart counter - The "Step n of m" text of multi-step forms.
 * @csspart field - One field's wrapper.
 * @csspart label - A field label.
 * @csspart input - An input, textarea or select.
 * @csspart scale - The points of an `nps` field.
 * @csspart choice - One point of the scale.
 * @csspart scale-labels - The labels under the scale's ends.
 * @csspart error - A field's error message.
 * @csspart actions - The button row.
 * @csspart primary-button - The submit button.
 * @csspart secondary-button - The Back button or the step's secondary button.
 * @csspart close-button - The dismiss button.
 *
 * @cssproperty --onboarding-surface - Background.
 * @cssproperty --onboarding-text - Text colour.
 * @cssproperty --onboarding-muted - Secondary text colour.
 * @cssproperty --onboarding-border - Border and input border colour.
 * @cssproperty --onboarding-accent - Button colour.
 * @cssproperty --onboarding-danger - Error colour.
 * @cssproperty --onboarding-radius - Corner radius.
 * @cssproperty --onboarding-font - Font shorthand.
 */
export class OnboardingForm extends FieldsElement {
  static override styles = [baseStyles, scaleStyles, styles];
  static override ownStrings = FORM_STRINGS;

  #fields(): FormField[] {
    return drawnFields(this.activeFlow?.currentStep?.fields);
  }

  #submit(event: Event): void {
    event.preventDefault();
    const fields = this.#fields();
    if (fields.some((field) => this.fieldError(field))) {
      this.touched = new Set(fields.map((field) => field.id));
      return;
    }
    const data = Object.fromEntries(fields.map((field) => [field.id, fieldData(field, this.values[field.id])]));
    this.act('step.complete', 'submit', undefined, data);
  }

  /** A field's control, named by `names`: the id of what names it, or, for a field without a label, the name itself. */
  #renderControl(
    field: FormField,
    index: number,
    describedBy: string | undefined,
    names: { by?: string; name?: string },
  ) {
    const id = `f${index}`;
    const value = this.values[field.id];
    const text = typeof value === 'string' ? value : '';
    const options = Array.isArray(field.options) ? field.options : [];
    const aria = describedBy ? 'true' : 'false';
    const describe = describedBy ?? nothing;
    const by = names.by ?? nothing;
    const label = names.name ?? nothing;
    const required = isRequired(field);
    const onText = (event: Event) => this.setValue(field, (event.target as HTMLInputElement).value);
    switch (field.type) {
      case 'nps':
        return this.renderScale(field, { id, labelledBy: names.by ?? `l${index}`, error: describedBy });
      case 'textarea':
        return html`<textarea
          part="input"
          id=${id}
          .value=${text}
          ?required=${required}
          aria-invalid=${aria}
          aria-describedby=${describe}
          aria-labelledby=${by}
          aria-label=${label}
          placeholder=${this.plain(field.placeholder) || nothing}
          @input=${onText}
          @blur=${() => this.touch(field)}
        ></textarea>`;
      case 'select': {
        const list = isList(field);
        const chosen = Array.isArray(value) ? value : [text];
        return html`<select
          part="input"
          id=${id}
          ?multiple=${list}
          ?required=${required}
          aria-invalid=${aria}
          aria-describedby=${describe}
          aria-labelledby=${by}
          aria-label=${label}
          @change=${(event: Event) => {
            const select = event.target as HTMLSelectElement;
            this.setValue(
              field,
              list ? [...select.options].flatMap((option) => (option.selected ? [option.value] : [])) : select.value,
            );
          }}
          @blur=${() => this.touch(field)}
        >
          ${list ? nothing : html`<option value="" ?selected=${!text}>${this.plain(field.placeholder)}</option>`}
          ${options.map((option) => html`<option value=${String(option.value)} ?selected=${chosen.includes(String(option.value))}>${this.plain(option.label)}</option>`)}
        </select>`;
      }
      case 'radio':
      case 'checkbox': {
        if (field.type === 'checkbox' && !options.length) {
          return html`<input
            part="input"
            type="checkbox"
            id=${id}
            .checked=${value === true}
            ?required=${required}
            aria-invalid=${aria}
            aria-describedby=${describe}
            aria-labelledby=${by}
            aria-label=${label}
            @change=${(event: Event) => this.setValue(field, (event.target as HTMLInputElement).checked)}
          />`;
        }
        const selected = Array.isArray(value) ? value : [];
        return html`<div
          class="choices"
          role=${field.type === 'radio' ? 'radiogroup' : 'group'}
          aria-labelledby=${by}
          aria-label=${label}
          aria-describedby=${describe}
          aria-invalid=${field.type === 'radio' ? aria : nothing}
          aria-required=${field.type === 'radio' && required ? 'true' : nothing}
        >
          ${options.map(
            (option, i) =>
              html`<label class="choice">
                <input
                  part="input"
                  type=${field.type}
                  name=${id}
                  value=${String(option.value)}
                  .checked=${field.type === 'radio' ? text === String(option.value) : selected.includes(String(option.value))}
                  @change=${(event: Event) => {
                    const input = event.target as HTMLInputElement;
                    if (field.type === 'radio') this.setValue(field, input.value);
                    else this.toggle(field, input.value, input.checked);
                  }}
                  @blur=${() => this.touch(field)}
                  id=${`${id}-${i}`}
                />
                <span>${this.plain(option.label)}</span>
              </label>`,
          )}
        </div>`;
      }
      default: {
        const min = rule(field.min).value;
        const max = rule(field.max).value;
        return html`<input
          part="input"
          id=${id}
          type=${field.type === 'email' || field.type === 'number' ? field.type : 'text'}
          .value=${text}
          ?required=${required}
          aria-invalid=${aria}
          aria-describedby=${describe}
          aria-labelledby=${by}
          aria-label=${label}
          placeholder=${this.plain(field.placeholder) || nothing}
          min=${field.type === 'number' && typeof min === 'number' ? min : nothing}
          max=${field.type === 'number' && typeof max === 'number' ? max : nothing}
          @input=${onText}
          @blur=${() => this.touch(field)}
        />`;
      }
    }
  }

  /** One field; `titled` says the step's title names a field without a label (the step's only field). */
  #renderField(field: FormField, index: number, titled: boolean) {
    const error = this.fieldError(field);
    const shown = Boolean(error) && this.touched.has(field.id);
    const grouped =
      field.type === 'nps' ||
      ((field.type === 'radio' || field.type === 'checkbox') &&
        Array.isArray(field.options) &&
        field.options.length > 0);
    const text = this.plain(field.label);
    const label = html`${text}${isRequired(field) ? html`<span class="required" aria-hidden="true"> *</span>` : nothing}`;
    // Without a label, a scale or a step's only field is named by the step's title, any other by its placeholder or id.
    const names = text
      ? { by: grouped ? `l${index}` : undefined }
      : field.type === 'nps' || titled
        ? { by: 'title' }
        : { name: this.plain(field.placeholder) || field.id };
    return html`<div part="field" class="field ${field.type}">
      ${!text ? nothing : grouped ? html`<span part="label" class="label" id="l${index}">${label}</span>` : html`<label part="label" class="label" for="f${index}" id="l${index}">${label}</label>`}
      ${this.#renderControl(field, index, shown ? `e${index}` : undefined, names)}
      ${shown ? html`<p part="error" class="error" id="e${index}">${error}</p>` : nothing}
    </div>`;
  }

  override render() {
    const flow = this.activeFlow;
    const step = flow?.currentStep;
    if (!flow || !step) return nothing;
    const steps = this.visibleSteps(flow);
    const n = steps.findIndex((s) => s.id === step.id) + 1;
    const m = steps.length;
    const fields = this.#fields();
    const invalid = fields.some((field) => this.fieldError(field));
    // As Frigade's NPS survey names its comment box: the flow checks let a step's only field go without a label.
    const titled = Array.isArray(step.fields) && step.fields.length === 1 && Boolean(step.title);
    return html`<form part="base" class="surface" aria-labelledby="title" novalidate @submit=${this.#submit}>
      <div class="head">
        <h2 part="title" id="title" class="title">${step.title ? this.rich(step.title) : flow.name}</h2>
        ${this.renderClose(flow)}
      </div>
      ${m > 1 ? html`<span part="counter" class="counter">${this.t('stepOf', { n, m })}</span>` : nothing}
      ${step.subtitle ? html`<div part="subtitle" class="text">${this.rich(step.subtitle)}</div>` : nothing}
      ${fields.map((field, index) => this.#renderField(field, index, titled))}
      <div part="actions" class="actions">
        ${
          step.secondaryButton
            ? this.renderButton(step.secondaryButton, 'secondary', { fallbackAction: 'flow.skip' })
            : n > 1
              ? this.renderButton(undefined, 'secondary', {
                  fallbackTitle: this.t('back'),
                  fallbackAction: 'flow.back',
                })
              : nothing
        }
        <button part="primary-button" class="button primary" type="submit" ?disabled=${invalid}>
          ${this.plain(step.primaryButton?.title) || this.t(n < m ? 'next' : 'submit')}
        </button>
      </div>
    </form>`;
  }
}
