// The base of <onboarding-form> and <onboarding-survey>: the current step's answers by field id, their validation, and the 0–10 scale.
import { html, nothing, type PropertyDeclarations, type PropertyValues } from 'lit';
import type { FormField } from '../../api/wire.js';
import { OnboardingElement } from '../shared/onboarding-element.js';
import { initialValue, isRequired, validateField, type FieldValue } from './validate.js';

/** How a scale is named and described, by the ids of the element's shadow root. */
export interface ScaleNames {
  /** The id of the radios' group; its end labels get `<id>-ends`. */
  id: string;
  /** The id of the element that names the scale. */
  labelledBy: string;
  /** The id of its error message, while one shows. */
  error?: string;
}

const ZERO_TO_TEN = Array.from({ length: 11 }, (_, n) => ({ value: n, label: '' }));

export class FieldsElement extends OnboardingElement {
  static override properties: PropertyDeclarations = { values: { state: true }, touched: { state: true } };

  #stepId: string | undefined;

  /** The answers of the current step, by field id; they start from each field's `value`. */
  protected values: Record<string, FieldValue> = {};
  /** The fields the user changed or left: their errors show. */
  protected touched = new Set<string>();

  protected override willUpdate(changed: PropertyValues): void {
    super.willUpdate(changed);
    const step = this.activeFlow?.currentStep;
    if (step?.id !== this.#stepId) {
      this.#stepId = step?.id;
      const fields: unknown[] = Array.isArray(step?.fields) ? step.fields : [];
      this.values = Object.fromEntries(
        fields.flatMap((field) => {
          const value =
            typeof (field as FormField | null)?.id === 'string' ? initialValue(field as FormField) : undefined;
          return value === undefined ? [] : [[(field as FormField).id, value]];
        }),
      );
      this.touched = new Set();
    }
  }

  /** The field's first problem as a message, or ''. */
  protected fieldError(field: FormField): string {
    return validateField(field, this.values[field.id], (key, values) => this.t(key, values));
  }

  protected setValue(field: FormField, value: FieldValue): void {
    this.values = { ...this.values, [field.id]: value };
    this.touched = new Set(this.touched).add(field.id);
  }

  /** Adds or takes out one choice of a list answer. */
  protected toggle(field: FormField, choice: string, on: boolean): void {
    // Read the answer now, not as rendered: two changes can land before the next render.
    const now = this.values[field.id];
    const rest = (Array.isArray(now) ? now : []).filter((value) => value !== choice);
    this.setValue(field, on ? [...rest, choice] : rest);
  }

  protected touch(field: FormField): void {
    if (!this.touched.has(field.id)) this.touched = new Set(this.touched).add(field.id);
  }

  /**
   * A row of points as a radio group, usable by keyboard (arrows move the choice): an `nps` field's 0–10 scale (its
   * `options`, else the flow's `props.options`, whole numbers from 0 to 10) with its end labels under it (the field's
   * `negativeLabel` and `positiveLabel`, else the flow's, else the built-in strings), or with `stars`, that many stars.
   */
  protected renderScale(field: FormField, names: ScaleNames, stars = 0) {
    const props = this.activeFlow?.data.props;
    const options = Array.isArray(field.options) && field.options.length ? field.options : props?.options;
    const points = stars
      ? Array.from({ length: stars }, (_, i) => ({ value: i + 1, label: '★' }))
      : (Array.isArray(options) ? options : [])
          .map((option) => ({ value: Number(option?.value), label: this.plain(option?.label) }))
          .filter((point) => Number.isInteger(point.value) && point.value >= 0 && point.value <= 10);
    const shown = points.length ? points : ZERO_TO_TEN;
    const value = this.values[field.id];
    const ends = `${names.id}-ends`;
    return html`<div
        part="scale"
        class="scale ${stars ? 'rating' : 'nps'}"
        role="radiogroup"
        aria-labelledby=${names.labelledBy}
        aria-describedby=${[stars ? '' : ends, names.error ?? ''].join(' ').trim() || nothing}
        aria-invalid=${names.error ? 'true' : nothing}
        aria-required=${isRequired(field) ? 'true' : nothing}
      >
        ${shown.map(
          (point) =>
            html`<label part="choice" class="point">
              <input
                type="radio"
                name=${names.id}
                value=${point.value}
                .checked=${value === String(point.value)}
                @change=${() => this.setValue(field, String(point.value))}
                @blur=${() => this.touch(field)}
                aria-label=${stars ? this.t('rating', { n: point.value, m: stars }) : nothing}
              />
              <span aria-hidden=${stars ? 'true' : 'false'}>${point.label || this.n(point.value)}</span>
            </label>`,
        )}
      </div>
      ${
        stars
          ? nothing
          : html`<div part="scale-labels" class="scale-labels" id=${ends} aria-hidden="true">
              <span>${this.plain(field.negativeLabel) || this.plain(props?.negativeLabel) || this.t('npsLow')}</span>
              <span>${this.plain(field.positiveLabel) || this.plain(props?.positiveLabel) || this.t('npsHigh')}</span>
            </div>`
      }`;
  }
}
