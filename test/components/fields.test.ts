// Frigade's field shapes in <onboarding-form> and <onboarding-survey>: the nps scale, validation rules with messages, multiple selects, initial values, unknown types, and survey steps given as fields.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixture, fixtureCleanup, html } from '@open-wc/testing-helpers';
import { registerElements } from '../../src/components/register.js';
import { $flows } from '../../src/stores/flows.js';
import { $elementOptions } from '../../src/stores/options.js';
import type { OnboardingForm } from '../../src/components/form/form.component.js';
import type { OnboardingSurvey } from '../../src/components/survey/survey.component.js';
import type { FlowData, FormField } from '../../src/api/wire.js';
import { q, qa, recordingFlow, resetStores, seedFlow, tick, type RecordedCall } from '../support/component-stores.js';

beforeAll(() => registerElements());
beforeEach(() => $elementOptions.set({ autoMount: false }));
afterEach(() => {
  fixtureCleanup();
  resetStores();
});

const text = (el: Element, selector: string) => q(el, selector)?.textContent?.replace(/\s+/g, ' ').trim();
/** The text of the element an `aria-labelledby` points at. */
const labelOf = (el: Element, control: HTMLElement) => text(el, `#${control.getAttribute('aria-labelledby')}`);
const submitButton = (el: Element) => q(el, '[part="primary-button"]') as HTMLButtonElement;

async function typeInto(el: OnboardingForm, selector: string, value: string): Promise<void> {
  const input = q(el, selector) as HTMLInputElement;
  input.value = value;
  input.dispatchEvent(new Event('input'));
  await el.updateComplete;
}

async function check(el: OnboardingForm | OnboardingSurvey, selector: string): Promise<void> {
  const input = q(el, selector) as HTMLInputElement;
  input.checked = true;
  input.dispatchEvent(new Event('change'));
  await el.updateComplete;
}

/** A one-step form of these fields, drawn with its actions recorded. */
async function form(
  fields: FormField[],
  props: FlowData['props'] = {},
): Promise<{ el: OnboardingForm; calls: RecordedCall[] }> {
  seedFlow('f', 'FORM', { props, steps: [{ id: 's', title: 'How likely are you to recommend us?', fields }] });
  const calls: RecordedCall[] = [];
  const el = await fixture<OnboardingForm>(
    html`<onboarding-form flow="f" .currentFlow=${recordingFlow($flows.get().f, calls)}></onboarding-form>`,
  );
  return { el, calls };
}

async function submit(el: OnboardingForm | OnboardingSurvey): Promise<void> {
  q(el, 'form')!.dispatchEvent(new Event('submit', { cancelable: true }));
  await el.updateComplete;
  await Promise.resolve();
}

describe('<onboarding-form> with Frigade fields', () => {
  it("draws an nps field as a 0–10 radio group named by its label, with the field's end labels under it, and sends the score as a number", async () => {
    const { el, calls } = await form([
      { id: 'score', type: 'nps', label: 'Your score', negativeLabel: 'Never', positiveLabel: 'Surely' },
    ]);
    const group = q(el, '[part="scale"]')!;
    expect(group.getAttribute('role')).toBe('radiogroup');
    expect(labelOf(el, group)).toBe('Your score');
    const points = qa(el, '[part="scale"] input') as HTMLInputElement[];
    expect(points.map((point) => point.value)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    // Native radios of one name: Tab reaches the group, the arrow keys move the choice.
    expect(
      points.every((point) => point.type === 'radio' && point.name === points[0].name && point.tabIndex === 0),
    ).toBe(true);
    const ends = q(el, '[part="scale-labels"]')!;
    expect([...ends.children].map((end) => end.textContent)).toEqual(['Never', 'Surely']);
    expect(group.getAttribute('aria-describedby')).toBe(ends.id);
    await check(el, 'input[value="9"]');
    await submit(el);
    expect(calls.at(-1)).toEqual({ action: 'step.complete', stepId: 's', data: { score: 9 } });
  });

  it("writes the scale's points in the locale's digits, and still sends the score as a number", async () => {
    $elementOptions.set({ ...$elementOptions.get(), locale: 'ar-EG' });
    const { el, calls } = await form([{ id: 'score', type: 'nps', label: 'Your score' }]);
    const shown = qa(el, '[part="scale"] .point span').map((point) => point.textContent);
    expect(shown).toEqual(['٠', '١', '٢', '٣', '٤', '٥', '٦', '٧', '٨', '٩', '١٠']);
    expect((qa(el, '[part="scale"] input') as HTMLInputElement[]).map((point) => point.value)).toEqual([
      '0',
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
    ]);
    await check(el, 'input[value="7"]');
    await submit(el);
    expect(calls.at(-1)).toEqual({ action: 'step.complete', stepId: 's', data: { score: 7 } });
  });

  it("names an nps field without a label by the step's title, and takes its ends and points from the flow's props, else the built-in strings", async () => {
    const options = [0, 5, 10].map((n) => ({ value: String(n), label: `${n}!` }));
    const { el } = await form([{ id: 'score', type: 'nps' }], { positiveLabel: 'Of course', options });
    expect(labelOf(el, q(el, '[part="scale"]')!)).toBe('How likely are you to recommend us?');
    expect(qa(el, '[part="scale"] input').map((point) => (point as HTMLInputElement).value)).toEqual(['0', '5', '10']);
    expect(qa(el, '[part="scale"] span').map((point) => point.textContent)).toEqual(['0!', '5!', '10!']);
    expect(qa(el, '[part="scale-labels"] span').map((end) => end.textContent)).toEqual(['Not likely', 'Of course']);
    fixtureCleanup();
    const plain = await form([{ id: 'score', type: 'nps', negativeLabel: 'Nope' }]);
    expect(qa(plain.el, '[part="scale-labels"] span').map((end) => end.textContent)).toEqual(['Nope', 'Very likely']);
    plain.el.strings = { npsHigh: 'Sehr wahrscheinlich' };
    await plain.el.updateComplete;
    expect(qa(plain.el, '[part="scale-labels"] span').map((end) => end.textContent)).toEqual([
      'Nope',
      'Sehr wahrscheinlich',
    ]);
  });

  it('shows a required message given as text, and keeps submit disabled until the scale is answered', async () => {
    const { el } = await form([{ id: 'score', type: 'nps', required: 'Pick a score, please.' }]);
    expect(submitButton(el).disabled).toBe(true);
    q(el, 'input[value="0"]')!.dispatchEvent(new Event('blur'));
    await el.updateComplete;
    const error = q(el, '[part="error"]')!;
    expect(error.textContent).toBe('Pick a score, please.');
    expect(q(el, '[part="scale"]')!.getAttribute('aria-describedby')).toBe(
      `${q(el, '[part="scale-labels"]')!.id} ${error.id}`,
    );
    expect(q(el, '[part="scale"]')!.getAttribute('aria-invalid')).toBe('true');
    await check(el, 'input[value="3"]');
    expect(q(el, '[part="error"]')).toBeNull();
    expect(submitButton(el).disabled).toBe(false);
  });

  it('reads required as { value, message } too, and { value: false } as not required', async () => {
    const { el, calls } = await form([
      { id: 'name', type: 'text', label: 'Name', required: { value: true, message: 'Your name, please.' } },
      { id: 'nick', type: 'text', label: 'Nickname', required: { value: false, message: 'Unused.' } },
    ]);
    expect((q(el, '#f0') as HTMLInputElement).required).toBe(true);
    expect((q(el, '#f1') as HTMLInputElement).required).toBe(false);
    expect(qa(el, '.required')).toHaveLength(1);
    await submit(el);
    expect(text(el, '#e0')).toBe('Your name, please.');
    expect(q(el, '#e1')).toBeNull();
    await typeInto(el, '#f0', 'Ada');
    await submit(el);
    expect(calls.at(-1)).toEqual({ action: 'step.complete', stepId: 's', data: { name: 'Ada', nick: '' } });
  });

  it('shows the message of a { value, message } rule, and the built-in one for a rule given alone', async () => {
    const { el } = await form([
      {
        id: 'name',
        type: 'text',
        label: 'Name',
        minLength: { value: 3, message: 'Three letters or more.' },
        maxLength: 5,
      },
      {
        id: 'seats',
        type: 'number',
        label: 'Seats',
        min: { value: 1, message: 'At least one seat.' },
        max: { value: 50, message: 'Fifty at most.' },
      },
    ]);
    await typeInto(el, '#f0', 'Al');
    expect(text(el, '#e0')).toBe('Three letters or more.');
    await typeInto(el, '#f0', 'Alexandra');
    expect(text(el, '#e0')).toBe('Use at most 5 characters.');
    await typeInto(el, '#f0', 'Alex');
    expect(q(el, '#e0')).toBeNull();
    await typeInto(el, '#f1', '0');
    expect(text(el, '#e1')).toBe('At least one seat.');
    expect((q(el, '#f1') as HTMLInputElement).getAttribute('min')).toBe('1');
    await typeInto(el, '#f1', '51');
    expect(text(el, '#e1')).toBe('Fifty at most.');
    await typeInto(el, '#f1', '12');
    expect(submitButton(el).disabled).toBe(false);
  });

  it("reads Frigade's /…/ pattern without its slashes, matching the whole value as any pattern does, with its own message", async () => {
    const { el } = await form([
      { id: 'code', type: 'text', label: 'Code', pattern: { value: '/[0-9]{2}/', message: 'Two digits.' } },
      { id: 'team', type: 'text', label: 'Team', pattern: '[a-z]+' },
      { id: 'broken', type: 'text', label: 'Broken', pattern: '/(/' },
    ]);
    await typeInto(el, '#f0', 'ab12cd');
    expect(text(el, '#e0')).toBe('Two digits.');
    await typeInto(el, '#f0', '42');
    expect(q(el, '#e0')).toBeNull();
    await typeInto(el, '#f1', 'core team');
    expect(text(el, '#e1')).toBe('Please check this value.');
    await typeInto(el, '#f1', 'core');
    expect(q(el, '#e1')).toBeNull();
    // A pattern that does not compile is the definition's mistake: it blocks nobody.
    await typeInto(el, '#f2', 'anything');
    expect(q(el, '#e2')).toBeNull();
    expect(submitButton(el).disabled).toBe(false);
  });

  it('sends a select with multiple as a list, and starts each field from its value', async () => {
    const { el, calls } = await form([
      {
        id: 'tools',
        type: 'select',
        label: 'Tools',
        multiple: true,
        value: 'jira',
        options: ['jira', 'linear', 'github'].map((value) => ({ value, label: value })),
      },
      {
        id: 'role',
        type: 'radio',
        label: 'Role',
        value: 'dev',
        options: [
          { value: 'dev', label: 'Developer' },
          { value: 'pm', label: 'Product' },
        ],
      },
      { id: 'city', type: 'text', label: 'City', value: 'Lyon' },
    ]);
    const select = q(el, 'select') as HTMLSelectElement;
    expect(select.multiple).toBe(true);
    expect([...select.options].filter((option) => option.selected).map((option) => option.value)).toEqual(['jira']);
    expect((q(el, 'input[value="dev"]') as HTMLInputElement).checked).toBe(true);
    expect((q(el, '#f2') as HTMLInputElement).value).toBe('Lyon');
    for (const option of select.options) option.selected = option.value !== 'jira';
    select.dispatchEvent(new Event('change'));
    await el.updateComplete;
    await submit(el);
    expect(calls.at(-1)).toEqual({
      action: 'step.complete',
      stepId: 's',
      data: { tools: ['linear', 'github'], role: 'dev', city: 'Lyon' },
    });
  });

  it('leaves out a field of a type no element of ours draws: it is not drawn and never blocks submitting', async () => {
    const { el, calls } = await form([
      { id: 'when', type: 'calendar', label: 'When?', required: true, props: { days: 7 } },
      { id: 'name', type: 'text', label: 'Name' },
    ]);
    expect(qa(el, '[part="field"]')).toHaveLength(1);
    expect(text(el, '[part="label"]')).toBe('Name');
    expect(submitButton(el).disabled).toBe(false);
    await submit(el);
    expect(calls.at(-1)).toEqual({ action: 'step.complete', stepId: 's', data: { name: '' } });
  });

  it("names a step's only field without a label by the step's title, as the flow checks allow", async () => {
    const { el } = await form([{ id: 'feedback', type: 'textarea', placeholder: 'Your feedback' }]);
    expect(q(el, '[part="label"]')).toBeNull();
    expect(labelOf(el, q(el, '#f0')!)).toBe('How likely are you to recommend us?');
    expect(q(el, '#f0')!.hasAttribute('aria-label')).toBe(false);
  });

  it('names any other field without a label by its placeholder, else its id', async () => {
    const { el } = await form([
      { id: 'mail', type: 'email', placeholder: 'Work email' },
      { id: 'notes', type: 'textarea' },
      { id: 'role', type: 'radio', options: [{ value: 'dev', label: 'Developer' }] },
    ]);
    expect(q(el, '[part="label"]')).toBeNull();
    expect(q(el, '#f0')!.getAttribute('aria-label')).toBe('Work email');
    expect(q(el, '#f1')!.getAttribute('aria-label')).toBe('notes');
    expect(q(el, '[role="radiogroup"]')!.getAttribute('aria-label')).toBe('role');
    expect(q(el, '[role="radiogroup"]')!.hasAttribute('aria-labelledby')).toBe(false);
  });
});

describe('<onboarding-survey> with steps given as fields', () => {
  /** Frigade's NPS survey: a score, then a comment. */
  const nps: FlowData = {
    props: { negativeLabel: 'Not at all' },
    steps: [
      {
        id: 'score',
        title: 'How likely are you to recommend us?',
        fields: [{ id: 'nps-score', type: 'nps', positiveLabel: 'Extremely likely' }],
      },
      {
        id: 'comment',
        title: 'What could we do better?',
        fields: [{ id: 'feedback', type: 'textarea', placeholder: 'Your thoughts' }],
      },
    ],
  };

  async function survey(
    data: FlowData,
    current: string,
    done: string[] = [],
  ): Promise<{ el: OnboardingSurvey; calls: RecordedCall[] }> {
    seedFlow('sv', 'SURVEY', data, { current, steps: Object.fromEntries(done.map((id) => [id, { completed: true }])) });
    const calls: RecordedCall[] = [];
    const el = await fixture<OnboardingSurvey>(
      html`<onboarding-survey flow="sv" .currentFlow=${recordingFlow($flows.get().sv, calls)}></onboarding-survey>`,
    );
    await tick();
    await el.updateComplete;
    return { el, calls };
  }

  it("draws an nps field as the NPS scale, with the field's and the flow's end labels, and stores { [id]: score }", async () => {
    const { el, calls } = await survey(nps, 'score');
    expect(labelOf(el, q(el, '[part="scale"]')!)).toBe('How likely are you to recommend us?');
    expect(qa(el, '[part="scale"] input')).toHaveLength(11);
    expect(qa(el, '[part="scale-labels"] span').map((end) => end.textContent)).toEqual([
      'Not at all',
      'Extremely likely',
    ]);
    expect(q(el, '[part="secondary-button"]')).toBeNull();
    expect(submitButton(el).disabled).toBe(true);
    await check(el, 'input[value="9"]');
    expect(submitButton(el).disabled).toBe(false);
    await submit(el);
    expect(calls.at(-1)).toEqual({ action: 'step.complete', stepId: 'score', data: { 'nps-score': 9 } });
  });

  it('draws a textarea field as the text answer, with Skip, and stores { [id]: text }', async () => {
    const { el, calls } = await survey(nps, 'comment', ['score']);
    const answer = q(el, 'textarea[part="input"]') as HTMLTextAreaElement;
    expect(labelOf(el, answer)).toBe('What could we do better?');
    expect(answer.placeholder).toBe('Your thoughts');
    expect(text(el, '[part="secondary-button"]')).toBe('Skip');
    answer.value = 'Faster exports';
    answer.dispatchEvent(new Event('input'));
    await el.updateComplete;
    await submit(el);
    expect(calls.at(-1)).toEqual({ action: 'step.complete', stepId: 'comment', data: { feedback: 'Faster exports' } });
  });

  it('draws radio and select as single choices and checkboxes or a multiple select as multiple choices, each named by its label, and leaves other types out', async () => {
    const options = [
      { value: 'a', label: 'A' },
      { value: 'b', label: 'B' },
    ];
    const { el, calls } = await survey(
      {
        steps: [
          {
            id: 'mix',
            title: 'A few questions',
            fields: [
              { id: 'one', type: 'radio', label: 'One?', options },
              { id: 'many', type: 'select', multiple: true, label: 'Many?', options },
              { id: 'drawing', type: 'signature', label: 'Sign here', required: true },
              { id: 'mail', type: 'email', label: 'Mail' },
              { id: 'ticks', type: 'checkbox', label: 'Ticks?', options },
            ],
          },
        ],
      },
      'mix',
    );
    const groups = qa(el, '.options');
    expect(groups.map((group) => [group.getAttribute('role'), labelOf(el, group)])).toEqual([
      ['radiogroup', 'One?'],
      ['group', 'Many?'],
      ['group', 'Ticks?'],
    ]);
    expect(qa(el, '[part="label"]').map((label) => label.textContent)).toEqual(['One?', 'Many?', 'Ticks?']);
    await check(el, 'input[name="q0"][value="b"]');
    await check(el, 'input[name="q1"][value="a"]');
    await check(el, 'input[name="q1"][value="b"]');
    await submit(el);
    expect(calls.at(-1)).toEqual({
      action: 'step.complete',
      stepId: 'mix',
      data: { one: 'b', many: ['a', 'b'], ticks: [] },
    });
  });

  it("keeps submit disabled while a field breaks a rule, and shows the rule's message once the field is touched", async () => {
    const { el } = await survey(
      {
        steps: [
          {
            id: 'why',
            title: 'Why?',
            fields: [
              { id: 'reason', type: 'text', label: 'Reason', minLength: { value: 5, message: 'A few words, please.' } },
            ],
          },
        ],
      },
      'why',
    );
    const answer = q(el, 'textarea') as HTMLTextAreaElement;
    answer.value = 'ok';
    answer.dispatchEvent(new Event('input'));
    await el.updateComplete;
    expect(submitButton(el).disabled).toBe(true);
    expect(text(el, '[part="error"]')).toBe('A few words, please.');
    expect(answer.getAttribute('aria-describedby')).toBe(q(el, '[part="error"]')!.id);
    answer.value = 'Too slow';
    answer.dispatchEvent(new Event('input'));
    await el.updateComplete;
    expect(submitButton(el).disabled).toBe(false);
    expect(q(el, '[part="error"]')).toBeNull();
  });

  it("keeps a step given by type as it was: its answer as { value }, its NPS ends from the step's props", async () => {
    const { el, calls } = await survey(
      { steps: [{ id: 'score', title: 'Score?', props: { lowLabel: 'Low', highLabel: 'High' } }] },
      'score',
    );
    expect(qa(el, '[part="scale-labels"] span').map((end) => end.textContent)).toEqual(['Low', 'High']);
    await check(el, 'input[value="7"]');
    await submit(el);
    expect(calls.at(-1)).toEqual({ action: 'step.complete', stepId: 'score', data: { value: 7 } });
  });
});
