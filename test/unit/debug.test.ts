// Onboarding.debug() (src/core/debug.ts) on the script's stores in happy-dom, and the reasons the start rules keep for it;
// Chromium runs it on real pages (test/browser/components-tour.test.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { explainFlows, waitingFor, type PageFacts } from '../../src/core/debug.js';
import { onError } from '../../src/core/errors.js';
import { $activeModal, $covered } from '../../src/components/shared/modal-queue.js';
import { $flowStates, $held, $ineligibleFlows } from '../../src/stores/flows.js';
import { watchStartRules } from '../../src/page/start-rules.js';
import type { FlowState } from '../../src/api/wire.js';
import { resetStores, seedFlow, tick } from '../support/component-stores.js';

/** An element of ours drawing `slug`: its shadow root holds `inner`. */
function element(slug: string, inner: string, tag = 'onboarding-banner'): HTMLElement {
  const host = document.createElement(tag) as HTMLElement & { flow: string };
  host.flow = slug;
  host.attachShadow({ mode: 'open' }).innerHTML = inner;
  document.body.append(host);
  return host;
}

const facts = (more: Partial<PageFacts>): PageFacts => ({ visible: true, finished: false, open: false, ...more });

beforeEach(() => {
  resetStores();
  $ineligibleFlows.set([]);
  $activeModal.set(null);
  $covered.set(undefined);
  document.body.innerHTML = '';
  history.replaceState({}, '', '/');
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('what a flow waits for', () => {
  it('waits for nothing when the service did not send it visible, when it is finished, or when it is open', () => {
    const everything: Partial<PageFacts> = {
      startRule: 'page',
      stepsOffPage: true,
      targetMissing: true,
      modalOpen: true,
    };
    expect(waitingFor(facts({ ...everything, visible: false }))).toBeNull();
    expect(waitingFor(facts({ ...everything, finished: true }))).toBeNull();
    expect(waitingFor(facts({ ...everything, open: true }))).toBeNull();
    expect(waitingFor(facts({}))).toBeNull();
  });

  it('names the start rule first, then the step’s page, then its target, then the modal slot', () => {
    const all: Partial<PageFacts> = { stepsOffPage: true, targetMissing: true, modalOpen: true };
    for (const rule of ['page', 'element', 'click', 'delay'] as const)
      expect(waitingFor(facts({ ...all, startRule: rule }))).toBe(rule);
    expect(waitingFor(facts(all))).toBe('page');
    expect(waitingFor(facts({ targetMissing: true, modalOpen: true }))).toBe('target');
    expect(waitingFor(facts({ modalOpen: true }))).toBe('modal');
  });
});

describe('Onboarding.debug() on the stores', () => {
  it('lists each eligible flow in catalog order, then the ineligible ones, with what it waits for', () => {
    seedFlow('drawn', 'BANNER', { steps: [{ id: 'a', title: 'Drawn' }] });
    seedFlow('placed-nowhere', 'CHECKLIST', { steps: [{ id: 'a', title: 'Nowhere' }] });
    seedFlow('done', 'ANNOUNCEMENT', { steps: [{ id: 'a', title: 'Done' }] }, { completed: true });
    seedFlow('tour', 'TOUR', { steps: [{ id: 'a', title: 'Points', selector: '#nowhere' }] });
    seedFlow('elsewhere', 'TOUR', { steps: [{ id: 'a', title: 'Lives on', selector: '#x', page: '/reports/*' }] });
    seedFlow('centred', 'TOUR', { steps: [{ id: 'a', title: 'Centred' }] });
    seedFlow('survey', 'SURVEY', { steps: [{ id: 'a', title: 'Survey' }] });
    $ineligibleFlows.set(['targeted-out', 'done']);
    element('drawn', '<section part="base">Drawn</section>');
    // A survey that has not got the slot draws its live region alone: that is not open.
    element('survey', '<div class="visually-hidden" aria-live="polite"></div>', 'onboarding-survey');
    expect(explainFlows()).toEqual([
      { flowSlug: 'drawn', visible: true, open: true, waitingFor: null },
      { flowSlug: 'placed-nowhere', visible: true, open: false, waitingFor: null },
      { flowSlug: 'done', visible: false, open: false, waitingFor: null },
      // happy-dom lays nothing out, so no target is visible in it.
      { flowSlug: 'tour', visible: true, open: false, waitingFor: 'target' },
      { flowSlug: 'elsewhere', visible: true, open: false, waitingFor: 'page' },
      { flowSlug: 'centred', visible: true, open: false, waitingFor: null },
      { flowSlug: 'survey', visible: true, open: false, waitingFor: null },
      { flowSlug: 'targeted-out', visible: false, open: false, waitingFor: null },
    ]);
  });

  it('finds our elements inside shadow roots, and lets an <onboarding-flow> answer through the element it draws', () => {
    seedFlow('inline', 'CARD', { steps: [{ id: 'a', title: 'Card' }] });
    seedFlow('custom', 'CUSTOM', { steps: [{ id: 'a', title: 'Custom' }] });
    const app = document.createElement('my-app');
    document.body.append(app);
    const flowElement = document.createElement('onboarding-flow') as HTMLElement & { flow: string };
    flowElement.flow = 'inline';
    app.attachShadow({ mode: 'open' }).append(flowElement);
    const inner = document.createElement('onboarding-card') as HTMLElement & { flow: string };
    inner.flow = 'inline';
    inner.setAttribute('part', 'element');
    flowElement.attachShadow({ mode: 'open' }).append(inner);
    const innerRoot = inner.attachShadow({ mode: 'open' });
    expect(explainFlows().find((row) => row.flowSlug === 'inline')?.open).toBe(false);
    innerRoot.innerHTML = '<article part="base">Card</article>';
    element('custom', '<slot></slot>', 'onboarding-flow');
    expect(explainFlows().map((row) => [row.flowSlug, row.open])).toEqual([
      ['inline', true],
      ['custom', true],
    ]);
  });

  it('says a modal flow waits while another holds the slot, and a hint while a modal covers the page', () => {
    seedFlow('news', 'ANNOUNCEMENT', { steps: [{ id: 'a', title: 'News' }] });
    seedFlow('survey', 'SURVEY', { steps: [{ id: 'a', title: 'Survey' }] });
    seedFlow('banner', 'BANNER', { steps: [{ id: 'a', title: 'Banner' }] });
    seedFlow('hint', 'HINT', { steps: [{ id: 'a', title: 'Hint', selector: 'body' }] });
    element('news', '<dialog part="base">News</dialog>', 'onboarding-announcement');
    $activeModal.set('news');
    $covered.set({});
    // The hint's target is not visible in happy-dom either: the target comes before the cover.
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue(new DOMRect(0, 0, 100, 20));
    const rows = Object.fromEntries(explainFlows().map((row) => [row.flowSlug, row.waitingFor]));
    expect(rows).toEqual({ news: null, survey: 'modal', banner: null, hint: 'modal' });
  });

  it('reports the rule each held flow waits for, as the start rules keep it, and the first rule that does not hold while they load', () => {
    seedFlow('on-reports', 'BANNER', { startWhen: { page: '/reports/*' }, steps: [{ id: 'a', title: 'Reports' }] });
    seedFlow('by-click', 'TOUR', { startWhen: { click: '#take-tour' }, steps: [{ id: 'a', title: 'Tour' }] });
    seedFlow('late', 'BANNER', { startWhen: { delay: '1h' }, steps: [{ id: 'a', title: 'Later' }] });
    // While dist/onboarding-watch.js loads, the script holds every flow with rules, without reasons.
    $held.set(new Set(['on-reports', 'by-click', 'late']));
    const waits = () => Object.fromEntries(explainFlows().map((row) => [row.flowSlug, row.waitingFor]));
    expect(waits()).toEqual({ 'on-reports': 'page', 'by-click': 'click', late: 'delay' });
    const stop = watchStartRules();
    try {
      expect($held.get()).toEqual(
        new Map([
          ['on-reports', 'page'],
          ['by-click', 'click'],
          ['late', 'delay'],
        ]),
      );
      expect(waits()).toEqual({ 'on-reports': 'page', 'by-click': 'click', late: 'delay' });
    } finally {
      stop();
    }
  });

  it('keeps the start rules’ reasons up to date as the page changes', async () => {
    seedFlow('on-reports', 'BANNER', {
      startWhen: { page: '/reports/*', delay: '20ms' },
      steps: [{ id: 'a', title: 'Reports' }],
    });
    const stop = watchStartRules();
    try {
      expect($held.get()).toEqual(new Map([['on-reports', 'page']]));
      history.pushState({}, '', '/reports/q3');
      await tick(5);
      expect($held.get()).toEqual(new Map([['on-reports', 'delay']]));
      await tick(40);
      expect($held.get()).toEqual(new Map());
    } finally {
      stop();
    }
  });

  it('is the ESM build’s onboarding.debug(), a promise', async () => {
    const { onboarding } = await import('../../src/index.js');
    seedFlow('banner', 'BANNER', { steps: [{ id: 'a', title: 'Banner' }] });
    const answer = onboarding.debug();
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toEqual([{ flowSlug: 'banner', visible: true, open: false, waitingFor: null }]);
  });

  it('prints a table with { log: true } only', () => {
    seedFlow('banner', 'BANNER', { steps: [{ id: 'a', title: 'Banner' }] });
    const table = vi.spyOn(console, 'table').mockImplementation(() => {});
    const rows = explainFlows();
    expect(table).not.toHaveBeenCalled();
    expect(explainFlows({ log: true })).toEqual(rows);
    expect(table).toHaveBeenCalledWith(rows);
  });

  it('never throws into the page: a state it cannot read is reported, and it answers []', () => {
    const reported: string[] = [];
    const stop = onError((_error, code) => reported.push(code));
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      $flowStates.set({ broken: { flowSlug: 'broken' } as unknown as FlowState });
      expect(explainFlows()).toEqual([]);
      expect(reported).toEqual(['internal-error']);
    } finally {
      stop();
    }
  });
});
