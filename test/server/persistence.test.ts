// Restarting on the same data directory loses nothing: users, groups, events, flow state, responses, versions and idempotency records.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bannerFlowYaml, startTestService, type TestService } from '../support/service.js';

const TABLES = ['users', 'user_events', 'groups', 'group_events', 'group_members', 'flows', 'flow_states', 'step_states', 'flow_responses', 'idempotency_keys'];
let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'onboarding-data-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function dump(service: TestService): Promise<Record<string, unknown[]>> {
  const state: Record<string, unknown[]> = {};
  for (const table of TABLES) state[table] = await service.db.query(`SELECT * FROM ${table} ORDER BY 1, 2`);
  return state;
}

const FLOWS = {
  'banner.yaml': bannerFlowYaml('welcome'),
  'tasks.yaml': 'slug: tasks\nname: Tasks\ntype: CHECKLIST\ndata:\n  steps:\n    - id: a\n    - id: b\n',
};

describe('restart on the same data directory', () => {
  it('loses nothing and replays idempotent requests made before the restart', { timeout: 90_000 }, async () => {
    const first = await startTestService(FLOWS, { database: dataDir });
    const upsert = { userId: 'kept', properties: { plan: 'pro' }, events: [{ event: 'signed-up', properties: { via: 'ad' } }] };
    const created = await first.call('POST', '/v1/public/users', { body: upsert, headers: { 'Idempotency-Key': 'before-restart' } });
    await first.call('POST', '/v1/public/groups', { body: { groupId: 'acme', userId: 'kept', properties: { tier: 'gold' }, events: [{ event: 'renewed' }] } });
    await first.call('POST', '/v1/public/flowStates', { body: { userId: 'kept', flowSlug: 'tasks', stepId: 'a', actionType: 'COMPLETED_STEP', data: { x: 1 } } });
    await first.call('POST', '/v1/public/flowStates', { body: { userId: 'kept', flowSlug: 'welcome', stepId: '', actionType: 'SKIPPED_FLOW' } });
    const statesBefore = await first.call('GET', '/v1/public/flowStates?userId=kept&groupId=acme');
    const flowsBefore = await first.call('GET', '/v1/public/flows');
    const dumpBefore = await dump(first);
    expect(dumpBefore.flow_responses).toHaveLength(2);
    await first.close();

    const second = await startTestService(FLOWS, { database: dataDir });
    try {
      expect(await dump(second)).toEqual(dumpBefore);
      expect((await second.call('GET', '/v1/public/flowStates?userId=kept&groupId=acme')).body).toEqual(statesBefore.body);
      const flowsAfter = await second.call('GET', '/v1/public/flows');
      expect(flowsAfter.body).toEqual(flowsBefore.body);
      expect(flowsAfter.headers.get('etag')).toBe(flowsBefore.headers.get('etag'));
      const replay = await second.call('POST', '/v1/public/users', { body: upsert, headers: { 'Idempotency-Key': 'before-restart' } });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      // A replay answers with the user's state as it is now, after the writes that followed the first answer.
      expect(replay.body).toEqual({ ...created.body, flowStates: (await second.call('GET', '/v1/public/flowStates?userId=kept')).body });
      expect(await second.db.query('SELECT count(*)::int AS n FROM user_events')).toEqual([{ n: 1 }]);
    } finally {
      await second.close();
    }

    // A flow edited while the service was down becomes version 2 on the next start, with state kept.
    const third = await startTestService(
      { ...FLOWS, 'tasks.yaml': 'slug: tasks\nname: Tasks, renamed\ntype: CHECKLIST\ndata:\n  steps:\n    - id: a\n    - id: b\n' },
      { database: dataDir },
    );
    try {
      const tasks = (await third.call('GET', '/v1/public/flowStates?userId=kept')).body.eligibleFlows.find((f: { flowSlug: string }) => f.flowSlug === 'tasks');
      expect(tasks).toMatchObject({ version: 2, flowName: 'Tasks, renamed' });
      expect(tasks.data.steps[0].$state.completed).toBe(true);
    } finally {
      await third.close();
    }
  });
});
