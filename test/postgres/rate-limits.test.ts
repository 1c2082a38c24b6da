// Rate limits on PostgreSQL: state reads write no rows, a visitor over the limit is refused by every instance within the
// stated bound, instances count each other without writing (idle ones too), and an unreachable database, or one that ends
// the connection a query holds, never makes a 500 nor stops the process.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toProblem } from '../../server/shared/problem.js';
import { bannerFlowYaml, postgresServer, startTestInstances, type TestService } from '../support/service.js';
import { pooled, send, visitor } from '../support/visitors.js';

const FLOWS = { 'banner.yaml': bannerFlowYaml('welcome') };

/** A client of the service's own database, for its statistics (pg_stat_user_tables covers the current database only). */
async function statsClient(database: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  return client;
}

/**
 * Rows inserted, updated and deleted so far per table of the service's database, `rate_limits` included. PostgreSQL
 * reports a connection's counts at most once a second, or when that connection is idle some seconds later: the service
 * runs with one pooled connection, which is told to report at once at the end of its next statement.
 */
async function rowsWritten(
  service: TestService,
  stats: pg.Client,
  kinds = 'n_tup_ins + n_tup_upd + n_tup_del',
): Promise<Record<string, number>> {
  await service.db.query('SELECT pg_stat_force_next_flush()');
  await stats.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await stats.query<{ relname: string; n: string }>(
    `SELECT relname, ${kinds} AS n FROM pg_stat_user_tables`,
  );
  return Object.fromEntries(rows.map((row) => [row.relname, Number(row.n)]));
}

const changed = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .filter(([table, n]) => n !== (before[table] ?? 0))
      .map(([table, n]) => [table, n - (before[table] ?? 0)]),
  );

/** `reads` state reads, half GET and half POST, of `users` from 50 visitor addresses, 8 at a time; every one answered 200. */
async function readStates(service: TestService, users: string[], reads: number): Promise<void> {
  const answers = await pooled(
    Array.from({ length: reads }, (_, n) => () => {
      const userId = users[n % users.length];
      return n % 2
        ? send(service, 'GET', `/v1/public/flowStates?userId=${userId}`, visitor(n % 50))
        : send(service, 'POST', '/v1/public/flowStates', visitor(n % 50), { userId });
    }),
    8,
  );
  expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
}

describe('state reads on PostgreSQL', () => {
  for (const exact of [false, true]) {
    it(
      exact
        ? 'write one rate-limit row each with --rate-limit-exact, and nothing else'
        : 'write no rows, from many visitors, GET and POST',
      async () => {
        // One connection, so that every statement is counted on it; eight readers at once queue for it, which is no
        // overload here, so the backpressure guard is set out of the way.
        const deployment = await startTestInstances(1, FLOWS, {
          limits: { poolSize: 1, maxWaitMs: 60_000 },
          exactRateLimits: exact,
        });
        const service = deployment.instances[0];
        const stats = await statsClient(deployment.database);
        try {
          const users = Array.from({ length: 10 }, () => `user-${randomUUID()}`);
          for (const userId of users)
            expect((await send(service, 'POST', '/v1/public/users', visitor(60), { userId })).status).toBe(201);
          // A window that ended may be cleared by a write of the exact count, so that count is of inserts and updates.
          const kinds = exact ? 'n_tup_ins + n_tup_upd' : undefined;
          const before = await rowsWritten(service, stats, kinds);
          await readStates(service, users, 300);
          const after = await rowsWritten(service, stats, kinds);
          expect(changed(before, after)).toEqual(exact ? { rate_limits: 300 } : {});
        } finally {
          await stats.end();
          await deployment.close();
        }
      },
    );
  }
});

describe('two instances on one PostgreSQL', () => {
  const LIMIT = 12;

  for (const exact of [false, true]) {
    it(
      exact
        ? 'refuse a visitor past exactly the limit with --rate-limit-exact'
        : 'refuse a visitor over the limit on both, having admitted no more than the bound',
      async () => {
        const deployment = await startTestInstances(2, FLOWS, {
          limits: { requestsPerMinute: LIMIT },
          exactRateLimits: exact,
        });
        try {
          const [a, b] = deployment.instances as [TestService, TestService];
          // Each counts the other once both have started.
          await Promise.all([a, b].map((instance) => instance.app.rateLimitCounts.countInstances()));
          // floor(max / 2N) each, or none when every request is counted in PostgreSQL.
          const share = exact ? 0 : Math.floor(LIMIT / (2 * 2));
          expect([a.app.rateLimitCounts.share(LIMIT), b.app.rateLimitCounts.share(LIMIT)]).toEqual([share, share]);
          // The worst case in one window: the visitor takes B's share unseen, then as much as A gives.
          const from = '127.0.3.1';
          const statuses = { a: [] as number[], b: [] as number[] };
          for (let i = 0; i < share; i++) statuses.b.push((await send(b, 'GET', '/v1/public/flows', from)).status);
          for (let i = 0; i < LIMIT + 3; i++) statuses.a.push((await send(a, 'GET', '/v1/public/flows', from)).status);
          const refused = await send(b, 'GET', '/v1/public/flows', from);
          statuses.b.push(refused.status);
          const admitted = [...statuses.a, ...statuses.b].filter((status) => status === 200).length;
          // A admits the whole limit, B's share is over it: max + (N - 1) * share, within max + 2(N - 1) * share.
          expect(statuses.a).toEqual([...Array(LIMIT).fill(200), 429, 429, 429]);
          expect(statuses.b).toEqual([...Array(share).fill(200), 429]);
          expect(admitted).toBe(LIMIT + share);
          expect(admitted).toBeLessThanOrEqual(LIMIT + 2 * (2 - 1) * share);
          expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
          // Another visitor is not affected.
          expect((await send(b, 'GET', '/v1/public/flows', '127.0.3.2')).status).toBe(200);
        } finally {
          await deployment.close();
        }
      },
    );
  }

  it("count each other while idle, past the pool's idle timeout, and stop counting one that stopped", async () => {
    const deployment = await startTestInstances(2, FLOWS);
    const [a, b] = deployment.instances as [TestService, TestService];
    try {
      // pg closes connections idle for 10 s; each instance's count of the others keeps one of its own open.
      await new Promise((resolve) => setTimeout(resolve, 11_000));
      await a.app.rateLimitCounts.countInstances();
      expect(a.app.rateLimitCounts.instances).toBe(2);
      expect(a.app.rateLimitCounts.share(1200)).toBe(300);
      await b.close();
      deployment.instances.splice(1, 1);
      // Its connections are gone once PostgreSQL has ended their processes.
      for (let tries = 0; tries < 50 && a.app.rateLimitCounts.instances !== 1; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await a.app.rateLimitCounts.countInstances();
      }
      expect(a.app.rateLimitCounts.instances).toBe(1);
      expect(a.app.rateLimitCounts.share(1200)).toBe(600);
    } finally {
      await deployment.close();
    }
  }, 30_000);
});

describe('when PostgreSQL cannot be reached', () => {
  let deployment: Awaited<ReturnType<typeof startTestInstances>>;
  let admin: pg.Client;
  let name: string;
  beforeAll(async () => {
    deployment = await startTestInstances(1, FLOWS, { limits: { requestsPerMinute: 4 } });
    name = new URL(deployment.database).pathname.slice(1);
    admin = new pg.Client({ connectionString: postgresServer() });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => {});
    await admin?.end();
    await deployment?.close();
  });

  it('counts alone against the whole limit: no 500, and an abusive address is still refused', async () => {
    const service = deployment.instances[0];
    const statuses: number[] = [];
    const from = '127.0.4.1';
    // Within the share (two of four), before PostgreSQL goes away.
    for (let i = 0; i < 2; i++) statuses.push((await send(service, 'GET', '/v1/public/flows', from)).status);
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    for (let i = 0; i < 4; i++) statuses.push((await send(service, 'GET', '/v1/public/flows', from)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    // Once it is back, counts past the share go to PostgreSQL again.
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    for (let i = 0; i < 3; i++) expect((await send(service, 'GET', '/v1/public/flows', '127.0.4.2')).status).toBe(200);
    expect(await service.db.query('SELECT count FROM rate_limits WHERE key LIKE $1', ['%:127.0.4.2'])).toEqual([
      { count: 3 },
    ]);
  });

  it('loses a query, not the process, when PostgreSQL ends the connection that query holds', async () => {
    const service = deployment.instances[0];
    // A query and a transaction each hold a connection when PostgreSQL ends every one of the service's; the connection
    // errors that follow reach the checked-out client, which must not throw them at the process.
    const held = [
      service.db.query('SELECT pg_sleep(30)'),
      service.db.transaction((tx) => tx.query('SELECT pg_sleep(30)')),
    ].map((query) =>
      query.then(
        () => 'answered',
        (error: Error) => `${toProblem(error).status} ${error.message}`,
      ),
    );
    for (let tries = 0; tries < 50; tries++) {
      const { rows } = await admin.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND query LIKE '%pg_sleep(30)%' AND state = 'active'",
        [name],
      );
      if (rows[0].n === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    const outcomes = await Promise.all(held);
    expect(outcomes).toHaveLength(2);
    // Each failed request is answered 503 with Retry-After, as PostgreSQL going away is.
    for (const outcome of outcomes) expect(outcome).toMatch(/^503 .*terminat/i);
    // The pool drops the ended connections and serves the next request on new ones.
    expect((await send(service, 'GET', '/v1/public/flows', '127.0.4.3')).status).toBe(200);
  });
});
