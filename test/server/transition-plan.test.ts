// The pure plan of a transition, with no database: its checks, the change each action makes, pointer moves, and what analytics counts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionType } from '../../src/api/wire.js';
import { FlowCatalog, type CatalogFlow } from '../../server/flows/catalog.js';
import type { Database } from '../../server/storage/store.js';
import type { StoredFlowState, StoredStepState, UserSnapshot } from '../../server/state/snapshot.js';
import {
  checkWrite,
  movePointer,
  planFlowAction,
  planStepAction,
  progressOf,
  type Write,
} from '../../server/state/transition-plan.js';
import { emptyEntity } from '../../server/targeting/cel.js';

const TASKS = `
slug: tasks
name: Tasks
type: CHECKLIST
data:
  steps:
    - id: a
      title: First
    - id: b
      title: Second
      visibilityCriteria: "!has(user.properties.hideB)"
    - id: c
      title: Third
      startCriteria: "has(user.properties.unlockC)"
`;

const NOW = new Date('2026-03-01T09:00:00Z');
let dir: string;
let flow: CatalogFlow;
/** The same steps, coming back 7 days after a dismissal, twice at most. */
let back: CatalogFlow;

/** A catalog loaded from a folder of its own, each flow recorded as version 1 by a stand-in for the database. */
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'transition-plan-'));
  writeFileSync(join(dir, 'tasks.yaml'), TASKS);
  writeFileSync(
    join(dir, 'back.yaml'),
    `reshow: { after: 7d, times: 2 }\n${TASKS.replace('slug: tasks', 'slug: back')}`,
  );
  const tx = {
    query: async (sql: string, params: unknown[] = []) =>
      sql.startsWith('INSERT')
        ? [
            {
              id: 1,
              slug: params[0],
              version: 1,
              content_hash: params[7],
              code_snippet: params[8],
              created_at: NOW,
              modified_at: NOW,
            },
          ]
        : [],
  };
  const db = { transaction: (work: (queryable: typeof tx) => Promise<unknown>) => work(tx) } as unknown as Database;
  const catalog = new FlowCatalog(db, dir, { warn: () => {}, info: () => {} });
  expect(await catalog.load()).toEqual([]);
  flow = catalog.get('tasks')!;
  back = catalog.get('back')!;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A user's snapshot with these rows and user properties, as a read would load it. */
function snapshotOf(
  rows: {
    flow?: Partial<StoredFlowState>;
    steps?: Record<string, Partial<StoredStepState>>;
    properties?: Record<string, unknown>;
  } = {},
  slug = 'tasks',
): UserSnapshot {
  const user = { ...emptyEntity(), id: 'user-1', properties: rows.properties ?? {} };
  const stored: StoredFlowState = {
    currentStepId: null,
    started: false,
    completed: false,
    skipped: false,
    lastActionAt: null,
    reshows: 0,
  };
  const step: StoredStepState = { started: false, completed: false, skipped: false, data: null, lastActionAt: null };
  const steps = new Map(Object.entries(rows.steps ?? {}).map(([id, state]) => [id, { ...step, ...state }]));
  return {
    exists: true,
    cel: { user, group: emptyEntity(), flows: new Map(), now: NOW },
    flows: rows.flow ? new Map([[slug, { ...stored, ...rows.flow }]]) : new Map(),
    steps: steps.size > 0 ? new Map([[slug, steps]]) : new Map(),
    responses: new Map(),
  };
}

/** A checked write of `actionType` on step `stepId` ('' for none). */
function write(actionType: ActionType, stepId = ''): { write: Write; stepIndex: number } {
  return checkWrite(flow, { userId: 'user-1', flowSlug: 'tasks', actionType, ...(stepId ? { stepId } : {}) }, NOW);
}

describe('checking a write', () => {
  it('asks a step action for its stepId, and refuses a step the flow does not have', () => {
    expect(() => write('COMPLETED_STEP')).toThrow(expect.objectContaining({ status: 400, field: 'stepId' }));
    expect(() => write('COMPLETED_STEP', 'z')).toThrow(expect.objectContaining({ status: 404, field: 'stepId' }));
    expect(write('COMPLETED_STEP', 'b').stepIndex).toBe(1);
    expect(write('STARTED_FLOW')).toMatchObject({
      stepIndex: -1,
      isStepAction: false,
      write: { stepId: '', date: NOW, url: null },
    });
  });

  it('takes createdAt from 2000 to 24 hours ahead of the clock, and cuts a long page address', () => {
    const body = { userId: 'user-1', flowSlug: 'tasks', actionType: 'STARTED_FLOW' as const };
    expect(() => checkWrite(flow, { ...body, createdAt: '1999-12-31T23:59:59Z' }, NOW)).toThrow(
      expect.objectContaining({ status: 400, field: 'createdAt' }),
    );
    expect(() => checkWrite(flow, { ...body, createdAt: '2026-03-02T09:00:01Z' }, NOW)).toThrow(
      expect.objectContaining({ status: 400 }),
    );
    expect(() => checkWrite(flow, { ...body, createdAt: 'yesterday' }, NOW)).toThrow(
      expect.objectContaining({ status: 400 }),
    );
    const checked = checkWrite(
      flow,
      { ...body, createdAt: '2026-03-02T08:00:00Z', context: { url: `https://a.test/${'x'.repeat(3000)}` } },
      NOW,
    );
    expect(checked.write.at).toBe('2026-03-02T08:00:00.000Z');
    expect(checked.write.url).toHaveLength(2048);
  });
});

describe('planning a flow action', () => {
  it('starts a flow once, and completes or skips it with one response each', () => {
    const start = planFlowAction(flow, snapshotOf(), write('STARTED_FLOW').write);
    expect(start).toMatchObject({ flow: { started: true, completed: false, lastActionAt: NOW.toISOString() } });
    expect(start!.responses.map((r) => r.actionType)).toEqual(['STARTED_FLOW']);
    expect(planFlowAction(flow, snapshotOf({ flow: { started: true } }), write('STARTED_FLOW').write)).toBeNull();
    expect(planFlowAction(flow, snapshotOf(), write('COMPLETED_FLOW').write)).toMatchObject({
      flow: { started: true, completed: true },
    });
    expect(planFlowAction(flow, snapshotOf({ flow: { started: true } }), write('SKIPPED_FLOW').write)).toMatchObject({
      flow: { started: true, skipped: true },
    });
  });

  it('changes nothing in a finished flow but a restart, and restarts only a flow with rows', () => {
    const finished = snapshotOf({ flow: { started: true, completed: true } });
    expect(planFlowAction(flow, finished, write('SKIPPED_FLOW').write)).toBeNull();
    expect(planFlowAction(flow, finished, write('NOT_STARTED_FLOW').write)).toMatchObject({
      reset: true,
      responses: [{ actionType: 'NOT_STARTED_FLOW' }],
    });
    expect(planFlowAction(flow, snapshotOf(), write('NOT_STARTED_FLOW').write)).toBeNull();
  });

  it('stores a dismissed flow that came back as no longer skipped, with one more comeback', () => {
    const starting = checkWrite(back, { userId: 'user-1', flowSlug: 'back', actionType: 'STARTED_FLOW' }, NOW).write;
    const dismissed = (days: number) =>
      snapshotOf(
        { flow: { skipped: true, lastActionAt: new Date(NOW.getTime() - days * 86_400_000).toISOString() } },
        'back',
      );
    expect(planFlowAction(back, dismissed(8), starting)).toMatchObject({
      flow: { started: true, skipped: false, reshows: 1 },
    });
    expect(planFlowAction(back, dismissed(6), starting)).toBeNull();
    // Without a reshow rule, a dismissed flow stays dismissed.
    expect(planFlowAction(flow, snapshotOf({ flow: { skipped: true } }), write('STARTED_FLOW').write)).toBeNull();
  });
});

describe('planning a step action', () => {
  it('completes a step and starts its flow; a repeat changes nothing', () => {
    const { write: completing, stepIndex } = write('COMPLETED_STEP', 'a');
    const change = planStepAction(flow, snapshotOf(), completing, stepIndex);
    expect(change).toMatchObject({
      step: { id: 'a', state: { started: true, completed: true, skipped: false } },
      flow: { started: true },
    });
    expect(planStepAction(flow, snapshotOf({ steps: { a: { completed: true } } }), completing, stepIndex)).toBeNull();
  });

  it('keeps a completed step from being skipped, and forgets a step to point at it again', () => {
    const skipping = write('SKIPPED_STEP', 'a');
    expect(
      planStepAction(flow, snapshotOf({ steps: { a: { completed: true } } }), skipping.write, skipping.stepIndex),
    ).toBeNull();
    const back = write('NOT_STARTED_STEP', 'a');
    expect(
      planStepAction(flow, snapshotOf({ steps: { a: { completed: true } } }), back.write, back.stepIndex),
    ).toMatchObject({
      step: { id: 'a', state: null },
      flow: { currentStepId: 'a' },
    });
    expect(planStepAction(flow, snapshotOf(), back.write, back.stepIndex)).toBeNull();
  });

  it('refuses a hidden step and a blocked one with a 409', () => {
    const b = write('STARTED_STEP', 'b');
    expect(() => planStepAction(flow, snapshotOf({ properties: { hideB: true } }), b.write, b.stepIndex)).toThrow(
      expect.objectContaining({ status: 409 }),
    );
    const c = write('STARTED_STEP', 'c');
    expect(() => planStepAction(flow, snapshotOf(), c.write, c.stepIndex)).toThrow(
      expect.objectContaining({ status: 409, field: 'stepId' }),
    );
    expect(planStepAction(flow, snapshotOf({ properties: { unlockC: true } }), c.write, c.stepIndex)).toMatchObject({
      flow: { currentStepId: 'c' },
    });
  });
});

describe('moving the pointer', () => {
  it('points at the next visible undone step, after the one done first, then from the start', () => {
    const { write: done, stepIndex } = write('COMPLETED_STEP', 'a');
    expect(movePointer(flow, snapshotOf({ steps: { a: { completed: true } } }), done, stepIndex)).toEqual({
      flow: expect.objectContaining({ currentStepId: 'b' }),
      responses: [],
    });
    const hidden = snapshotOf({ steps: { a: { completed: true } }, properties: { hideB: true } });
    expect(movePointer(flow, hidden, done, stepIndex).flow.currentStepId).toBe('c');
    const last = write('COMPLETED_STEP', 'c');
    expect(
      movePointer(
        flow,
        snapshotOf({ steps: { b: { skipped: true }, c: { completed: true } } }),
        last.write,
        last.stepIndex,
      ).flow.currentStepId,
    ).toBe('a');
  });

  it('completes the flow when no step is left, and records why', () => {
    const { write: done, stepIndex } = write('COMPLETED_STEP', 'c');
    const moved = movePointer(
      flow,
      snapshotOf({ steps: { a: { completed: true }, b: { skipped: true }, c: { completed: true } } }),
      done,
      stepIndex,
    );
    expect(moved.flow).toMatchObject({ started: true, completed: true });
    expect(moved.responses).toEqual([
      expect.objectContaining({ stepId: 'c', actionType: 'COMPLETED_FLOW', data: { reason: 'last-step' } }),
    ]);
  });
});

describe('what analytics counts', () => {
  it('counts the step acted on and the step now shown, and nothing for a restart', () => {
    const { write: done, stepIndex } = write('COMPLETED_STEP', 'a');
    const snapshot = snapshotOf({ flow: { started: true, currentStepId: 'b' }, steps: { a: { completed: true } } });
    const change = planStepAction(flow, snapshotOf(), done, stepIndex)!;
    expect(progressOf(flow, snapshot, done, change, 'fr')).toEqual({
      at: NOW,
      started: true,
      completed: false,
      skipped: false,
      steps: [{ id: 'a', completed: true, skipped: false }, { id: 'b' }],
      reshows: 0,
      locale: 'fr',
    });
    expect(progressOf(flow, snapshot, write('NOT_STARTED_FLOW').write, { reset: true, responses: [] }, '')).toBeNull();
  });
});
