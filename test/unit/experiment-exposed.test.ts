// Experiments in the script: `experiment.exposed` read off the state answers, the answer's experiments kept in the cache, and their forwarding once per browser.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ExperimentExposure, FlowStatesResponse } from '../../src/api/wire.js';
import { readState, writeState } from '../../src/core/cache.js';
import { createEmitter, type ExperimentExposedEvent, type OnboardingEventName } from '../../src/core/events.js';
import { FORWARDED_KEY, forwardEvents } from '../../src/core/forward.js';
import { StateSync } from '../../src/core/state-sync.js';
import { createSafeStorage } from '../../src/core/storage.js';

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

const exposure = (id: string, variant = 'short'): ExperimentExposure => ({
  id,
  variant,
  exposedAt: `2026-06-01T09:00:0${id.length % 10}.000Z`,
});
const answer = (...experiments: ExperimentExposure[]): FlowStatesResponse => ({
  eligibleFlows: [],
  ineligibleFlows: [],
  ...(experiments.length ? { experiments } : {}),
});

/** A state with no outbox, tabs or service around it; `user` is the current user, `exposed` what it announces. */
function stateOf() {
  const exposed: Array<[string, ExperimentExposedEvent]> = [];
  const host = { user: 'ada' };
  const state = new StateSync({
    storage: createSafeStorage('test:'),
    userId: () => host.user,
    groupId: () => undefined,
    initialized: () => false,
    outbox: () => undefined,
    tabs: () => undefined,
    contentLocale: () => '',
    refresh: () => {},
    emit: (name, event) => {
      if (name === 'experiment.exposed') exposed.push([host.user, event as ExperimentExposedEvent]);
    },
  });
  return { state, exposed, host };
}

describe('experiment.exposed', () => {
  it('is raised once per experiment, not again on the next answer, and again for a new experiment', () => {
    const { state, exposed } = stateOf();
    void state.take(answer(exposure('welcome-copy')), null);
    expect(exposed).toEqual([
      ['ada', { experiment: 'welcome-copy', variant: 'short', exposedAt: exposure('welcome-copy').exposedAt }],
    ]);
    void state.take(answer(exposure('welcome-copy')), null);
    void state.take(answer(), null);
    void state.take(answer(exposure('welcome-copy')), null);
    state.recompute();
    expect(exposed).toHaveLength(1);
    void state.take(answer(exposure('welcome-copy'), exposure('pricing', 'control')), null);
    expect(exposed.map(([, event]) => [event.experiment, event.variant])).toEqual([
      ['welcome-copy', 'short'],
      ['pricing', 'control'],
    ]);
  });

  it('is raised for each user the page shows, once each', () => {
    const { state, exposed, host } = stateOf();
    void state.take(answer(exposure('welcome-copy')), null);
    host.user = 'grace';
    state.switchTo('grace', answer(exposure('welcome-copy', 'long')));
    void state.take(answer(exposure('welcome-copy', 'long')), null);
    host.user = 'ada';
    state.switchTo('ada', answer(exposure('welcome-copy')));
    expect(exposed.map(([user, event]) => [user, event.variant])).toEqual([
      ['ada', 'short'],
      ['grace', 'long'],
    ]);
  });

  it("is raised from another tab's answer", () => {
    const { state, exposed } = stateOf();
    state.receive({ type: 'state', userId: 'ada', states: answer(exposure('welcome-copy')), order: [] });
    state.recompute();
    expect(exposed.map(([, event]) => event.experiment)).toEqual(['welcome-copy']);
  });

  it('leaves out an experiments list it cannot read, and keeps the flows', () => {
    const { state, exposed } = stateOf();
    for (const experiments of [{ id: 'x' }, 'x', [null, 7, { variant: 'short' }]])
      void state.take({ ...answer(), experiments } as unknown as FlowStatesResponse, null);
    expect(exposed).toEqual([]);
  });

  it('keeps the experiments of the answer in the cached state', () => {
    const storage = createSafeStorage('test:');
    const states = { ...answer(exposure('welcome-copy')), collections: { computedOrder: [] } };
    writeState(storage, 'ada', states);
    expect(readState(storage, 'ada')).toEqual(states);
    writeState(storage, 'ada', answer());
    expect(readState(storage, 'ada')).toEqual(answer());
  });
});

describe('forwarding experiment.exposed', () => {
  const exposed = { experiment: 'welcome-copy', variant: 'short', exposedAt: '2026-06-01T09:00:00.000Z' };

  /** A page with forwarding to PostHog and Segment; what they were sent. */
  function page(early: Array<[OnboardingEventName, unknown]> = []) {
    const sent: unknown[] = [];
    vi.stubGlobal('posthog', {
      capture: (name: string, properties: object) => sent.push(['posthog', name, properties]),
    });
    vi.stubGlobal('analytics', {
      track: (name: string, properties: object) => sent.push(['segment', name, properties]),
    });
    const emitter = createEmitter(() => {});
    forwardEvents((name, handler) => emitter.on(name, handler), ['posthog', 'segment'], early);
    return { emitter, sent };
  }

  it('sends an exposure to PostHog and Segment once per browser, across pages, and a new one', () => {
    const first = page([['experiment.exposed', exposed]]);
    first.emitter.emit('experiment.exposed', exposed);
    expect(first.sent).toEqual([
      ['posthog', 'experiment.exposed', { experimentId: 'welcome-copy', variant: 'short' }],
      ['segment', 'experiment.exposed', { experimentId: 'welcome-copy', variant: 'short' }],
    ]);
    // The next page (a reload) announces it again: nothing is sent.
    const second = page([['experiment.exposed', exposed]]);
    expect(second.sent).toEqual([]);
    second.emitter.emit('experiment.exposed', { ...exposed, experiment: 'pricing', variant: 'control' });
    expect(second.sent).toEqual([
      ['posthog', 'experiment.exposed', { experimentId: 'pricing', variant: 'control' }],
      ['segment', 'experiment.exposed', { experimentId: 'pricing', variant: 'control' }],
    ]);
    expect(localStorage.getItem(FORWARDED_KEY)?.split('\n')).toHaveLength(2);
  });

  it('remembers a bounded number of exposures, the newest', () => {
    const { emitter, sent } = page();
    for (let n = 0; n < 150; n++) emitter.emit('experiment.exposed', { ...exposed, experiment: `e${n}` });
    expect(sent).toHaveLength(300);
    const remembered = localStorage.getItem(FORWARDED_KEY)!.split('\n');
    expect(remembered).toHaveLength(100);
    expect(remembered[0]).toBe(`e149 ${exposed.exposedAt}`);
  });

  it('sends once per page when storage throws, and never throws into the page', () => {
    const throwing = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    vi.stubGlobal('localStorage', throwing);
    const { emitter, sent } = page();
    emitter.emit('experiment.exposed', exposed);
    emitter.emit('experiment.exposed', exposed);
    expect(sent).toHaveLength(2);
  });
});
