// Issue 38: the service's state reads with 10 running experiments against the same reads with none, in turn in the same run, on both stores.
// Usage: node bench/experiments.mjs [--duration 5] [--stores embedded,postgres] [--connections 1,16,64] [--repeat 3]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { inTurn, onStores, storeTitle } from './collections.mjs';
import { benchFlows, LIMIT_ARGS, load, scenarios, seededLocation } from './service.mjs';
import { cpuTicks, startServiceProcess, stolenShare, tempFlows } from './support.mjs';

/** How far a read with experiments may fall behind the same read without: within 10 % of its reads a second. */
const BUDGET = 0.9;
const USERS = 10_000;
const FLOWS = 50;
const EXPERIMENTS = 10;
const READS = ['GET flowStates', 'POST flowStates (read)'];

/**
 * 10 running experiments, each a control against two of the bench's flows (the first 20 flows, one of each kind of
 * targeting among them), with a goal: so every user is in the audience of several, in a variant of each.
 */
export function experimentsYaml(slugs) {
  const entries = Array.from(
    { length: EXPERIMENTS },
    (_, e) => `  - id: bench-experiment-${e}
    status: running
    goal: { event: exported, within: 7d }
    variants:
      - { id: control, weight: 34 }
      - { id: a, flow: ${slugs[2 * e]}, weight: 33 }
      - { id: b, flow: ${slugs[2 * e + 1]}, weight: 33 }`,
  );
  return `experiments:\n${entries.join('\n')}\n`;
}

/** What reads with experiments carry, over `sample` users: experiments exposed to, and flows held back. */
async function answerShape(service, sample = 200) {
  const headers = { authorization: `Bearer ${service.publicKey}` };
  let exposed = 0;
  let held = 0;
  for (let i = 0; i < sample; i++) {
    const userId = `bench-user-${Math.floor((i * USERS) / sample)}`;
    const answer = await (
      await fetch(`${service.url}/v1/public/flowStates?userId=${userId}&groupId=bench-group-${i % 100}&content=none`, {
        headers,
      })
    ).json();
    exposed += answer.experiments?.length ?? 0;
    held += answer.eligibleFlows.filter((flow) => !flow.$state.visible && !flow.$state.completed).length;
  }
  const mean = (n) => Number((n / sample).toFixed(1));
  return { sample, experimentsExposedTo: mean(exposed), heldBack: mean(held) };
}

/** One store: the same data and flows, read without and with experiments.yaml, loaded in turn at each concurrency. */
async function benchStore(store, { pg, duration, connections, repeat }) {
  const files = benchFlows(FLOWS);
  const slugs = Object.keys(files).map((file) => file.replace(/\.yaml$/, ''));
  const without = tempFlows(files);
  const withExperiments = tempFlows({ ...files, 'experiments.yaml': experimentsYaml(slugs) });
  const withoutData = await seededLocation(store, pg, USERS, without.dir, slugs);
  const withData = await seededLocation(store, pg, USERS, withExperiments.dir, slugs);
  const start = (flows, data) =>
    startServiceProcess({
      flows: flows.dir,
      database: data.location,
      args: LIMIT_ARGS,
      env: { ONBOARDING_BENCH_ROUTES: '1' },
    });
  const services = [await start(without, withoutData), await start(withExperiments, withData)];
  const ticks = cpuTicks();
  const loadBefore = loadavg()[0];
  try {
    const headers = { authorization: `Bearer ${services[0].publicKey}`, 'content-type': 'application/json' };
    // Every user read once first: the read caches hold the active users, and with experiments each user's exposures
    // are recorded then (one row per experiment whose audience they are in), as a site's first day records them.
    const warm = [];
    for (const { url } of services) {
      let next = 0;
      const started = performance.now();
      const first = await load(url, {
        connections: 8,
        amount: USERS,
        request: () => ({ method: 'GET', path: `/v1/public/flowStates?userId=bench-user-${next++ % USERS}` }),
        headers,
      });
      warm.push({
        perSecond: Math.round((USERS * 1000) / (performance.now() - started)),
        shed: first.shed,
      });
      // Every user again, one at a time, with a gold group: a read shed by backpressure recorded nothing, and the
      // measured reads name random groups, with which a user is eligible for the group-targeted flows too (so in
      // more audiences). After this pass every exposure the measured reads could make is in place, and they measure
      // reads, not the first day's writes.
      next = 0;
      await load(url, {
        connections: 1,
        amount: USERS,
        request: () => ({
          method: 'GET',
          path: `/v1/public/flowStates?userId=bench-user-${next++ % USERS}&groupId=bench-group-0`,
        }),
        headers,
      });
    }
    const shape = await answerShape(services[1]);
    const all = scenarios(USERS, slugs);
    const rows = { without: {}, with: {} };
    let turn = 0;
    for (const name of READS) {
      rows.without[name] = [];
      rows.with[name] = [];
      for (const c of connections) {
        const [withoutRow, withRow] = await inTurn(services, repeat, turn, {
          connections: c,
          duration,
          request: all[name],
          headers,
        });
        turn += repeat;
        rows.without[name].push(withoutRow);
        rows.with[name].push(withRow);
      }
    }
    return {
      store,
      users: USERS,
      flows: FLOWS,
      experiments: EXPERIMENTS,
      shape,
      // First reads a second, every user once at 8 connections: with experiments, these record the exposures.
      firstReads: { without: warm[0], with: warm[1] },
      rows,
      comparison: compare(rows),
      stolenPercent: stolenShare(ticks),
      loadAverage: [loadBefore, loadavg()[0]].map((n) => Number(n.toFixed(1))),
    };
  } finally {
    await Promise.all(services.map((service) => service.stop()));
    await withoutData.dropDatabase();
    await withData.dropDatabase();
    without.remove();
    withExperiments.remove();
  }
}

/** Each read's served reads a second with experiments as a share of the same read without, and whether it is within the budget. */
function compare(rows) {
  return Object.keys(rows.without).flatMap((name) =>
    rows.without[name].map((without, i) => {
      const withRow = rows.with[name][i];
      const share = withRow.okPerSecond / Math.max(without.okPerSecond, 1);
      return {
        name,
        connections: without.connections,
        without: without.okPerSecond,
        with: withRow.okPerSecond,
        percent: Math.round(100 * share),
        met: share >= BUDGET,
      };
    }),
  );
}

export const runExperimentsBench = (options) => onStores(benchStore, BUDGET, options);

export function printExperimentsBench(result) {
  for (const [store, bench] of Object.entries(result.stores)) {
    console.log(
      `\nState reads on ${storeTitle(store)}: ${bench.users} users, ${bench.flows} flows, without and with ${bench.experiments} running experiments, ${result.repeat} runs of ${result.duration} s per side and row, in turn; each side's median run`,
    );
    const { shape } = bench;
    console.log(
      `  With experiments, per read (${shape.sample} users): exposed to ${shape.experimentsExposedTo} experiments, ${shape.heldBack} flows held back. First reads at 8 connections (recording the exposures): ${bench.firstReads.with.perSecond} a second (${bench.firstReads.with.shed} shed), against ${bench.firstReads.without.perSecond} (${bench.firstReads.without.shed} shed) without`,
    );
    console.log(
      `  ${'read'.padEnd(24)} | conns | without 2xx/s | with 2xx/s |  share | target ≥ ${result.budgetPercent}% | without p99 | with p99 | without runs | with runs`,
    );
    for (const row of bench.comparison) {
      const index = bench.rows.without[row.name].findIndex((r) => r.connections === row.connections);
      const [without, withRow] = [bench.rows.without[row.name][index], bench.rows.with[row.name][index]];
      console.log(
        `  ${row.name.padEnd(24)} | ${String(row.connections).padStart(5)} | ${String(row.without).padStart(13)} | ${String(row.with).padStart(10)} | ${`${row.percent}%`.padStart(6)} | ${(row.met ? 'met' : 'MISSED').padStart(14)} | ${String(without.p99).padStart(11)} | ${String(withRow.p99).padStart(8)} | ${(without.runs ?? []).join(' ').padEnd(12)} | ${(withRow.runs ?? []).join(' ')}`,
      );
    }
    const errors = Object.values(bench.rows)
      .flatMap((rows) => Object.values(rows).flat())
      .reduce((sum, row) => sum + row.errors, 0);
    console.log(
      `  Errors: ${errors}. CPU time the hypervisor gave to other machines during these runs: ${bench.stolenPercent}%; load average ${bench.loadAverage.join(' → ')} (2 cores, the bench's own processes included)`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '5' },
      stores: { type: 'string', default: 'embedded,postgres' },
      connections: { type: 'string', default: '1,16,64' },
      repeat: { type: 'string', default: '3' },
    },
  });
  const result = await runExperimentsBench({
    duration: Number(values.duration),
    stores: values.stores.split(','),
    connections: values.connections.split(',').map(Number),
    repeat: Number(values.repeat),
  });
  printExperimentsBench(result);
}
