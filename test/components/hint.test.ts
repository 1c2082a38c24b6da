// <onboarding-hint> and <onboarding-tooltip> in happy-dom: which beacons show, what opens and closes, and what each records.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixture, fixtureCleanup, html } from '@open-wc/testing-helpers';
import { registerElements } from '../../src/index.js';
import { $flows } from '../../src/stores/flows.js';
import { $elementOptions } from '../../src/stores/options.js';
import type { FlowData } from '../../src/api/wire.js';
import type { OnboardingHint } from '../../src/components/hint/hint.component.js';
import type { OnboardingTooltip } from '../../src/components/hint/tooltip.component.js';
import {
  q,
  qa,
  recordingFlow,
  resetStores,
  seedFlow,
  tick,
  type RecordedCall,
  type SeedOptions,
} from '../support/component-stores.js';

beforeAll(() => {
  registerElements();
  // happy-dom has no layout: nothing is hit at any point (the engine looks for fixed headers there). On the
  // prototype, where browsers have them and where the script reads them (a page's named elements shadow the document).
  Document.prototype.elementsFromPoint ??= () => [];
  Document.prototype.elementFromPoint ??= () => null;
});
beforeEach(() => $elementOptions.set({ autoMount: false }));
afterEach(() => {
  fixtureCleanup();
  resetStores();
  document.body.innerHTML = '';
});

/** Page elements with a layout box (happy-dom has no layout, and the target engine skips what has no size). */
function targets(...ids: string[]): HTMLElement[] {
  return ids.map((id, i) => {
    const element = document.createElement('button');
    element.id = id;
    element.textContent = id;
    element.getBoundingClientRect = () => new DOMRect(100 + 150 * i, 100, 120, 30);
    document.body.append(element);
    return element;
  });
}

/** Waits for the target engine (a frame) and the element's updates. */
async function settle(el: { updateComplete: Promise<boolean> }): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await tick(20);
    await el.updateComplete;
  }
}

async function mountHint(data: FlowData, options?: SeedOptions) {
  seedFlow('h', 'HINT', data, options);
  const calls: RecordedCall[] = [];
  const recording = recordingFlow($flows.get().h, calls);
  const el = await fixture<OnboardingHint>(
    html`<onboarding-hint flow="h" .currentFlow=${recording}></onboarding-hint>`,
  );
  await settle(el);
  // What was recorded besides the first showing (flow.start, step.start), which the base element's tests cover.
  return {
    el,
    calls: {
      get acts() {
        return calls.filter((call) => !call.action.endsWith('.start'));
      },
    },
  };
}

describe('<onboarding-hint>', () => {
  it('puts a named beacon on each open step whose target is there, on its page', async () => {
    targets('a', 'b', 'c', 'd', 'e');
    const { el } = await mountHint(
      {
        steps: [
          { id: 'a', title: 'Search', selector: '#a' },
          { id: 'b', title: 'Done already', selector: '#b' },
          { id: 'c', title: 'Skipped', selector: '#c' },
          { id: 'd', title: 'Blocked', selector: '#d' },
          { id: 'e', title: 'Elsewhere', selector: '#e', page: '/reports/*' },
          { id: 'f', title: 'Not there', selector: '#nowhere' },
          { id: 'g', selector: '#a' },
        ],
      },
      { steps: { b: { completed: true }, c: { skipped: true }, d: { blocked: true } } },
    );
    const beacons = qa(el, 'button[part="beacon"]');
    expect(beacons.map((b) => b.dataset.step)).toEqual(['a', 'g']);
    expect(beacons.map((b) => b.getAttribute('aria-label'))).toEqual(['Hint: Search', 'Hint: Flow h']);
    expect(
      beacons.every((b) => b.getAttribute('aria-expanded') === 'false' && b.getAttribute('popover') === 'manual'),
    ).toBe(true);
    expect(q(el, '[part="base"]')).toBeNull();
  });

  it('opens a step in a labelled dialog from its beacon; Got it, close and Escape each record that step completed', async () => {
    targets('a', 'b');
    const { el, calls } = await mountHint({
      steps: [
        { id: 'a', title: 'Search', subtitle: 'Find anything', selector: '#a' },
        { id: 'b', title: 'Menu', selector: '#b', primaryButton: { title: 'Try it', action: 'flow.complete' } },
      ],
    });
    const [a, b] = qa(el, '[part="beacon"]');
    a.click();
    await settle(el);
    const tooltip = q(el, '[part="base"]')!;
    expect(tooltip.getAttribute('role')).toBe('dialog');
    expect(tooltip.getAttribute('aria-labelledby')).toBe('title');
    expect(q(el, '#title')!.textContent).toBe('Search');
    expect(q(el, '#body')!.textContent).toBe('Find anything');
    expect(a.getAttribute('aria-expanded')).toBe('true');
    expect(el.shadowRoot!.activeElement).toBe(tooltip);
    q(el, '[part="primary-button"]')!.click();
    expect(q(el, '[part="primary-button"]')!.textContent).toBe('Got it');
    expect(calls.acts).toContainEqual({ action: 'step.complete', stepId: 'a' });

    tooltip.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
    await settle(el);
    expect(q(el, '[part="base"]')).toBeNull();
    expect(calls.acts.filter((c) => c.stepId === 'a')).toHaveLength(2);
    // Focus goes back to the beacon.
    expect(el.shadowRoot!.activeElement).toBe(a);

    b.click();
    await settle(el);
    expect(q(el, '#title')!.textContent).toBe('Menu');
    q(el, '[part="primary-button"]')!.click();
    expect(calls.acts.at(-1)!.action).toBe('flow.complete');
    q(el, '[part="close-button"]')!.click();
    await settle(el);
    expect(calls.acts.at(-1)).toEqual({ action: 'step.complete', stepId: 'b' });
    expect(q(el, '[part="base"]')).toBeNull();
  });

  it('closes its tooltip without recording when its beacon is clicked again, and lets a listener veto an action', async () => {
    targets('a');
    const { el, calls } = await mountHint({ steps: [{ id: 'a', title: 'Search', selector: '#a' }] });
    const beacon = q(el, '[part="beacon"]')!;
    beacon.click();
    await settle(el);
    beacon.click();
    await settle(el);
    expect(q(el, '[part="base"]')).toBeNull();
    beacon.click();
    await settle(el);
    el.addEventListener('onboarding-step-complete', (event) => event.preventDefault(), { once: true });
    q(el, '[part="close-button"]')!.click();
    await settle(el);
    expect(calls.acts.filter((c) => c.action === 'step.complete')).toEqual([]);
  });
});

async function mountTooltip(data: FlowData) {
  seedFlow('t', 'TOOLTIP', data);
  const calls: RecordedCall[] = [];
  const recording = recordingFlow($flows.get().t, calls);
  const el = await fixture<OnboardingTooltip>(
    html`<onboarding-tooltip flow="t" .currentFlow=${recording}></onboarding-tooltip>`,
  );
  await settle(el);
  // What was recorded besides the first showing (flow.start, step.start), which the base element's tests cover.
  return {
    el,
    calls: {
      get acts() {
        return calls.filter((call) => !call.action.endsWith('.start'));
      },
    },
  };
}

describe('<onboarding-tooltip>', () => {
  it('opens on hover and focus of its target as a tooltip, closes a moment after both leave and on Escape, and describes the target', async () => {
    const [target] = targets('a');
    const { el, calls } = await mountTooltip({
      steps: [{ id: 's', title: 'Search', subtitle: 'Find anything', selector: '#a' }],
    });
    expect(q(el, '[part="beacon"]')).toBeNull();
    expect(target.getAttribute('aria-description')).toBe('Search: Find anything');
    target.dispatchEvent(new MouseEvent('mouseenter'));
    await settle(el);
    const tooltip = q(el, '[part="base"]')!;
    expect(tooltip.getAttribute('role')).toBe('tooltip');
    expect(q(el, '[part="close-button"]')).toBeNull();
    expect(el.shadowRoot!.activeElement).toBeNull();
    // Crossing from the target to the tooltip keeps it open.
    target.dispatchEvent(new MouseEvent('mouseleave'));
    tooltip.dispatchEvent(new MouseEvent('mouseenter'));
    await tick(400);
    expect(q(el, '[part="base"]')).not.toBeNull();
    tooltip.dispatchEvent(new MouseEvent('mouseleave'));
    await tick(400);
    await el.updateComplete;
    expect(q(el, '[part="base"]')).toBeNull();

    target.dispatchEvent(new FocusEvent('focusin'));
    await settle(el);
    expect(q(el, '[part="base"]')).not.toBeNull();
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    await settle(el);
    expect(q(el, '[part="base"]')).toBeNull();
    expect(calls.acts).toEqual([]);
    el.remove();
    expect(target.hasAttribute('aria-description')).toBe(false);
  });

  it('with buttons is a dialog that Tab on the target moves into and Escape leaves; its close button records the step completed', async () => {
    const [target] = targets('a');
    const { el, calls } = await mountTooltip({
      steps: [{ id: 's', title: 'Search', selector: '#a', primaryButton: { title: 'OK' } }],
    });
    target.focus();
    target.dispatchEvent(new FocusEvent('focusin'));
    await settle(el);
    expect(q(el, '[part="base"]')!.getAttribute('role')).toBe('dialog');
    const tab = new KeyboardEvent('keydown', { key: 'Tab', bubbles: true, composed: true, cancelable: true });
    target.dispatchEvent(tab);
    expect(tab.defaultPrevented).toBe(true);
    expect(el.shadowRoot!.activeElement).toBe(q(el, '[part="base"]'));
    // Escape there closes it and gives focus back to the target, which does not open it again.
    q(el, '[part="base"]')!.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }),
    );
    await settle(el);
    expect(q(el, '[part="base"]')).toBeNull();
    expect(document.activeElement).toBe(target);
    expect(calls.acts).toEqual([]);
    target.dispatchEvent(new MouseEvent('mouseenter'));
    await settle(el);
    q(el, '[part="close-button"]')!.click();
    await settle(el);
    expect(calls.acts).toEqual([{ action: 'step.complete', stepId: 's' }]);
  });

  it('with trigger: beacon opens from its beacon, and Escape records the step completed', async () => {
    targets('a');
    const { el, calls } = await mountTooltip({
      props: { trigger: 'beacon' },
      steps: [{ id: 's', title: 'Search', selector: '#a' }],
    });
    const beacon = q(el, '[part="beacon"]')!;
    expect(beacon.getAttribute('aria-label')).toBe('Hint: Search');
    beacon.click();
    await settle(el);
    const tooltip = q(el, '[part="base"]')!;
    expect(tooltip.getAttribute('role')).toBe('dialog');
    expect(q(el, '[part="actions"]')).toBeNull();
    tooltip.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
    await settle(el);
    expect(calls.acts).toEqual([{ action: 'step.complete', stepId: 's' }]);
  });
});
