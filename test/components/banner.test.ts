import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixture, fixtureCleanup, html } from '@open-wc/testing-helpers';
import { registerElements } from '../../src/components/register.js';
import { $flows } from '../../src/stores/flows.js';
import { $userProperties } from '../../src/stores/user.js';
import { onError } from '../../src/core/errors.js';
import type { OnboardingBanner } from '../../src/components/banner/banner.component.js';
import { recordingFlow, resetStores, seedFlow, type RecordedCall } from '../support/component-stores.js';

beforeAll(() => registerElements());
afterEach(() => {
  fixtureCleanup();
  resetStores();
});

const banner = (subtitle = 'Read <b>this</b>, ${firstName}') =>
  seedFlow('hello', 'BANNER', {
    steps: [
      {
        id: 's1',
        title: 'Big news',
        subtitle,
        primaryButton: { title: 'Open', action: 'step.complete', uri: '#open' },
        secondaryButton: { title: 'Later' },
      },
    ],
  });

describe('<onboarding-banner>', () => {
  it('renders the title, the rich text subtitle with variables, and its buttons', async () => {
    banner();
    $userProperties.set({ firstName: 'Ada' });
    const el = await fixture<OnboardingBanner>(html`<onboarding-banner flow="hello"></onboarding-banner>`);
    const root = el.shadowRoot!;
    expect(root.querySelector('[part="title"]')!.textContent).toBe('Big news');
    expect(root.querySelector('[part="subtitle"]')!.textContent).toBe('Read this, Ada');
    expect(root.querySelector('[part="subtitle"] b')!.textContent).toBe('this');
    const primary = root.querySelector<HTMLAnchorElement>('a[part="primary-button"]')!;
    expect(primary.getAttribute('href')).toBe('#open');
    expect(primary.textContent).toBe('Open');
    expect(root.querySelector('button[part="secondary-button"]')!.textContent).toBe('Later');
    expect(root.querySelector('[part="close-button"]')!.getAttribute('aria-label')).toBe('Close');
    expect(root.querySelector('[aria-live="polite"] [part="base"]')).not.toBeNull();
  });

  it('renders nothing for an unknown or completed flow, and updates when the store changes', async () => {
    const el = await fixture<OnboardingBanner>(html`<onboarding-banner flow="hello"></onboarding-banner>`);
    expect(el.shadowRoot!.querySelector('[part="base"]')).toBeNull();
    banner();
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part="base"]')).not.toBeNull();
    seedFlow('hello', 'BANNER', { steps: [{ id: 's1', title: 'x' }] }, { completed: true });
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part="base"]')).toBeNull();
    seedFlow('hello', 'BANNER', { steps: [{ id: 's1', title: 'x' }] }, { skipped: true });
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part="base"]')).toBeNull();
  });

  it('runs the action a button names, its fallback, and dismiss, after a cancelable onboarding-action', async () => {
    banner();
    const calls: RecordedCall[] = [];
    const el = await fixture<OnboardingBanner>(html`<onboarding-banner flow="hello"></onboarding-banner>`);
    el.currentFlow = recordingFlow($flows.get().hello, calls);
    await el.updateComplete;
    const seen: string[] = [];
    el.addEventListener('onboarding-action', (event) =>
      seen.push(`${event.detail.action}:${event.detail.trigger}:${event.detail.stepId}`),
    );
    const root = el.shadowRoot!;
    root.querySelector<HTMLElement>('[part="primary-button"]')!.click();
    root.querySelector<HTMLElement>('[part="secondary-button"]')!.click();
    root.querySelector<HTMLElement>('[part="close-button"]')!.click();
    await Promise.resolve();
    expect(seen).toEqual(['step.complete:primary:s1', 'flow.skip:secondary:s1', 'flow.skip:close:s1']);
    expect(calls.filter((c) => !c.action.endsWith('start'))).toEqual([
      { action: 'step.complete', stepId: 's1' },
      { action: 'flow.skip' },
      { action: 'flow.skip' },
    ]);
  });

  it('lets a page veto an action: nothing runs and the link is not followed', async () => {
    banner();
    const calls: RecordedCall[] = [];
    const el = await fixture<OnboardingBanner>(html`<onboarding-banner flow="hello"></onboarding-banner>`);
    el.currentFlow = recordingFlow($flows.get().hello, calls);
    await el.updateComplete;
    el.addEventListener('onboarding-action', (event) => event.preventDefault());
    const click = new MouseEvent('click', { bubbles: true, cancelable: true, composed: true });
    el.shadowRoot!.querySelector('[part="primary-button"]')!.dispatchEvent(click);
    await Promise.resolve();
    expect(click.defaultPrevented).toBe(true);
    expect(calls.filter((c) => !c.action.endsWith('start'))).toEqual([]);
  });

  it('fires the action’s own cancelable event, and a veto there stops the action too', async () => {
    banner();
    const calls: RecordedCall[] = [];
    const el = await fixture<OnboardingBanner>(html`<onboarding-banner flow="hello"></onboarding-banner>`);
    el.currentFlow = recordingFlow($flows.get().hello, calls);
    await el.updateComplete;
    const seen: string[] = [];
    document.addEventListener(
      'onboarding-step-complete',
      (event) => seen.push(`${event.type}:${event.detail.stepId}`),
      { once: true },
    );
    el.addEventListener('onboarding-flow-skip', (event) => {
      seen.push(event.type);
      event.preventDefault();
    });
    el.shadowRoot!.querySelector<HTMLElement>('[part="primary-button"]')!.click();
    el.shadowRoot!.querySelector<HTMLElement>('[part="secondary-button"]')!.click();
    await Promise.resolve();
    expect(seen).toEqual(['onboarding-step-complete:s1', 'onboarding-flow-skip']);
    expect(calls.filter((c) => !c.action.endsWith('start'))).toEqual([{ action: 'step.complete', stepId: 's1' }]);
  });

  it('records the first showing as started, once, in the task after the one that drew it', async () => {
    banner();
    const calls: RecordedCall[] = [];
    const flow = recordingFlow($flows.get().hello, calls);
    const el = await fixture<OnboardingBanner>(
      html`<onboarding-banner flow="hello" .currentFlow=${flow}></onboarding-banner>`,
    );
    el.requestUpdate();
    await el.updateComplete;
    expect(calls).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls).toEqual([{ action: 'flow.start' }, { action: 'step.start', stepId: 's1' }]);
  });

  it('renders a javascript: uri as a plain button and hides the close button when not dismissible', async () => {
    seedFlow('hello', 'BANNER', {
      props: { dismissible: false },
      steps: [
        { id: 's1', title: 'T', primaryButton: { title: 'Go', uri: 'javascript:alert(1)', action: 'flow.complete' } },
      ],
    });
    const el = await fixture<OnboardingBanner>(html`<onboarding-banner flow="hello"></onboarding-banner>`);
    expect(el.shadowRoot!.querySelector('a')).toBeNull();
    expect(el.shadowRoot!.querySelector('button[part="primary-button"]')).not.toBeNull();
    expect(el.shadowRoot!.querySelector('[part="close-button"]')).toBeNull();
  });

  it('translates the built-in strings per element', async () => {
    banner();
    const el = await fixture<OnboardingBanner>(
      html`<onboarding-banner flow="hello" .strings=${{ close: 'Schließen' }}></onboarding-banner>`,
    );
    expect(el.shadowRoot!.querySelector('[part="close-button"]')!.getAttribute('aria-label')).toBe('Schließen');
  });
});

describe('failures while rendering', () => {
  it('are reported through the error channel instead of thrown into the page', async () => {
    banner();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const reported: string[] = [];
    const stop = onError((_error, code) => reported.push(code));
    const broken = {
      ...$flows.get().hello,
      get currentStep(): never {
        throw new Error('odd definition');
      },
    };
    const el = await fixture<OnboardingBanner>(
      html`<onboarding-banner flow="hello" .currentFlow=${broken}></onboarding-banner>`,
    );
    await el.updateComplete;
    stop();
    warn.mockRestore();
    expect(reported).toContain('render-failed');
    expect(el.isConnected).toBe(true);
  });
});

describe('rendering many flows', () => {
  it('renders an element again only when its own flow changes', async () => {
    seedFlow('one', 'BANNER', {
      steps: [
        { id: 'a', title: 'One' },
        { id: 'b', title: 'One, next' },
      ],
    });
    seedFlow('two', 'BANNER', { steps: [{ id: 'a', title: 'Two' }] });
    const first = await fixture<OnboardingBanner>(html`<onboarding-banner flow="one"></onboarding-banner>`);
    const second = await fixture<OnboardingBanner>(html`<onboarding-banner flow="two"></onboarding-banner>`);
    const renders = { one: vi.spyOn(first, 'render'), two: vi.spyOn(second, 'render') };
    // Only flow one moves on: a new state object for it, the same one for flow two.
    seedFlow(
      'one',
      'BANNER',
      {
        steps: [
          { id: 'a', title: 'One' },
          { id: 'b', title: 'One, next' },
        ],
      },
      { current: 'b', steps: { a: { completed: true } } },
    );
    await first.updateComplete;
    await second.updateComplete;
    expect(first.shadowRoot!.querySelector('[part="title"]')!.textContent).toBe('One, next');
    expect(renders.one).toHaveBeenCalledTimes(1);
    expect(renders.two).not.toHaveBeenCalled();
  });
});
