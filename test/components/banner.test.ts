import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixture, fixtureCleanup, html } from '@open-wc/testing-helpers';
import { registerElements } from '../../src/components/register.js';
import { $flowDefinitions, $flowStates, parseDefinitions } from '../../src/stores/flows.js';
import type { OnboardingBanner } from '../../src/components/banner/banner.component.js';
import type { FlowState } from '../../src/api/wire.js';

beforeAll(() => registerElements());
afterEach(() => {
  fixtureCleanup();
  $flowDefinitions.set({});
  $flowStates.set({});
});

function seed(visible = true) {
  $flowDefinitions.set(
    parseDefinitions([
      {
        id: 1,
        slug: 'hello',
        name: 'Hello',
        type: 'BANNER',
        status: 'ACTIVE',
        version: 1,
        targetingLogic: '',
        createdAt: '',
        modifiedAt: '',
        codeSnippet: '',
        data: JSON.stringify({ steps: [{ id: 's1', title: 'Big news', subtitle: 'Read <b>this</b>' }] }),
      },
    ]),
  );
  const state: FlowState = {
    flowSlug: 'hello',
    flowName: 'Hello',
    flowType: 'BANNER',
    version: 1,
    data: { steps: [{ id: 's1', $state: { started: false, completed: false, skipped: false, visible: true, blocked: false, flowResponses: [] } }] },
    $state: { currentStepId: 's1', currentStepIndex: 0, started: false, completed: !visible, skipped: false, visible, flowResponses: [] },
  };
  $flowStates.set({ hello: state });
}

describe('<onboarding-banner>', () => {
  it('renders the current step title and subtitle in its shadow root', async () => {
    seed();
    const el = await fixture<OnboardingBanner>(html`<onboarding-banner flow="hello"></onboarding-banner>`);
    expect(el.shadowRoot!.querySelector('[part="title"]')!.textContent).toBe('Big news');
    // Text is rendered as text: markup in a definition does not become elements.
    expect(el.shadowRoot!.querySelector('[part="subtitle"]')!.textContent).toBe('Read <b>this</b>');
    expect(el.shadowRoot!.querySelector('b')).toBeNull();
  });

  it('renders nothing for an unknown or completed flow, and updates when the store changes', async () => {
    const el = await fixture<OnboardingBanner>(html`<onboarding-banner flow="hello"></onboarding-banner>`);
    expect(el.shadowRoot!.querySelector('[part="base"]')).toBeNull();
    seed();
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part="base"]')).not.toBeNull();
    seed(false);
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part="base"]')).toBeNull();
  });
});
