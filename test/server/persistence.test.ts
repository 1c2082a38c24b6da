// Restarting on the same data directory loses nothing (users, groups, events, flow state, responses, versions, idempotency
// records), and a copy of the directory is a backup: taken after a stop, or as a snapshot of a running service.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bannerFlowYaml, PRIVATE_KEY, PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';

const TABLES = [
  'users',
  'user_events',
  'groups',
  'group_events',
  'group_members',
  'flows',
  'flow_states',
  'step_states',
  'flow_responses',
  'idempotency_keys',
];
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
    const upsert = {
      userId: 'kept',
      properties: { plan: 'pro' },
      events: [{ event: 'signed-up', properties: { via: 'ad' } }],
    };
    const created = await first.call('POST', '/v1/public/users', {
      body: upsert,
      headers: { 'Idempotency-Key': 'before-restart' },
    });
    await first.call('POST', '/v1/public/groups', {
      body: { groupId: 'acme', userId: 'kept', properties: { tier: 'gold' }, events: [{ event: 'renewed' }] },
    });
    await first.call('POST', '/v1/public/flowStates', {
      body: { userId: 'kept', flowSlug: 'tasks', stepId: 'a', actionType: 'COMPLETED_STEP', data: { x: 1 } },
    });
    await first.call('POST', '/v1/public/flowStates', {
      body: { userId: 'kept', flowSlug: 'welcome', stepId: '', actionType: 'SKIPPED_FLOW' },
    });
    const statesBefore = await first.call('GET', '/v1/public/flowStates?userId=kept&groupId=acme');
    const flowsBefore = await first.call('GET', '/v1/public/flows');
    const dumpBefore = await dump(first);
    expect(dumpBefore.flow_responses).toHaveLength(2);
    await first.close();

    const second = await startTestService(FLOWS, { database: dataDir });
    try {
      expect(await dump(second)).toEqual(dumpBefore);
      expect((await second.call('GET', '/v1/public/flowStates?userId=kept&groupId=acme')).body).toEqual(
        statesBefore.body,
      );
      const flowsAfter = await second.call('GET', '/v1/public/flows');
      expect(flowsAfter.body).toEqual(flowsBefore.body);
      expect(flowsAfter.headers.get('etag')).toBe(flowsBefore.headers.get('etag'));
      const replay = await second.call('POST', '/v1/public/users', {
        body: upsert,
        headers: { 'Idempotency-Key': 'before-restart' },
      });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      // A replay answers with the user's state as it is now, after the writes that followed the first answer.
      expect(replay.body).toEqual({
        ...created.body,
        flowStates: (await second.call('GET', '/v1/public/flowStates?userId=kept')).body,
      });
      expect(await second.db.query('SELECT count(*)::int AS n FROM user_events')).toEqual([{ n: 1 }]);
    } finally {
      await second.close();
    }

    // A flow edited while the service was down becomes version 2 on the next start, with state kept.
    const third = await startTestService(
      {
        ...FLOWS,
        'tasks.yaml': 'slug: tasks\nname: Tasks, renamed\ntype: CHECKLIST\ndata:\n  steps:\n    - id: a\n    - id: b\n',
      },
      { database: dataDir },
    );
    try {
      const tasks = (await third.call('GET', '/v1/public/flowStates?userId=kept')).body.eligibleFlows.find(
        (f: { flowSlug: string }) => f.flowSlug === 'tasks',
      );
      expect(tasks).toMatchObject({ version: 2, flowName: 'Tasks, renamed' });
      expect(tasks.data.steps[0].$state.completed).toBe(true);
    } finally {
      await third.close();
    }
  });
});

describe('backups of the data directory', () => {
  const step = (stepId: string) => ({
    userId: 'ada',
    flowSlug: 'tasks',
    stepId,
    actionType: 'COMPLETED_STEP',
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  const post = (service: TestService, body: object, key: string) =>
    service.call('POST', '/v1/public/flowStates', { body, headers: { 'Idempotency-Key': key } });

  it(
    'a copy made after a stop opens elsewhere as it was; restored, it replays the writes it holds and applies a later retried one once',
    { timeout: 120_000 },
    async () => {
      const live = join(dataDir, 'stop-and-copy');
      const backup = join(dataDir, 'backup');
      const first = await startTestService(FLOWS, { database: live });
      await post(first, step('a'), 'before-backup');
      const stateAtBackup = (await first.call('GET', '/v1/public/flowStates?userId=ada')).body;
      const dumpAtBackup = await dump(first);
      await first.close();
      cpSync(live, backup, { recursive: true });
      // A stop releases the lock, so the copy holds none.
      expect(existsSync(join(backup, 'onboarding.lock'))).toBe(false);

      // Progress made after the backup, then lost with the restore.
      const second = await startTestService(FLOWS, { database: live });
      const later = await post(second, step('b'), 'after-backup');
      expect(later.status).toBe(201);
      await second.close();

      const restored = await startTestService(FLOWS, { database: backup });
      try {
        expect(await dump(restored)).toEqual(dumpAtBackup);
        expect((await restored.call('GET', '/v1/public/flowStates?userId=ada')).body).toEqual(stateAtBackup);
        expect((await post(restored, step('a'), 'before-backup')).headers.get('idempotent-replayed')).toBe('true');
        // The outbox sends a write again until an answer reaches it: its record went with the restore, as did its effect.
        const retried = await post(restored, step('b'), 'after-backup');
        expect(retried.status).toBe(201);
        expect(retried.headers.get('idempotent-replayed')).toBeNull();
        expect(retried.body).toEqual(later.body);
        expect((await post(restored, step('b'), 'after-backup')).headers.get('idempotent-replayed')).toBe('true');
        expect(
          await restored.db.query(
            "SELECT step_id FROM flow_responses WHERE action_type = 'COMPLETED_STEP' ORDER BY id",
          ),
        ).toEqual([{ step_id: 'a' }, { step_id: 'b' }]);
      } finally {
        await restored.close();
      }
    },
  );

  it(
    'never lets a version a client holds stand for other content after a restore: the client gets the new content',
    { timeout: 120_000 },
    async () => {
      const live = join(dataDir, 'versions-live');
      const backup = join(dataDir, 'versions-backup');
      const read = async (service: TestService, knownVersions: Record<string, string | number>) =>
        (
          (await service.call('POST', '/v1/public/flowStates', { body: { userId: 'ada', knownVersions } })).body as {
            eligibleFlows: Array<{
              flowSlug: string;
              version: number;
              contentHash: string;
              data: { title?: string; steps: Array<{ title?: string }> };
            }>;
          }
        ).eligibleFlows.find((flow) => flow.flowSlug === 'welcome')!;

      const first = await startTestService(FLOWS, { database: live });
      const v1 = await read(first, {});
      await first.close();
      cpSync(live, backup, { recursive: true });

      // After the backup, version 2: a client reads its content and keeps it, as the script does.
      const second = await startTestService(
        { ...FLOWS, 'banner.yaml': bannerFlowYaml('welcome', 'Lost with the restore') },
        { database: live },
      );
      const held = await read(second, { welcome: v1.contentHash });
      expect(held.version).toBe(v1.version + 1);
      expect(held.data.steps[0].title).toBe('Lost with the restore');
      await second.close();

      // The older copy is restored, and the team changes the flow again: the database hands out version 2 once more.
      const restored = await startTestService(
        { ...FLOWS, 'banner.yaml': bannerFlowYaml('welcome', 'After the restore') },
        { database: backup },
      );
      try {
        const [row] = await restored.db.query<{ version: number }>(
          "SELECT max(version)::int AS version FROM flows WHERE slug = 'welcome'",
        );
        expect(row.version).toBe(held.version);
        // The client names what it holds by the content's hash, so the answer carries the new content, not nothing.
        const answer = await read(restored, { welcome: held.contentHash });
        expect(answer.contentHash).not.toBe(held.contentHash);
        expect(answer.data.steps[0].title).toBe('After the restore');
        // What it holds now is known again, and left out.
        expect((await read(restored, { welcome: answer.contentHash })).data.steps[0].title).toBeUndefined();
        // A client that names the number only (one from before hashes) is the case the hash is for: it would be told it holds it.
        expect((await read(restored, { welcome: held.version })).data.steps[0].title).toBeUndefined();
      } finally {
        await restored.close();
      }
    },
  );

  it(
    'a snapshot of a running service (its directory as a killed process left it) opens with every write it acknowledged',
    { timeout: 120_000 },
    async () => {
      const live = join(dataDir, 'running');
      const snapshot = join(dataDir, 'snapshot');
      const flows = mkdtempSync(join(tmpdir(), 'onboarding-flows-'));
      for (const [file, yaml] of Object.entries(FLOWS)) writeFileSync(join(flows, file), yaml);
      // Twenty writes at once on a fresh process: none may be shed, whatever else the machine is doing.
      const args = [
        '--port',
        '0',
        '--flows',
        flows,
        '--database',
        live,
        '--max-wait-ms',
        '60000',
        '--max-event-loop-delay',
        '0',
      ];
      const child = spawn(
        process.execPath,
        [fileURLToPath(new URL('../../dist/server.mjs', import.meta.url)), ...args],
        {
          env: { ...process.env, ONBOARDING_PUBLIC_KEYS: PUBLIC_KEY, ONBOARDING_PRIVATE_KEYS: PRIVATE_KEY },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      try {
        let output = '';
        const url = await new Promise<string>((resolve, reject) => {
          child.stdout.on('data', (chunk) => {
            output += chunk;
            const found = /listening on (\S+)/.exec(output);
            if (found) resolve(found[1]);
          });
          child.stderr.on('data', (chunk) => (output += chunk));
          child.once('exit', (code) => reject(new Error(`the service exited ${code}:\n${output}`)));
        });
        const users = Array.from({ length: 20 }, (_, i) => `user-${i}`);
        const answers = await Promise.all(
          users.map((userId) =>
            fetch(`${url}/v1/public/flowStates`, {
              method: 'POST',
              headers: { Authorization: `Bearer ${PUBLIC_KEY}`, 'Content-Type': 'application/json' },
              body: JSON.stringify({ userId, flowSlug: 'tasks', stepId: 'a', actionType: 'COMPLETED_STEP' }),
            }).then((response) => response.status),
          ),
        );
        expect(answers).toEqual(users.map(() => 201));
        const killed = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await killed;
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        rmSync(flows, { recursive: true, force: true });
      }
      // What an atomic filesystem snapshot holds: the files as written, the dead process's lock among them.
      cpSync(live, snapshot, { recursive: true });
      expect(existsSync(join(snapshot, 'onboarding.lock'))).toBe(true);
      const restored = await startTestService(FLOWS, { database: snapshot });
      try {
        expect(
          await restored.db.query(
            "SELECT count(*)::int AS n FROM step_states WHERE flow_slug = 'tasks' AND step_id = 'a' AND completed",
          ),
        ).toEqual([{ n: 20 }]);
        expect(
          await restored.db.query("SELECT count(*)::int AS n FROM flow_responses WHERE action_type = 'COMPLETED_STEP'"),
        ).toEqual([{ n: 20 }]);
      } finally {
        await restored.close();
      }
    },
  );
});

describe('durability of the embedded store', () => {
  const write = (service: TestService, userId: string) =>
    service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'tasks', stepId: 'a', actionType: 'COMPLETED_STEP' },
    });

  it('syncs each acknowledged write to disk before it answers, by default', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'onboarding-durable-'));
    const service = await startTestService(FLOWS, { database: dir });
    try {
      expect(await service.db.query('SHOW fsync')).toEqual([{ fsync: 'on' }]);
      expect(await service.db.query('SHOW wal_sync_method')).toEqual([{ wal_sync_method: 'fsync' }]);
      for (const userId of ['a', 'b', 'c']) {
        const before = service.db.fsyncs!();
        expect((await write(service, userId)).status).toBe(201);
        // Counted when the answer arrives: the commit's WAL was synced before the service answered.
        expect(service.db.fsyncs!()).toBeGreaterThan(before);
      }
    } finally {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves writes in the operating system cache with fsync off, as asked', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'onboarding-durable-'));
    const service = await startTestService(FLOWS, { database: dir, fsync: false });
    try {
      expect(await service.db.query('SHOW fsync')).toEqual([{ fsync: 'off' }]);
      expect((await write(service, 'a')).status).toBe(201);
      expect(service.db.fsyncs!()).toBe(0);
    } finally {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
