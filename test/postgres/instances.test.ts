// Two and more service instances sharing one PostgreSQL, as behind a load balancer: nothing is lost between them,
// keys, idempotency, rate limits and flow versions are shared, and nothing that must be shared lives in one process.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checklistYaml, startTestInstances, type TestService } from '../support/service.js';

const FLOWS = { 'setup.yaml': checklistYaml('setup'), 'more.yaml': checklistYaml('more') };
let deployment: Awaited<ReturnType<typeof startTestInstances>>;
let a: TestService;
let b: TestService;

beforeAll(async () => {
  deployment = await startTestInstances(2, FLOWS, { limits: { userWritesPerMinute: 100_000, maxWaitMs: 600_000 } });
  [a, b] = deployment.instances as [TestService, TestService];
});
afterAll(() => deployment?.close());

const count = async (sql: string, params: unknown[]) => Number((await a.db.query<{ n: string }>(sql, params))[0].n);

describe('instances on one PostgreSQL', () => {
  it('lose nothing when both write to one user at once: every event, every property, every transition', async () => {
    const userId = `user-${randomUUID()}`;
    const writes = Array.from({ length: 20 }, (_, i) => {
      const instance = i % 2 ? a : b;
      return i < 10
        ? instance.call('POST', '/v1/public/users', {
            body: { userId, properties: { [`p${i}`]: i }, events: [{ event: `e${i}` }] },
          })
        : instance.call('POST', '/v1/public/flowStates', {
            body: {
              userId,
              flowSlug: i % 2 ? 'setup' : 'more',
              stepId: ['one', 'two', 'three'][i % 3],
              actionType: 'COMPLETED_STEP',
            },
          });
    });
    const answers = await Promise.all(writes);
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(201));
    expect(await count('SELECT count(*) AS n FROM user_events WHERE user_id = $1', [userId])).toBe(10);
    const [user] = await a.db.query<{ properties: Record<string, number> }>(
      'SELECT properties FROM users WHERE id = $1',
      [userId],
    );
    expect(Object.keys(user.properties).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `p${i}`).sort());
    // Applied one at a time per user: each flow's three steps are completed, each recorded once, then the flow.
    for (const slug of ['setup', 'more']) {
      const rows = await a.db.query<{ action_type: string; step_id: string }>(
        'SELECT action_type, step_id FROM flow_responses WHERE user_id = $1 AND flow_slug = $2 ORDER BY id',
        [userId, slug],
      );
      expect(
        rows
          .filter((row) => row.action_type === 'COMPLETED_STEP')
          .map((row) => row.step_id)
          .sort(),
      ).toEqual(['one', 'three', 'two']);
      expect(rows.at(-1)!.action_type).toBe('COMPLETED_FLOW');
    }
    // Both instances answer the same state.
    expect((await a.call('GET', `/v1/public/flowStates?userId=${userId}`)).body).toEqual(
      (await b.call('GET', `/v1/public/flowStates?userId=${userId}`)).body,
    );
  });

  it('replay an Idempotency-Key whichever instance the retry reaches', async () => {
    const userId = `user-${randomUUID()}`;
    const key = randomUUID();
    const body = { userId, events: [{ event: 'once' }] };
    const first = await a.call('POST', '/v1/public/users', { body, headers: { 'Idempotency-Key': key } });
    const retry = await b.call('POST', '/v1/public/users', { body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await count('SELECT count(*) AS n FROM user_events WHERE user_id = $1', [userId])).toBe(1);
    // At once, on both, the key is still applied once.
    const concurrentKey = randomUUID();
    const racing = await Promise.all(
      [a, b, a, b].map((instance) =>
        instance.call('POST', '/v1/public/users', {
          body: { userId, events: [{ event: 'raced' }] },
          headers: { 'Idempotency-Key': concurrentKey },
        }),
      ),
    );
    expect(racing.map((answer) => answer.status)).toEqual([201, 201, 201, 201]);
    expect(await count("SELECT count(*) AS n FROM user_events WHERE user_id = $1 AND event = 'raced'", [userId])).toBe(
      1,
    );
  });

  it("hold a visitor address's rate limit across instances", async () => {
    const limited = await startTestInstances(2, FLOWS, { limits: { requestsPerMinute: 10 } });
    try {
      const [one, two] = limited.instances as [TestService, TestService];
      // Each instance's share of the limit follows the instances it has counted: both, once both have started.
      await Promise.all([one, two].map((instance) => instance.app.rateLimitCounts.countInstances()));
      const statuses: number[] = [];
      for (let i = 0; i < 14; i++) statuses.push((await (i % 2 ? one : two).call('GET', '/v1/public/flows')).status);
      expect(statuses).toEqual([...Array(10).fill(200), ...Array(4).fill(429)]);
    } finally {
      await limited.close();
    }
  });

  it('share the generated key pair and record one version per changed flow, however many start at once', async () => {
    const { startTestInstances: start } = await import('../support/service.js');
    // No keys in the environment: the first instance makes a pair, the others take it.
    const fresh = await start(3, FLOWS, { env: {} });
    try {
      const keys = fresh.instances.map((instance) => JSON.stringify(instance.keys.public));
      expect(new Set(keys).size).toBe(1);
      expect(fresh.instances[0].keys.public).toHaveLength(1);
      const versions = await fresh.instances[0].db.query<{ slug: string; n: string }>(
        'SELECT slug, count(*) AS n FROM flows GROUP BY slug ORDER BY slug',
      );
      expect(versions.map((row) => [row.slug, Number(row.n)])).toEqual([
        ['more', 1],
        ['setup', 1],
      ]);
      // A changed file reloaded by every instance at once makes version 2, once.
      await Promise.all(
        fresh.instances.map((instance) => instance.writeFlow('setup.yaml', checklistYaml('setup', '', 2))),
      );
      const after = await fresh.instances[0].db.query<{ version: number }>(
        "SELECT version FROM flows WHERE slug = 'setup' ORDER BY version",
      );
      expect(after.map((row) => row.version)).toEqual([1, 2]);
      for (const instance of fresh.instances) expect(instance.catalog.get('setup')!.flow.version).toBe(2);
    } finally {
      await fresh.close();
    }
  });

  it('keep no state in one process that another needs: a write on one is read at once on the other, which holds the user in its cache', async () => {
    const userId = `user-${randomUUID()}`;
    await b.call('POST', '/v1/public/users', { body: { userId } });
    await a.call('GET', `/v1/public/flowStates?userId=${userId}`);
    expect(a.db.cache!.user(userId)).toBeDefined();
    await b.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'setup', stepId: 'one', actionType: 'COMPLETED_STEP' },
    });
    expect(
      (await a.call('GET', `/v1/public/flowStates?userId=${userId}`)).body.eligibleFlows.find(
        (f: { flowSlug: string }) => f.flowSlug === 'setup',
      ).data.steps[0].$state.completed,
    ).toBe(true);
  });
});
