// The resource centre's logic (src/core/resource-center.ts) and its state in the SDK: the unread count, each flow's
// state, search over step text, replaying a flow, the contact providers, and Onboarding.resourceCenter with its event.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ActionType, ResourceCenterData } from '../../src/api/wire.js';
import {
  centreView,
  followUnread,
  itemState,
  openContact,
  startFlow,
  unreadCount,
} from '../../src/core/resource-center.js';
import { applyWrite } from '../../src/core/optimistic.js';
import { inFeedOnly } from '../../src/core/resource-center-feed.js';
import { Onboarding } from '../../src/core/onboarding.js';
import { $flows, $flowStates, $transitionSlot } from '../../src/stores/flows.js';
import { $resourceCenterOpen, $unread } from '../../src/stores/resource-center.js';
import { resetStores, seedFlow } from '../support/component-stores.js';

const CENTRE: ResourceCenterData = {
  title: 'Help',
  blocks: [
    { id: 'find', type: 'search' },
    { id: 'setup', type: 'checklist', flow: 'setup' },
    { id: 'tours', type: 'flows', title: 'Tours', flows: ['welcome', 'reports', 'missing'] },
    { id: 'news', type: 'announcements', flows: ['news-2', 'news-1'] },
    {
      id: 'more',
      type: 'links',
      links: [
        { title: 'Docs', url: 'https://example.com/docs' },
        { title: 'Tour', flow: 'welcome' },
      ],
    },
    { id: 'intro', type: 'text', text: 'We answer <b>within a day</b>.' },
    { id: 'talk', type: 'contact', title: 'Chat with us', provider: 'intercom', url: 'mailto:help@example.com' },
  ],
};

const steps = (...texts: string[]) =>
  texts.map((text, i) => ({ id: `s${i + 1}`, title: `Step ${i + 1}`, subtitle: text }));

/** A user with a half-done checklist, a finished tour, a new one, and one read and one unread announcement. */
function seedUser(): void {
  seedFlow('centre', 'RESOURCE_CENTER', { ...CENTRE, steps: [] });
  seedFlow(
    'setup',
    'CHECKLIST',
    { title: 'Set up', steps: steps('Invite', 'Connect', 'Import') },
    {
      steps: { s1: { completed: true, started: true } },
    },
  );
  seedFlow('welcome', 'TOUR', { steps: steps('Look at the dashboard') }, { completed: true });
  seedFlow('reports', 'TOUR', { steps: steps('Export a quarterly spreadsheet') });
  seedFlow('news-1', 'ANNOUNCEMENT', { steps: steps('Old news') });
  seedFlow('news-2', 'ANNOUNCEMENT', { steps: steps('Dark mode is here') });
  // The checklist with a step done, the completed tour and the read announcement were started.
  const states = $flowStates.get();
  const started = (slug: string) => ({ ...states[slug], $state: { ...states[slug].$state, started: true } });
  $flowStates.set({ ...states, setup: started('setup'), welcome: started('welcome'), 'news-1': started('news-1') });
}

/** Transitions applied to the stores as the core applies them optimistically; each one recorded. */
function applyTransitions(): Array<[string, ActionType]> {
  const calls: Array<[string, ActionType]> = [];
  $transitionSlot.set(async (flowSlug, actionType, stepId) => {
    calls.push([flowSlug, actionType]);
    const states = $flowStates.get();
    $flowStates.set({ ...states, [flowSlug]: applyWrite(states[flowSlug], { flowSlug, actionType, stepId } as never) });
  });
  return calls;
}

afterEach(() => {
  resetStores();
  $resourceCenterOpen.set(false);
  $unread.set(0);
  vi.unstubAllGlobals();
});

describe('the resource centre in the script', () => {
  it('counts unread announcements and the open tasks of its checklist', () => {
    seedUser();
    // news-2 unread; setup has two open steps of three.
    expect(unreadCount(CENTRE, $flows.get())).toBe(3);
  });

  it('counts each announcement once, and nothing for flows the user is not eligible for', () => {
    seedUser();
    const twice: ResourceCenterData = {
      title: 'x',
      blocks: [
        { id: 'a', type: 'announcements', flows: ['news-2', 'gone'] },
        { id: 'b', type: 'announcements', flows: ['news-2'] },
        { id: 'c', type: 'checklist', flow: 'gone' },
      ],
    };
    expect(unreadCount(twice, $flows.get())).toBe(1);
    expect(unreadCount(undefined, $flows.get())).toBe(0);
    expect(unreadCount({ blocks: 'nonsense' } as never, $flows.get())).toBe(0);
  });

  it('keeps $unread at the count while it follows the centre, and puts it back to 0 when it stops', () => {
    seedUser();
    const stop = followUnread('centre');
    expect($unread.get()).toBe(3);
    const states = $flowStates.get();
    $flowStates.set({
      ...states,
      'news-2': applyWrite(states['news-2'], { flowSlug: 'news-2', actionType: 'STARTED_FLOW', stepId: 's1' } as never),
    });
    expect($unread.get()).toBe(2);
    stop();
    expect($unread.get()).toBe(0);
  });

  it("gives each listed flow the user's state: new, in progress or done", () => {
    seedUser();
    const flows = $flows.get();
    expect(itemState(flows.reports)).toBe('new');
    expect(itemState(flows.welcome)).toBe('done');
    expect(itemState(flows.setup)).toBe('progress');
  });

  it('shows every block with something in it, leaving out flows the user is not eligible for', () => {
    seedUser();
    const view = centreView(CENTRE, $flows.get());
    expect(view.blocks.map(({ block }) => block.id)).toEqual([
      'find',
      'setup',
      'tours',
      'news',
      'more',
      'intro',
      'talk',
    ]);
    expect(view.blocks[2].flows.map((flow) => flow.slug)).toEqual(['welcome', 'reports']);
    expect(view.blocks[3].flows.map((flow) => flow.slug)).toEqual(['news-2', 'news-1']);
  });

  it("finds a word that only a step's text holds, ignoring case and accents, and counts what it found", () => {
    seedUser();
    const view = centreView(CENTRE, $flows.get(), 'QUARTERLY spréadsheet');
    expect(view.blocks.map(({ block }) => block.id)).toEqual(['find', 'tours']);
    expect(view.blocks[1].flows.map((flow) => flow.slug)).toEqual(['reports']);
    expect(view.results).toBe(1);
    // Link titles, a flow link's flow text, a text block's text and a contact's title.
    expect(centreView(CENTRE, $flows.get(), 'docs').blocks.map(({ block }) => block.id)).toEqual(['find', 'more']);
    expect(centreView(CENTRE, $flows.get(), 'within').results).toBe(1);
    expect(centreView(CENTRE, $flows.get(), 'chat').blocks.map(({ block }) => block.id)).toEqual(['find', 'talk']);
    expect(centreView(CENTRE, $flows.get(), 'nothing-like-this').results).toBe(0);
  });

  it('replays a finished tour: it starts over, then starts', async () => {
    seedUser();
    const calls = applyTransitions();
    await startFlow('welcome');
    expect(calls).toEqual([
      ['welcome', 'NOT_STARTED_FLOW'],
      ['welcome', 'STARTED_FLOW'],
    ]);
    expect($flows.get().welcome.isStarted).toBe(true);
    expect($flows.get().welcome.isCompleted).toBe(false);
  });

  it('starts a new flow without starting it over, and does nothing for a flow the user is not eligible for', async () => {
    seedUser();
    const calls = applyTransitions();
    await startFlow('reports');
    await startFlow('missing');
    expect(calls).toEqual([['reports', 'STARTED_FLOW']]);
  });

  it('keeps an announcement a centre lists without popup: true from opening by itself, while that centre is eligible', () => {
    seedUser();
    expect(inFeedOnly('news-1', $flows.get())).toBe(true);
    expect(inFeedOnly('reports', $flows.get())).toBe(false);
    const states = $flowStates.get();
    const popup = { ...CENTRE, blocks: [{ id: 'news', type: 'announcements', flows: ['news-1'], popup: true }] };
    seedFlow('centre', 'RESOURCE_CENTER', { ...popup, steps: [] });
    expect(inFeedOnly('news-1', $flows.get())).toBe(false);
    // A centre the user dismissed lists nothing.
    $flowStates.set({ ...states, centre: { ...states.centre, $state: { ...states.centre.$state, skipped: true } } });
    expect(inFeedOnly('news-1', $flows.get())).toBe(false);
  });

  it("opens each provider's widget through its JavaScript API, and says when it is not on the page", () => {
    expect(openContact('intercom')).toBe(false);
    expect(openContact('toString')).toBe(false);
    const intercom = vi.fn();
    const zE = vi.fn();
    const beacon = vi.fn();
    const open = vi.fn();
    const crisp: unknown[] = [];
    vi.stubGlobal('Intercom', intercom);
    vi.stubGlobal('zE', zE);
    vi.stubGlobal('Beacon', beacon);
    vi.stubGlobal('HubSpotConversations', { widget: { open } });
    vi.stubGlobal('$crisp', crisp);
    for (const provider of ['intercom', 'crisp', 'hubspot', 'zendesk', 'helpscout'])
      expect(openContact(provider)).toBe(true);
    expect(intercom).toHaveBeenCalledWith('show');
    expect(crisp).toEqual([['do', 'chat:open']]);
    expect(open).toHaveBeenCalled();
    expect(zE).toHaveBeenCalledWith('messenger', 'open');
    expect(beacon).toHaveBeenCalledWith('open');
  });
});

describe('Onboarding.resourceCenter', () => {
  it('opens, closes and toggles the panel, and tells `resource-center` listeners each change with the count', () => {
    const sdk = new Onboarding();
    const events: unknown[] = [];
    const stop = sdk.on('resource-center', (event) => events.push(event));
    expect(sdk.resourceCenter.isOpen()).toBe(false);
    sdk.resourceCenter.open();
    expect(sdk.resourceCenter.isOpen()).toBe(true);
    // Opening an open panel changes nothing, so tells nothing.
    sdk.resourceCenter.open();
    $unread.set(2);
    sdk.resourceCenter.toggle();
    expect(sdk.resourceCenter.isOpen()).toBe(false);
    sdk.resourceCenter.toggle();
    sdk.resourceCenter.close();
    stop();
    expect(events).toEqual([
      { open: true, unread: 0 },
      { open: true, unread: 2 },
      { open: false, unread: 2 },
      { open: true, unread: 2 },
      { open: false, unread: 2 },
    ]);
  });

  it('exports $unread from the ESM build as a nanostores store', async () => {
    const esm = await import('../../src/index.js');
    expect(esm.$unread).toBe($unread);
    expect(typeof esm.$unread.subscribe).toBe('function');
  });
});
