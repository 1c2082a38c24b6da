// `npm run soak`: minutes of mixed traffic from simulated visitors, using the script's own outbox, against two service
// instances on one PostgreSQL behind a loopback balancer; mid-run one instance is killed with SIGKILL and PostgreSQL is
// restarted. Afterwards the database is counted against what the visitors did: nothing may be lost or duplicated.
// Usage: node bench/soak.mjs [--duration 180] [--visitors 120]
import { build } from 'esbuild';
import { createServer, request as forward } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startPostgresCluster } from '../scripts/postgres-cluster.mjs';
import { startServiceProcess, tempFlows } from './support.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const FLOWS = {
  'soak.yaml': `slug: soak
name: Soak
type: CHECKLIST
data:
  steps:
    - id: one
    - id: two
    - id: three
`,
};

/** The script's outbox, API client and storage, bundled for Node from the same sources the browser runs. */
async function loadScriptCore() {
  const result = await build({
    stdin: {
      contents: [
        "export { createOutbox } from './src/core/outbox.ts';",
        "export { createApiClient } from './src/api/client.ts';",
        "export { createSafeStorage } from './src/core/storage.ts';",
      ].join('\n'),
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  const dir = fileURLToPath(new URL('../node_modules/.cache/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir}soak-core.mjs`;
  writeFileSync(file, result.outputFiles[0].text);
  return import(pathToFileURL(file).href);
}

/** A loopback balancer: round robin over the instances that accept connections; a refused connection tries the next. */
async function startBalancer(backends) {
  let next = 0;
  const server = createServer((incoming, outgoing) => {
    const chunks = [];
    incoming.on('data', (chunk) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const tryBackend = (attempt) => {
        const backend = backends[next++ % backends.length];
        const upstream = forward(
          {
            host: '127.0.0.1',
            port: backend.port,
            method: incoming.method,
            path: incoming.url,
            headers: incoming.headers,
          },
          (answer) => {
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(outgoing);
          },
        );
        upstream.on('error', (error) => {
          // Only a refused connection is tried elsewhere: the request never reached that instance.
          if (error.code === 'ECONNREFUSED' && attempt < backends.length) return tryBackend(attempt + 1);
          if (!outgoing.headersSent)
            outgoing.writeHead(502, { 'Content-Type': 'application/json' }).end('{"status":502}');
          else outgoing.destroy();
        });
        upstream.end(body);
      };
      tryBackend(1);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const percentile = (values, p) => {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runSoak({ duration = 180, visitors = 120 } = {}) {
  const core = await loadScriptCore();
  const pg = await startPostgresCluster();
  const flows = tempFlows(FLOWS);
  const publicKey = 'pk_soak';
  const env = { ONBOARDING_PUBLIC_KEYS: publicKey, ONBOARDING_PRIVATE_KEYS: 'sk_soak' };
  // Many visitors from one loopback address: the per-address limit is not what this measures.
  const args = ['--rate-limit', '100000000', '--user-write-limit', '100000000'];
  const start = (port) =>
    startServiceProcess({
      flows: flows.dir,
      database: pg.url,
      env,
      args: [...args, ...(port ? ['--port', String(port)] : [])],
    });
  const instances = [];
  let balancer;
  const cleanUp = async () => {
    await balancer?.close();
    for (const instance of instances) await instance.stop();
    pg.stop();
    flows.remove();
  };
  try {
    instances.push(await start(), await start());
    const backends = instances.map((instance) => ({ port: Number(new URL(instance.url).port) }));
    balancer = await startBalancer(backends);
    return await soak({ core, pg, instances, backends, balancer, start, publicKey, duration, visitors });
  } finally {
    await cleanUp();
  }
}

async function soak({ core, pg, instances, backends, balancer, start, publicKey, duration, visitors }) {
  const latencies = [];
  const statuses = new Map();
  let networkErrors = 0;
  const timedFetch = async (input, init) => {
    const started = performance.now();
    try {
      const response = await fetch(input, init);
      latencies.push(performance.now() - started);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      return response;
    } catch (error) {
      networkErrors++;
      throw error;
    }
  };

  // What the visitors did: each write carries a unique mark, counted in the database afterwards.
  const expected = { events: new Set(), responses: new Set() };
  const deadline = Date.now() + duration * 1000;
  const outboxes = [];
  const visitor = async (n) => {
    const storage = core.createSafeStorage(`soak-${n}:`);
    const client = core.createApiClient({ apiUrl: balancer.url, publicKey, fetch: timedFetch });
    const outbox = core.createOutbox(storage, client, { sent() {}, dropped() {}, failed() {}, changed() {} });
    outboxes.push(outbox);
    let userId = `guest_${crypto.randomUUID()}`;
    const steps = ['one', 'two', 'three'];
    let cycle = 0;
    let seq = 0;
    while (Date.now() < deadline) {
      await sleep(200 + Math.random() * 800);
      const roll = Math.random();
      if (roll < 0.3) {
        const mark = `v${n}-e${seq++}`;
        expected.events.add(mark);
        outbox.add(userId, { path: 'users', body: { userId, events: [{ event: 'soak', properties: { mark } }] } });
      } else if (roll < 0.8) {
        // Complete the steps in order, then restart: every one of these changes the state, so each is recorded once.
        const position = cycle % 4;
        const mark = `v${n}-t${seq++}`;
        expected.responses.add(mark);
        const body =
          position < 3
            ? { userId, flowSlug: 'soak', stepId: steps[position], actionType: 'COMPLETED_STEP', data: { mark } }
            : { userId, flowSlug: 'soak', actionType: 'NOT_STARTED_FLOW', data: { mark } };
        outbox.add(userId, { path: 'flowStates', body: { ...body, createdAt: new Date().toISOString() } });
        cycle++;
      } else if (roll < 0.97) {
        await client.readFlowStates({ userId }).catch(() => undefined);
      } else if (userId.startsWith('guest_')) {
        // Log in: the guest's progress moves to the user.
        const guest = userId;
        userId = `soak-user-${n}`;
        const mark = `v${n}-login`;
        expected.events.add(mark);
        outbox.add(userId, {
          path: 'users',
          body: { userId, linkGuestId: guest, events: [{ event: 'soak', properties: { mark } }] },
        });
      }
    }
  };

  const faults = [];
  const chaos = (async () => {
    await sleep(duration * 300);
    if (Date.now() > deadline) return;
    const killed = instances[0];
    process.kill(killed.pid, 'SIGKILL');
    faults.push(`${Math.round(duration * 0.3)} s: instance 1 killed with SIGKILL`);
    await sleep(10_000);
    instances[0] = await start(backends[0].port);
    faults.push('10 s later: instance 1 started again');
    await sleep(Math.max(0, duration * 300 - 10_000));
    pg.halt('immediate');
    faults.push(`${Math.round(duration * 0.6)} s: PostgreSQL stopped (immediate, as a crash)`);
    await sleep(3000);
    pg.restart();
    faults.push('3 s later: PostgreSQL started again');
  })();

  const started = Date.now();
  await Promise.all([...Array.from({ length: visitors }, (_, n) => visitor(n)), chaos]);
  // Drain: every outbox sends what it still holds.
  const drainDeadline = Date.now() + 120_000;
  while (outboxes.some((outbox) => outbox.entries().length) && Date.now() < drainDeadline) {
    for (const outbox of outboxes) outbox.flush();
    await sleep(500);
  }
  const unsent = outboxes.reduce((sum, outbox) => sum + outbox.entries().length, 0);
  for (const outbox of outboxes) outbox.stop();

  const { default: pgModule } = await import('pg');
  const db = new pgModule.Client({ connectionString: pg.url });
  await db.connect();
  const events = (
    await db.query(
      "SELECT properties->>'mark' AS mark, count(*)::int AS n FROM user_events WHERE event = 'soak' GROUP BY 1",
    )
  ).rows;
  const responses = (
    await db.query(
      "SELECT data::jsonb->>'mark' AS mark, count(*)::int AS n FROM flow_responses WHERE data::jsonb ? 'mark' GROUP BY 1",
    )
  ).rows;
  const orphans = (
    await db.query(
      "SELECT count(*)::int AS n FROM users WHERE id LIKE 'guest_%' AND EXISTS (SELECT 1 FROM guest_links l WHERE l.guest_id = users.id)",
    )
  ).rows[0].n;
  await db.end();
  const tally = (rows, wanted) => {
    const seen = new Map(rows.map((row) => [row.mark, row.n]));
    return {
      expected: wanted.size,
      lost: [...wanted].filter((mark) => !seen.has(mark)).length,
      duplicated: [...seen.values()].filter((n) => n > 1).length,
      unexpected: [...seen.keys()].filter((mark) => !wanted.has(mark)).length,
    };
  };
  const result = {
    durationSeconds: Math.round((Date.now() - started) / 1000),
    visitors,
    requests: latencies.length + networkErrors,
    statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
    networkErrors,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    faults,
    unsent,
    events: tally(events, expected.events),
    transitions: tally(responses, expected.responses),
    orphanedGuests: orphans,
  };
  return result;
}

export function printSoak(result) {
  console.log(`Soak: ${result.visitors} visitors for ${result.durationSeconds} s against two instances on PostgreSQL`);
  for (const fault of result.faults) console.log(`  fault: ${fault}`);
  console.log(
    `  requests ${result.requests}, by status ${JSON.stringify(result.statuses)}, network errors ${result.networkErrors}`,
  );
  console.log(`  latency p50 ${result.p50} ms, p99 ${result.p99} ms`);
  for (const [name, tally] of [
    ['events (tracked)', result.events],
    ['transitions (flow responses)', result.transitions],
  ]) {
    console.log(
      `  ${name}: ${tally.expected} made, ${tally.lost} lost, ${tally.duplicated} duplicated, ${tally.unexpected} unexpected`,
    );
  }
  console.log(`  writes still unsent at the end: ${result.unsent}; orphaned guests: ${result.orphanedGuests}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { duration: { type: 'string', default: '180' }, visitors: { type: 'string', default: '120' } },
  });
  const result = await runSoak({ duration: Number(values.duration), visitors: Number(values.visitors) });
  printSoak(result);
  const clean =
    result.events.lost +
      result.events.duplicated +
      result.transitions.lost +
      result.transitions.duplicated +
      result.unsent ===
    0;
  process.exit(clean ? 0 : 1);
}
