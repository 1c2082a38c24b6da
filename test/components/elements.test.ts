import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixture, fixtureCleanup, html } from '@open-wc/testing-helpers';
import { registerElements } from '../../src/components/register.js';
import { $flows } from '../../src/stores/flows.js';
import { $elementOptions } from '../../src/stores/options.js';
import { setStrings } from '../../src/components/shared/strings.js';
import type { OnboardingCard } from '../../src/components/card/card.component.js';
import type { OnboardingChecklist } from '../../src/components/checklist/checklist.component.js';
import type { OnboardingForm } from '../../src/components/form/form.component.js';
import type { OnboardingFlow } from '../../src/components/flow/flow.component.js';
import type { OnboardingSurvey } from '../../src/components/survey/survey.component.js';
import { q, qa, recordingFlow, resetStores, seedFlow, tick, type RecordedCall } from '../support/component-stores.js';
import type { FlowData } from '../../src/api/wire.js';

beforeAll(() => registerElements());
beforeEach(() => $elementOptions.set({ autoMount: false }));
afterEach(() => {
  fixtureCleanup();
  resetStores();
});

const settle = async (el: { updateComplete: Promise<boolean> }) => {
  await el.updateComplete;
  await Promise.resolve();
};

describe('<onboarding-card>', () => {
  it('renders media from a safe address only, with title, text and buttons', async () => {
    seedFlow('c', 'CARD', {
      steps: [
        {
          id: 's',
          title: 'Card',
          subtitle: 'Text',
          imageUri: 'https://cdn.test/a.png',
          imageAlt: 'A picture',
          primaryButton: { title: 'Go' },
        },
      ],
    });
    const el = await fixture<OnboardingCard>(html`<onboarding-card flow="c"></onboarding-card>`);
    expect(q(el, 'img[part="media"]')!.getAttribute('src')).toBe('https://cdn.test/a.png');
    expect(q(el, 'img[part="media"]')!.getAttribute('alt')).toBe('A picture');
    expect(q(el, '[part="title"]')!.textContent).toBe('Card');
    seedFlow('c', 'CARD', {
      steps: [{ id: 's', title: 'Card', imageUri: 'javascript:alert(1)', videoUri: 'data:video/mp4,xx' }],
    });
    await el.updateComplete;
    expect(q(el, '[part="media"]')).toBeNull();
  });

  it('defaults a primary button without action to flow.forward', async () => {
    seedFlow('c', 'CARD', { steps: [{ id: 's', title: 'Card', primaryButton: { title: 'Go' } }] });
    const calls: RecordedCall[] = [];
    const flow = recordingFlow($flows.get().c, calls);
    const el = await fixture<OnboardingCard>(html`<onboarding-card flow="c" .currentFlow=${flow}></onboarding-card>`);
    q(el, '[part="primary-button"]')!.click();
    await settle(el);
    expect(calls.map((c) => c.action)).toContain('flow.forward');
  });
});

describe('<onboarding-checklist>', () => {
  const seed = (steps: Record<string, object> = {}, sequential = false, current?: string) =>
    seedFlow(
      'list',
      'CHECKLIST',
      {
        title: 'Setup',
        props: { sequential },
        steps: [
          { id: 'a', title: 'A', primaryButton: { title: 'Do A', action: 'step.complete' } },
          { id: 'b', title: 'B' },
          { id: 'c', title: 'C' },
          { id: 'd', title: 'D' },
        ],
      },
      { steps, current },
    );

  it('shows "n of m", a progress bar, and a state per step', async () => {
    seed({ a: { completed: true }, b: { skipped: true }, c: { blocked: true } }, false, 'd');
    const el = await fixture<OnboardingChecklist>(html`<onboarding-checklist flow="list"></onboarding-checklist>`);
    expect(q(el, '[part="progress-label"]')!.textContent).toBe('2 of 4');
    const progress = q(el, 'progress') as HTMLProgressElement;
    expect([progress.value, progress.max]).toEqual([2, 4]);
    expect(qa(el, '[part~="step"]').map((s) => s.getAttribute('part'))).toEqual([
      'step step-done',
      'step step-skipped',
      'step step-blocked',
      'step step-current',
    ]);
  });

  it('shows the "all done" state when the list is finished on the page, until it is closed', async () => {
    seed({ a: { completed: true }, b: { completed: true }, c: { completed: true } }, false, 'd');
    const el = await fixture<OnboardingChecklist>(html`<onboarding-checklist flow="list"></onboarding-checklist>`);
    expect(q(el, '[part~="done"]')).toBeNull();
    seedFlow(
      'list',
      'CHECKLIST',
      {
        title: 'Setup',
        props: { doneTitle: 'Ready, ${firstName|friend}', doneSubtitle: 'Go <b>build</b>' },
        steps: [{ id: 'a' }],
      },
      { completed: true },
    );
    await el.updateComplete;
    expect(q(el, '[part~="done"]')!.getAttribute('role')).toBe('status');
    expect(q(el, '[part="title"]')!.textContent).toBe('✓ Ready, friend');
    expect(q(el, '[part="subtitle"] b')!.textContent).toBe('build');
    (q(el, '[part="close-button"]') as HTMLButtonElement).click();
    await el.updateComplete;
    expect(q(el, '[part~="base"]')).toBeNull();
  });

  it('shows a list finished elsewhere only with whenDone: keep, and never with whenDone: hide', async () => {
    const finished = (whenDone?: string) =>
      seedFlow(
        'list',
        'CHECKLIST',
        { props: { whenDone: whenDone as 'keep' }, steps: [{ id: 'a' }] },
        { completed: true },
      );
    finished();
    const plain = await fixture<OnboardingChecklist>(html`<onboarding-checklist flow="list"></onboarding-checklist>`);
    expect(q(plain, '[part~="base"]')).toBeNull();
    finished('keep');
    const kept = await fixture<OnboardingChecklist>(html`<onboarding-checklist flow="list"></onboarding-checklist>`);
    expect(q(kept, '[part="title"]')!.textContent).toBe('✓ All done');
    seed({}, false);
    const hidden = await fixture<OnboardingChecklist>(html`<onboarding-checklist flow="list"></onboarding-checklist>`);
    finished('hide');
    await hidden.updateComplete;
    expect(q(hidden, '[part~="base"]')).toBeNull();
  });

  it('locks later steps in a sequential list and does not open blocked or locked steps', async () => {
    seed({}, true);
    const el = await fixture<OnboardingChecklist>(html`<onboarding-checklist flow="list"></onboarding-checklist>`);
    const headers = qa(el, '[part="step-header"]');
    expect(headers.map((h) => h.getAttribute('aria-disabled'))).toEqual(['false', 'true', 'true', 'true']);
    expect(headers[0].getAttribute('aria-expanded')).toBe('true');
    headers[1].click();
    await el.updateComplete;
    expect(qa(el, '[part="step-header"]')[1].getAttribute('aria-expanded')).toBe('false');
  });

  it('opens another step on click and runs step actions on the step they belong to', async () => {
    seed();
    const calls: RecordedCall[] = [];
    const flow = recordingFlow($flows.get().list, calls);
    const el = await fixture<OnboardingChecklist>(
      html`<onboarding-checklist flow="list" .currentFlow=${flow}></onboarding-checklist>`,
    );
    qa(el, '[part="step-header"]')[2].click();
    await el.updateComplete;
    expect(qa(el, '[part="step-header"]').map((h) => h.getAttribute('aria-expanded'))).toEqual([
      'false',
      'false',
      'true',
      'false',
    ]);
    q(el, '[part="primary-button"]')!.click();
    await settle(el);
    expect(calls.at(-1)).toEqual({ action: 'step.complete', stepId: 'c' });
  });
});

describe('<onboarding-form>', () => {
  const seed = () =>
    seedFlow('f', 'FORM', {
      steps: [
        {
          id: 's',
          title: 'Tell us',
          fields: [
            { id: 'name', type: 'text', label: 'Name', required: true, message: 'Your name, please.' },
            { id: 'code', type: 'text', label: 'Code', pattern: '[A-Z]{3}' },
            { id: 'age', type: 'number', label: 'Age', min: 18, max: 99 },
            { id: 'mail', type: 'email', label: 'Mail' },
            {
              id: 'pick',
              type: 'checkbox',
              label: 'Pick',
              options: [
                { value: 'x', label: 'X' },
                { value: 'y', label: 'Y' },
              ],
            },
          ],
        },
      ],
    });
  const type = async (el: OnboardingForm, index: number, value: string) => {
    const input = q(el, `#f${index}`) as HTMLInputElement;
    input.value = value;
    input.dispatchEvent(new Event('input'));
    await el.updateComplete;
  };

  it('keeps submit disabled while invalid and links each shown error to its field', async () => {
    seed();
    const el = await fixture<OnboardingForm>(html`<onboarding-form flow="f"></onboarding-form>`);
    const submit = () => q(el, '[part="primary-button"]') as HTMLButtonElement;
    expect(submit().disabled).toBe(true);
    expect(q(el, '[part="error"]')).toBeNull();
    q(el, '#f0')!.dispatchEvent(new Event('blur'));
    await el.updateComplete;
    expect(q(el, '#e0')!.textContent).toBe('Your name, please.');
    expect(q(el, '#f0')!.getAttribute('aria-describedby')).toBe('e0');
    expect(q(el, '#f0')!.getAttribute('aria-invalid')).toBe('true');
    await type(el, 0, 'Ada');
    expect(submit().disabled).toBe(false);
    await type(el, 1, 'abc');
    expect(q(el, '#e1')!.textContent).toBe('Please check this value.');
    await type(el, 1, 'ABC');
    await type(el, 2, '12');
    expect(q(el, '#e2')!.textContent).toBe('Use 18 or more.');
    await type(el, 2, '30');
    await type(el, 3, 'nope');
    expect(submit().disabled).toBe(true);
    await type(el, 3, 'a@b.test');
    expect(submit().disabled).toBe(false);
  });

  it('sends the values as the step data of step.complete', async () => {
    seed();
    const calls: RecordedCall[] = [];
    const flow = recordingFlow($flows.get().f, calls);
    const el = await fixture<OnboardingForm>(html`<onboarding-form flow="f" .currentFlow=${flow}></onboarding-form>`);
    const details: unknown[] = [];
    el.addEventListener('onboarding-action', (event) => details.push(event.detail));
    await type(el, 0, 'Ada');
    await type(el, 2, '42');
    // Two boxes ticked before the element renders again both count.
    for (const value of ['y', 'x']) {
      const box = q(el, `input[value="${value}"]`) as HTMLInputElement;
      box.checked = true;
      box.dispatchEvent(new Event('change'));
    }
    await el.updateComplete;
    q(el, 'form')!.dispatchEvent(new Event('submit', { cancelable: true }));
    await settle(el);
    const data = { name: 'Ada', code: '', age: 42, mail: '', pick: ['y', 'x'] };
    expect(calls.at(-1)).toEqual({ action: 'step.complete', stepId: 's', data });
    expect(details).toEqual([{ flowSlug: 'f', stepId: 's', action: 'step.complete', trigger: 'submit', data }]);
  });
});

describe('<onboarding-survey>', () => {
  const data: FlowData = {
    steps: [
      { id: 'rate', title: 'Rate us', type: 'rating', props: { max: 5 } },
      {
        id: 'pick',
        title: 'What do you use?',
        type: 'multiple',
        options: [
          { value: 'a', label: 'A' },
          { value: 'b', label: 'B' },
          { value: 'c', label: 'C' },
        ],
      },
      {
        id: 'one',
        title: 'Main reason?',
        type: 'single',
        options: [
          { value: 'x', label: 'X' },
          { value: 'y', label: 'Y' },
        ],
      },
    ],
  };

  async function answerStep(
    current: string,
    done: string[],
    choose: (el: OnboardingSurvey) => void,
  ): Promise<RecordedCall | undefined> {
    seedFlow('sv', 'SURVEY', data, { current, steps: Object.fromEntries(done.map((id) => [id, { completed: true }])) });
    const calls: RecordedCall[] = [];
    const flow = recordingFlow($flows.get().sv, calls);
    const el = await fixture<OnboardingSurvey>(
      html`<onboarding-survey flow="sv" .currentFlow=${flow}></onboarding-survey>`,
    );
    await tick();
    await settle(el);
    const submit = q(el, '[part="primary-button"]') as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    choose(el);
    await el.updateComplete;
    expect(submit.disabled).toBe(false);
    q(el, 'form')!.dispatchEvent(new Event('submit', { cancelable: true }));
    await settle(el);
    fixtureCleanup();
    return calls.filter((c) => c.action === 'step.complete').at(-1);
  }

  const check = (el: OnboardingSurvey, value: string) => {
    const input = q(el, `input[value="${value}"]`) as HTMLInputElement;
    input.checked = true;
    input.dispatchEvent(new Event('change'));
  };

  it('sends a rating as a number, multiple choices as a list and a single choice as text', async () => {
    expect(await answerStep('rate', [], (el) => check(el, '4'))).toEqual({
      action: 'step.complete',
      stepId: 'rate',
      data: { value: 4 },
    });
    expect(await answerStep('pick', ['rate'], (el) => (check(el, 'a'), check(el, 'c')))).toEqual({
      action: 'step.complete',
      stepId: 'pick',
      data: { value: ['a', 'c'] },
    });
    expect(await answerStep('one', ['rate', 'pick'], (el) => check(el, 'y'))).toEqual({
      action: 'step.complete',
      stepId: 'one',
      data: { value: 'y' },
    });
  });
});

describe('<onboarding-flow>', () => {
  it('renders the element for the flow type', async () => {
    seedFlow('b', 'BANNER', { steps: [{ id: 's', title: 'Via flow' }] });
    const el = await fixture<OnboardingFlow>(html`<onboarding-flow flow="b" theme="dark"></onboarding-flow>`);
    const inner = q(el, 'onboarding-banner')!;
    expect(inner.getAttribute('flow')).toBe('b');
    expect(inner.getAttribute('theme')).toBe('dark');
    await (inner as unknown as OnboardingCard).updateComplete;
    expect(inner.shadowRoot!.querySelector('[part="title"]')!.textContent).toBe('Via flow');
  });

  it('shows slotted content for a CUSTOM flow only while it is active, and exposes the step', async () => {
    seedFlow('x', 'CUSTOM', { steps: [{ id: 's1', title: 'Custom' }] });
    const el = await fixture<OnboardingFlow>(
      html`<onboarding-flow flow="x"><p data-onboarding-text="title"></p></onboarding-flow>`,
    );
    expect(q(el, 'slot')).not.toBeNull();
    expect(el.currentStep?.id).toBe('s1');
    expect(el.querySelector('p')!.textContent).toBe('Custom');
    seedFlow('x', 'CUSTOM', { steps: [{ id: 's1', title: 'Custom' }] }, { completed: true });
    await el.updateComplete;
    expect(q(el, 'slot')).toBeNull();
    expect(el.currentStep).toBeUndefined();
  });

  it('runs data-onboarding-action clicks after the cancelable event', async () => {
    seedFlow('x', 'CUSTOM', { steps: [{ id: 's1', title: 'Custom' }] });
    const calls: RecordedCall[] = [];
    const flow = recordingFlow($flows.get().x, calls);
    const el = await fixture<OnboardingFlow>(
      html`<onboarding-flow flow="x" .currentFlow=${flow}
        ><button data-onboarding-action="flow.complete">Finish</button
        ><button data-onboarding-action="eval">Bad</button></onboarding-flow
      >`,
    );
    const buttons = el.querySelectorAll('button');
    buttons[1].click();
    buttons[0].click();
    await settle(el);
    expect(calls.filter((c) => !c.action.endsWith('start'))).toEqual([{ action: 'flow.complete' }]);
  });
});

describe('built-in strings', () => {
  it('are translated page-wide with setStrings and per element with .strings', async () => {
    seedFlow('c', 'CARD', { steps: [{ id: 's', title: 'Card' }] });
    setStrings({ close: 'Fermer' });
    const el = await fixture<OnboardingCard>(html`<onboarding-card flow="c"></onboarding-card>`);
    expect(q(el, '[part="close-button"]')!.getAttribute('aria-label')).toBe('Fermer');
    el.strings = { close: 'Schließen' };
    await el.updateComplete;
    expect(q(el, '[part="close-button"]')!.getAttribute('aria-label')).toBe('Schließen');
  });
});
