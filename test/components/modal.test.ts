import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixture, fixtureCleanup, html } from '@open-wc/testing-helpers';
import { registerElements } from '../../src/index.js';
import { $activeModal, holdModal, releaseModal, requestModal } from '../../src/components/shared/modal-queue.js';
import { $elementOptions } from '../../src/stores/options.js';
import { $collections } from '../../src/stores/flows.js';
import { deepQuery } from '../../src/page/query.js';
import type { OnboardingAnnouncement } from '../../src/components/announcement/announcement.component.js';
import { resetStores, seedFlow, tick } from '../support/component-stores.js';

beforeAll(() => registerElements());
afterEach(() => {
  fixtureCleanup();
  resetStores();
  for (const slug of ['a', 'b', 'c', 'd']) releaseModal(slug);
  $activeModal.set(null);
});

describe('the modal queue', () => {
  it('grants announcement, then tour, then survey, one at a time', async () => {
    requestModal('c', 'SURVEY', undefined);
    requestModal('b', 'TOUR', undefined);
    requestModal('a', 'ANNOUNCEMENT', undefined);
    expect($activeModal.get()).toBeNull();
    await tick();
    expect($activeModal.get()).toBe('a');
    releaseModal('a');
    await tick();
    expect($activeModal.get()).toBe('b');
    releaseModal('b');
    await tick();
    expect($activeModal.get()).toBe('c');
  });

  it('puts a higher props.priority first, but never interrupts an open flow', async () => {
    requestModal('a', 'ANNOUNCEMENT', 0);
    requestModal('c', 'SURVEY', 7);
    await tick();
    expect($activeModal.get()).toBe('c');
    requestModal('d', 'TOUR', 99);
    await tick();
    expect($activeModal.get()).toBe('c');
    releaseModal('c');
    await tick();
    expect($activeModal.get()).toBe('d');
  });

  it('takes the order of the collections on a tie: collections in file order, the flows of each in order, before flows in none', async () => {
    const row = (collectionId: string, flowId: string) => ({
      collectionId,
      flowId,
      visible: true,
      allowedComponents: [],
      collectionType: 'CUSTOM' as const,
    });
    $collections.set([row('first', 'c'), row('first', 'x'), row('second', 'b')]);
    // The announcement in no collection would come first by type; the survey of the first collection comes first.
    requestModal('a', 'ANNOUNCEMENT', 0);
    requestModal('b', 'TOUR', 0);
    requestModal('c', 'SURVEY', 0);
    await tick();
    expect($activeModal.get()).toBe('c');
    releaseModal('c');
    await tick();
    expect($activeModal.get()).toBe('b');
    releaseModal('b');
    await tick();
    expect($activeModal.get()).toBe('a');
    // props.priority still comes first.
    requestModal('b', 'TOUR', 0);
    requestModal('d', 'SURVEY', 1);
    releaseModal('a');
    await tick();
    expect($activeModal.get()).toBe('d');
  });

  it('keeps a loading flow its place: what it outranks waits, what outranks it opens, and its release frees the slot', async () => {
    // A survey of priority 5 whose element is still loading, then an announcement and a tour.
    const release = holdModal('SURVEY', 5);
    requestModal('a', 'ANNOUNCEMENT', 0);
    await tick();
    expect($activeModal.get()).toBeNull();
    requestModal('b', 'TOUR', 9);
    await tick();
    expect($activeModal.get()).toBe('b');
    releaseModal('b');
    await tick();
    expect($activeModal.get()).toBeNull();
    release();
    release();
    await tick();
    expect($activeModal.get()).toBe('a');
  });

  it('lets an equal-priority announcement open while a survey or tour loads, as the order puts it first', async () => {
    const releases = [holdModal('SURVEY', undefined), holdModal('TOUR', 0)];
    requestModal('a', 'ANNOUNCEMENT', undefined);
    await tick();
    expect($activeModal.get()).toBe('a');
    for (const release of releases) release();
  });
});

describe('auto-mount', () => {
  const mounted = () =>
    [...document.body.children]
      .filter((el) => el.hasAttribute('flow'))
      .map((el) => `${el.localName}:${el.getAttribute('flow')}`);
  beforeEach(() => $elementOptions.set({ autoMount: true }));

  it('adds an element for each eligible modal flow and removes it when the flow is done', async () => {
    seedFlow('ann', 'ANNOUNCEMENT', { steps: [{ id: 's', title: 'A' }] });
    seedFlow('sur', 'SURVEY', { steps: [{ id: 's', title: 'S' }] });
    seedFlow('ban', 'BANNER', { steps: [{ id: 's', title: 'B' }] });
    expect(mounted()).toEqual(['onboarding-announcement:ann', 'onboarding-survey:sur']);
    seedFlow('ann', 'ANNOUNCEMENT', { steps: [{ id: 's', title: 'A' }] }, { skipped: true });
    expect(mounted()).toEqual(['onboarding-survey:sur']);
  });

  it('can be turned off or restricted to slugs, and yields to an element the page placed', async () => {
    seedFlow('ann', 'ANNOUNCEMENT', { steps: [{ id: 's', title: 'A' }] });
    seedFlow('tour', 'TOUR', { steps: [{ id: 's', title: 'T' }] });
    $elementOptions.set({ autoMount: ['tour'] });
    expect(mounted()).toEqual(['onboarding-tour:tour']);
    $elementOptions.set({ autoMount: false });
    expect(mounted()).toEqual([]);
    $elementOptions.set({ autoMount: true });
    expect(mounted()).toEqual(['onboarding-announcement:ann', 'onboarding-tour:tour']);
    await fixture(html`<onboarding-tour flow="tour"></onboarding-tour>`);
    expect(mounted()).toEqual(['onboarding-announcement:ann']);
  });
});

describe('<onboarding-announcement> in happy-dom', () => {
  beforeEach(() => $elementOptions.set({ autoMount: false }));

  it('renders a labelled dialog only once it holds the modal slot', async () => {
    seedFlow('a', 'ANNOUNCEMENT', {
      steps: [
        { id: 's1', title: 'News', subtitle: 'Body' },
        { id: 's2', title: 'More' },
      ],
    });
    const el = await fixture<OnboardingAnnouncement>(
      html`<onboarding-announcement flow="a"></onboarding-announcement>`,
    );
    expect(el.shadowRoot!.querySelector('dialog')).toBeNull();
    await tick();
    await el.updateComplete;
    const dialog = el.shadowRoot!.querySelector('dialog')!;
    expect(dialog.getAttribute('aria-labelledby')).toBe('title');
    expect(el.shadowRoot!.querySelector('#title')!.textContent).toBe('News');
    expect(el.shadowRoot!.querySelector('[part="counter"]')!.textContent).toBe('Step 1 of 2');
    expect(el.shadowRoot!.querySelectorAll('.dot').length).toBe(2);
    expect(el.shadowRoot!.querySelector('[part="primary-button"]')!.textContent.trim()).toBe('Next');
  });
});

describe('tour target lookup', () => {
  it('finds elements in the document, through >>> and by searching open shadow roots', () => {
    document.body.innerHTML = '<div id="plain"></div><x-host></x-host>';
    const host = document.querySelector('x-host')!;
    const root = host.attachShadow({ mode: 'open' });
    root.innerHTML = '<span class="inner"></span><y-host></y-host>';
    const nested = root.querySelector('y-host')!.attachShadow({ mode: 'open' });
    nested.innerHTML = '<b class="deep"></b>';
    expect(deepQuery('#plain')).toBe(document.querySelector('#plain'));
    expect(deepQuery('x-host >>> .inner')).toBe(root.querySelector('.inner'));
    expect(deepQuery('x-host >>> y-host >>> .deep')).toBe(nested.querySelector('.deep'));
    expect(deepQuery('.deep')).toBe(nested.querySelector('.deep'));
    expect(deepQuery('x-host >>> .missing')).toBeNull();
    expect(deepQuery('[[invalid')).toBeNull();
    expect(deepQuery('>>> .inner')).toBeNull();
    document.body.innerHTML = '';
  });
});
