// The core's pure parts: optimistic transitions, the events read off a change, backoff, refresh triggers, snippet replay.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FlowState, FlowStateWriteRequest } from '../../src/api/wire.js';
import { applyWrite, replayWrites } from '../../src/core/optimistic.js';
import { createEmitter, diffFlowStates } from '../../src/core/events.js';
import { backoffMs } from '../../src/core/backoff.js';
import { watchForRefresh } from '../../src/core/refresh.js';
import { drainSnippet, type QueuedCall } from '../../src/core/snippet.js';
import { ApiError, isRetryable } from '../../src/api/client.js';

const flowState = (over: Partial<FlowState['$state']> = {}, visible = [true, true, true]): FlowState => ({
  flowSlug: 'tour',
  flowName: 'Tour',
  flowType: 'TOUR',
  version: 1,
  data: {
    steps: ['a', 'b', 'c'].map((id, i) => ({
      id,
      $state: {
        started: false,
        completed: false,
        skipped: false,
        visible: visible[i],
        blocked: false,
        flowResponses: [],
      },
    })),
  },
  $state: {
    currentStepId: 'a',
    currentStepIndex: 0,
    started: false,
    completed: false,
    skipped: false,
    visible: true,
    flowResponses: [],
    ...over,
  },
});
const write = (actionType: FlowStateWriteRequest['actionType'], stepId = 'a'): FlowStateWriteRequest => ({
  userId: 'u',
  flowSlug: 'tour',
  stepId,
  actionType,
  createdAt: '2026-01-01T00:00:00.000Z',
});
const apply = (state: FlowState, ...writes: FlowStateWriteRequest[]) =>
  replayWrites({ eligibleFlows: [state], ineligibleFlows: [] }, writes).tour;

describe('optimistic transitions', () => {
  it('moves the pointer past a completed step, skipping invisible ones, and completes the flow after the last', () => {
    const state = flowState({}, [true, false, true]);
    const afterA = applyWrite(state, write('COMPLETED_STEP', 'a'));
    expect(afterA.$state).toMatchObject({ currentStepId: 'c', currentStepIndex: 2, started: true, completed: false });
    expect(afterA.data.steps[0].$state).toMatchObject({ started: true, completed: true });
    expect(state.data.steps[0].$state.completed).toBe(false);
    const afterC = applyWrite(afterA, write('SKIPPED_STEP', 'c'));
    expect(afterC.$state).toMatchObject({ completed: true, visible: false });
    expect(afterC.data.steps[2].$state).toMatchObject({ skipped: true, started: false });
  });

  it('points at a reset step and clears everything on restart', () => {
    const done = apply(flowState(), write('COMPLETED_STEP', 'a'), write('COMPLETED_STEP', 'b'));
    expect(done.$state.currentStepId).toBe('c');
    const back = applyWrite(done, write('NOT_STARTED_STEP', 'b'));
    expect(back.$state.currentStepId).toBe('b');
    expect(back.data.steps[1].$state.completed).toBe(false);
    const restarted = applyWrite(done, write('NOT_STARTED_FLOW'));
    expect(restarted.$state).toMatchObject({ currentStepId: 'a', started: false, completed: false, visible: true });
    expect(restarted.data.steps.every((s) => !s.$state.completed)).toBe(true);
  });

  it('marks flow start, completion and skip', () => {
    expect(applyWrite(flowState(), write('STARTED_FLOW')).$state.started).toBe(true);
    expect(applyWrite(flowState(), write('COMPLETED_FLOW')).$state).toMatchObject({ completed: true, visible: false });
    expect(applyWrite(flowState(), write('SKIPPED_FLOW')).$state).toMatchObject({ skipped: true, visible: false });
    expect(applyWrite(flowState(), write('STARTED_STEP', 'b')).$state).toMatchObject({
      currentStepId: 'b',
      started: true,
    });
  });
});

describe('events read off a change', () => {
  it('names each flow and step change once, and a restart once', () => {
    const before = { tour: flowState() };
    const after = { tour: apply(flowState(), write('COMPLETED_STEP', 'a')) };
    expect(diffFlowStates(before, after).map((c) => `${c.name}:${c.stepId ?? ''}`)).toEqual([
      'flow.start:',
      'step.start:a',
      'step.complete:a',
    ]);
    const restarted = { tour: applyWrite(after.tour, write('NOT_STARTED_FLOW')) };
    expect(diffFlowStates(after, restarted).map((c) => c.name)).toEqual(['flow.restart']);
    expect(diffFlowStates(after, after)).toEqual([]);
    // A flow that appears (newly eligible) is a load, not a transition.
    expect(diffFlowStates({}, after)).toEqual([]);
  });

  it('keeps calling other handlers when one throws, and unsubscribes', () => {
    const failures: string[] = [];
    const emitter = createEmitter((_error, name) => failures.push(name));
    const seen: string[] = [];
    const off = emitter.on('change', () => seen.push('first'));
    emitter.on('change', () => {
      throw new Error('page bug');
    });
    emitter.on('change', () => seen.push('third'));
    emitter.emit('change', { flows: {} });
    off();
    emitter.emit('change', { flows: {} });
    expect(seen).toEqual(['first', 'third', 'third']);
    expect(failures).toEqual(['change', 'change']);
  });
});

describe('backoff', () => {
  it('grows exponentially with jitter, is capped, and honours Retry-After', () => {
    expect(backoffMs(0, 0, () => 0)).toBe(250);
    expect(backoffMs(0, 0, () => 1)).toBe(500);
    expect(backoffMs(3, 0, () => 1)).toBe(4000);
    expect(backoffMs(40, 0, () => 1)).toBe(30_000);
    expect(backoffMs(0, 5000, () => 1)).toBe(5000);
    // No Retry-After makes it wait longer than ten minutes.
    expect(backoffMs(0, 4_000_000_000, () => 1)).toBe(600_000);
  });

  it('retries network failures, 408, 429 and 5xx, and treats other 4xx as refusals', () => {
    expect(isRetryable(new ApiError(0, {}, undefined, 'network'))).toBe(true);
    for (const status of [408, 429, 500, 503]) expect(isRetryable(new ApiError(status, {}))).toBe(true);
    for (const status of [400, 401, 404, 409, 422]) expect(isRetryable(new ApiError(status, {}))).toBe(false);
  });

  it('never retries what the client did not classify as the network or a retryable status', () => {
    // A TypeError thrown by code (not by fetch) is not a network failure.
    expect(isRetryable(new TypeError("Cannot read properties of undefined (reading 'steps')"))).toBe(false);
    expect(isRetryable(new ApiError(201, {}, undefined, 'bad-answer'))).toBe(false);
    expect(isRetryable(undefined)).toBe(false);
  });
});

describe('refresh triggers', () => {
  afterEach(() => vi.useRealTimers());

  it('refreshes once after a burst of route changes, and when the tab is visible again', async () => {
    vi.useFakeTimers();
    const refresh = vi.fn();
    const stop = watchForRefresh(refresh, { debounceMs: 100 });
    history.pushState({}, '', '/one');
    history.pushState({}, '', '/two');
    window.dispatchEvent(new Event('hashchange'));
    history.replaceState({ scroll: 1 }, '', '/two');
    await vi.advanceTimersByTimeAsync(150);
    expect(refresh).toHaveBeenCalledTimes(1);
    // Storing UI state under the same address is not navigation.
    history.replaceState({ scroll: 2 }, '', '/two');
    await vi.advanceTimersByTimeAsync(150);
    expect(refresh).toHaveBeenCalledTimes(1);
    document.dispatchEvent(new Event('visibilitychange'));
    await vi.advanceTimersByTimeAsync(150);
    expect(refresh).toHaveBeenCalledTimes(2);
    stop();
    history.pushState({}, '', '/three');
    await vi.advanceTimersByTimeAsync(150);
    expect(refresh).toHaveBeenCalledTimes(2);
  });
});

describe('async snippet replay', () => {
  it('drains a snapshot once, in order, resolving each stub promise with the real result', async () => {
    const calls: string[] = [];
    const real = {
      ready: Promise.resolve('ready'),
      identify: async (id: string) => void calls.push(`identify:${id}`),
      track: (event: string) => {
        calls.push(`track:${event}`);
        return Promise.resolve();
      },
      init: () => {
        throw new Error('Onboarding.init: publicKey is required.');
      },
    };
    const queue: QueuedCall[] = [];
    const results: unknown[] = [];
    const push = (method: string, ...args: unknown[]) => queue.push([method, args, (value) => results.push(value)]);
    push('ready');
    push('identify', 'u1');
    push('track', 'opened');
    push('init');
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    drainSnippet({ _q: queue }, real);
    expect(queue).toHaveLength(0);
    expect(calls).toEqual(['identify:u1', 'track:opened']);
    // A call that reaches the stub after the drain runs at once, not twice.
    queue.push(['track', ['late'], undefined]);
    expect(calls).toEqual(['identify:u1', 'track:opened', 'track:late']);
    expect(await Promise.all(results)).toEqual(['ready', undefined, undefined, undefined]);
    vi.restoreAllMocks();
  });
});
