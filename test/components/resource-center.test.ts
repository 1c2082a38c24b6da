// <onboarding-resource-center> in happy-dom: the launcher and its badge, the page's own launcher, the panel's blocks,
// what opening and reading record, search, replaying a flow, and the keyboard. Chromium runs it against the service.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixture, fixtureCleanup, html } from '@open-wc/testing-helpers';
import type { ActionType, ResourceCenterData } from '../../src/api/wire.js';
import { registerElements } from '../../src/components/register.js';
import type { OnboardingResourceCenter } from '../../src/components/resource-center/resource-center.component.js';
import { applyWrite } from '../../src/core/optimistic.js';
import { onboarding } from '../../src/sdk.js';
import { $flowStates, $transitionSlot } from '../../src/stores/flows.js';
import { $elementOptions } from '../../src/stores/options.js';
import { $resourceCenterOpen, $unread } from '../../src/stores/resource-center.js';
import { q, qa, resetStores, seedFlow, tick } from '../support/component-stores.js';

beforeAll(() => registerElements());
afterEach(() => {
  vi.restoreAllMocks();
  fixtureCleanup();
  resetStores();
  $resourceCenterOpen.set(false);
  document.body.innerHTML = '';
});

const steps = (...texts: string[]) =>
  texts.map((text, i) => ({ id: `s${i + 1}`, title: `Step ${i + 1}`, subtitle: text }));

/** A centre with every block, a half-done checklist, a finished tour and an unread announcement; transitions recorded. */
async function mount(launcher: ResourceCenterData['launcher'] = {}) {
  // The tours stay unmounted: only what the centre does is recorded.
  $elementOptions.set({ autoMount: false });
  const data: ResourceCenterData = {
    title: 'Help centre',
    launcher,
    blocks: [
      { id: 'find', type: 'search' },
      { id: 'setup', type: 'checklist', flow: 'setup' },
      { id: 'tours', type: 'flows', title: 'Tours', flows: ['welcome', 'reports'] },
      { id: 'news', type: 'announcements', title: "What's new", flows: ['news'] },
      {
        id: 'more',
        type: 'links',
        links: [
          { title: 'Docs', url: 'javascript:alert(1)' },
          { title: 'Guide', url: '/guide' },
        ],
      },
      { id: 'talk', type: 'contact', title: 'Write to us', url: 'mailto:help@example.com' },
    ],
  };
  seedFlow('centre', 'RESOURCE_CENTER', { ...data, steps: [] });
  seedFlow('setup', 'CHECKLIST', { title: 'Set up', steps: steps('Invite', 'Connect') });
  seedFlow('welcome', 'TOUR', { title: 'Welcome tour', steps: steps('Look around') }, { completed: true });
  seedFlow('reports', 'TOUR', { title: 'Reports', steps: steps('Export a quarterly spreadsheet') });
  seedFlow('news', 'ANNOUNCEMENT', { steps: [{ id: 'n1', title: 'Dark mode', subtitle: 'Easy on the eyes' }] });
  const writes: Array<[string, ActionType]> = [];
  $transitionSlot.set(async (flowSlug, actionType, stepId) => {
    writes.push([flowSlug, actionType]);
    const states = $flowStates.get();
    $flowStates.set({ ...states, [flowSlug]: applyWrite(states[flowSlug], { flowSlug, actionType, stepId } as never) });
  });
  // What the element records through the SDK's track, as `onboarding:resource-center`.
  const recorded: unknown[] = [];
  vi.spyOn(onboarding, 'track').mockImplementation(async (event, properties) => {
    if (event === 'onboarding:resource-center') recorded.push(properties);
  });
  const el = await fixture<OnboardingResourceCenter>(
    html`<onboarding-resource-center flow="centre"></onboarding-resource-center>`,
  );
  await settle(el);
  return { el, writes, recorded };
}

async function settle(el: OnboardingResourceCenter): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await tick(10);
    await el.updateComplete;
  }
}

describe('<onboarding-resource-center>', () => {
  it('shows a launcher whose badge counts the unread announcement and the open tasks, with an accessible label', async () => {
    const { el } = await mount();
    const launcher = q(el, '[part=launcher]')!;
    expect(launcher.classList.contains('bottom-right')).toBe(true);
    expect(launcher.getAttribute('aria-expanded')).toBe('false');
    expect(launcher.textContent).toContain('Help centre');
    const badge = q(el, '[part=badge]')!;
    expect(badge.textContent).toBe('3');
    expect(badge.getAttribute('aria-label')).toBe('3 unread');
    expect($unread.get()).toBe(3);
    expect(q(el, '[role=dialog]')).toBeNull();
  });

  it('opens a named, non-modal panel with focus inside; opening records the centre once and reading the feed lowers the badge', async () => {
    const { el, writes } = await mount();
    q(el, '[part=launcher]')!.click();
    await settle(el);
    const panel = q(el, '[role=dialog]')!;
    expect(panel.getAttribute('aria-labelledby')).toBe('title');
    expect(q(el, '#title')!.textContent).toBe('Help centre');
    expect(panel.getAttribute('aria-modal')).toBeNull();
    expect(el.shadowRoot!.activeElement).toBe(q(el, 'input'));
    // The checklist drawn inside records its own showing, as <onboarding-checklist> does anywhere.
    expect(writes.filter(([slug]) => slug !== 'setup')).toEqual([
      ['centre', 'STARTED_FLOW'],
      ['news', 'STARTED_FLOW'],
    ]);
    expect($unread.get()).toBe(2);
    expect(q(el, '[part=badge]')!.textContent).toBe('2');
    // Rows: each flow with the user's state; the feed's item; an unsafe link left out; the checklist drawn inside.
    expect(qa(el, '[part~=block-flows] [part=item]').map((row) => row.textContent.replace(/\s+/g, ' ').trim())).toEqual(
      ['Welcome tour Done', 'Reports New'],
    );
    expect(q(el, '[part~=block-announcements]')!.textContent).toContain('Easy on the eyes');
    expect(qa(el, '[part~=block-links] a').map((a) => a.getAttribute('href'))).toEqual(['/guide']);
    expect(q(el, 'onboarding-checklist')!.getAttribute('flow')).toBe('setup');
    $resourceCenterOpen.set(false);
    await settle(el);
    $resourceCenterOpen.set(true);
    await settle(el);
    expect(writes.filter(([slug]) => slug === 'centre')).toHaveLength(1);
  });

  it('filters every block by a word only a step holds, says when nothing matches, and records a submitted search', async () => {
    const { el, recorded } = await mount();
    $resourceCenterOpen.set(true);
    await settle(el);
    const input = q(el, 'input') as HTMLInputElement;
    input.value = 'quarterly';
    input.dispatchEvent(new Event('input'));
    await settle(el);
    expect(qa(el, '[part~=block]').map((block) => block.getAttribute('part'))).toEqual([
      'block block-search',
      'block block-flows',
    ]);
    expect(q(el, '[part~=block-flows]')!.textContent).toContain('Reports');
    q(el, 'form')!.dispatchEvent(new Event('submit', { cancelable: true }));
    expect(recorded).toEqual([{ flow: 'centre', action: 'search', block: 'find', query: 'quarterly', results: 1 }]);
    input.value = 'zebra';
    input.dispatchEvent(new Event('input'));
    await settle(el);
    expect(q(el, '[role=status]')!.textContent).toBe('No results');
  });

  it('replays a finished tour from the list: it starts over, starts, the click is recorded and the panel closes', async () => {
    const { el, writes, recorded } = await mount();
    $resourceCenterOpen.set(true);
    await settle(el);
    writes.length = 0;
    q(el, '[part~=block-flows] [part=item]')!.click();
    await settle(el);
    expect(writes).toEqual([
      ['welcome', 'NOT_STARTED_FLOW'],
      ['welcome', 'STARTED_FLOW'],
    ]);
    expect(recorded).toEqual([{ flow: 'centre', action: 'click', block: 'tours', item: 'welcome' }]);
    expect($resourceCenterOpen.get()).toBe(false);
    expect(q(el, '[role=dialog]')).toBeNull();
  });

  it('closes on Escape and gives focus back to the launcher', async () => {
    const { el } = await mount();
    const launcher = q(el, '[part=launcher]')!;
    launcher.focus();
    launcher.click();
    await settle(el);
    q(el, 'input')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
    await settle(el);
    expect(q(el, '[role=dialog]')).toBeNull();
    expect(el.shadowRoot!.activeElement).toBe(launcher);
  });

  it("uses the page's own launcher: no floating button, the count as data-onboarding-unread, a click opens it", async () => {
    const help = document.createElement('button');
    help.id = 'help';
    document.body.append(help);
    const { el } = await mount({ selector: '#help' });
    expect(q(el, '[part=launcher]')).toBeNull();
    expect(help.getAttribute('data-onboarding-unread')).toBe('3');
    help.click();
    await settle(el);
    expect($resourceCenterOpen.get()).toBe(true);
    expect(q(el, '[role=dialog]')).not.toBeNull();
    // The checklist's tasks done: nothing unread, and the attribute goes.
    const states = $flowStates.get();
    $flowStates.set({
      ...states,
      setup: { ...states.setup, $state: { ...states.setup.$state, completed: true, visible: false } },
    });
    await settle(el);
    expect($unread.get()).toBe(0);
    expect(help.hasAttribute('data-onboarding-unread')).toBe(false);
  });
});
