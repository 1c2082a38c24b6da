// init's `forward` (src/core/forward.ts) as the forward chunk runs it: the events emitted before it came go first, in order.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEmitter, type OnboardingEventName } from '../../src/core/events.js';
import { forwardEvents } from '../../src/core/forward.js';
import type { Flow, Step } from '../../src/flows/flow.js';

afterEach(() => vi.unstubAllGlobals());

describe('forwarding events', () => {
  it('sends the events of the meantime first, in order, then the later ones, and leaves out the ones it does not forward', () => {
    const sent: unknown[] = [];
    vi.stubGlobal('posthog', { capture: (name: string, properties: object) => sent.push([name, properties]) });
    const emitter = createEmitter(() => {});
    const flow = { slug: 'tour', version: 2, type: 'TOUR' } as Flow;
    const step = { id: 'one' } as Step;
    const early: Array<[OnboardingEventName, unknown]> = [
      ['flow.start', { flow }],
      ['change', { flows: {} }],
      ['step.complete', { flow, step }],
    ];
    forwardEvents((name, handler) => emitter.on(name, handler), 'posthog', early);
    emitter.emit('flow.complete', { flow });
    expect(sent).toEqual([
      ['flow.started', { flowSlug: 'tour', flowVersion: 2, stepId: undefined }],
      ['step.completed', { flowSlug: 'tour', flowVersion: 2, stepId: 'one' }],
      ['flow.completed', { flowSlug: 'tour', flowVersion: 2, stepId: undefined }],
    ]);
  });
});
