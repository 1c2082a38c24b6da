// The side-by-side read benches' store run: the same users and flows seeded twice, one service without a feature and one with it, every user read first, then each read loaded on both in turn.
import { loadavg } from 'node:os';
import { inTurn } from './collections.mjs';
import { benchFlows, LIMIT_ARGS, load, readEveryUser, scenarios, seededLocation } from './service.mjs';
import { cpuTicks, printErrorsAndMachine, startServiceProcess, stolenShare, tempFlows } from './support.mjs';

export const READS = ['GET flowStates', 'POST flowStates (read)'];

/**
 * One store, without and with a feature: `withFiles(files, slugs)` gives the second service's flow folder from the
 * first's, `more(q)` seeds rows of its own into both data sets, and `shape(service)` says what the reads with the
 * feature carry. Every user is read once (8 connections) and once more one at a time with a gold group, so the read
 * caches hold them and whatever a first read records is in place; then each read is loaded in turn on both services.
 */
export async function sideBySide(
  store,
  { pg, duration, connections, repeat, same = false },
  { users, flows, withFiles, more, shape, budget },
) {
  const files = benchFlows(flows);
  const slugs = Object.keys(files).map((file) => file.replace(/\.yaml$/, ''));
  const without = tempFlows(files);
  const withFeature = tempFlows(same ? files : withFiles(files, slugs));
  const withoutData = await seededLocation(store, pg, users, without.dir, slugs, more);
  const withData = await seededLocation(store, pg, users, withFeature.dir, slugs, more);
  const start = (folder, data) =>
    startServiceProcess({
      flows: folder.dir,
      database: data.location,
      args: LIMIT_ARGS,
      env: { ONBOARDING_BENCH_ROUTES: '1' },
    });
  const services = [await start(without, withoutData), await start(withFeature, withData)];
  const ticks = cpuTicks();
  const loadBefore = loadavg()[0];
  try {
    const headers = { authorization: `Bearer ${services[0].publicKey}`, 'content-type': 'application/json' };
    const warm = [];
    for (const { url } of services) {
      const started = performance.now();
      const first = await readEveryUser(url, users, headers);
      warm.push({ perSecond: Math.round((users * 1000) / (performance.now() - started)), shed: first.shed });
      let next = 0;
      await load(url, {
        connections: 1,
        amount: users,
        request: () => ({
          method: 'GET',
          path: `/v1/public/flowStates?userId=bench-user-${next++ % users}&groupId=bench-group-0`,
        }),
        headers,
      });
    }
    const measured = await shape(services[1]);
    const all = scenarios(users, slugs);
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
      same,
      users,
      flows,
      shape: measured,
      // First reads a second, every user once at 8 connections.
      firstReads: { without: warm[0], with: warm[1] },
      rows,
      comparison: compare(rows, budget),
      stolenPercent: stolenShare(ticks),
      loadAverage: [loadBefore, loadavg()[0]].map((n) => Number(n.toFixed(1))),
    };
  } finally {
    await Promise.all(services.map((service) => service.stop()));
    await withoutData.dropDatabase();
    await withData.dropDatabase();
    without.remove();
    withFeature.remove();
  }
}

/**
 * Each read's share, and whether it is within the budget: the median over the rounds of the served reads a second with
 * the feature as a share of the same read without in the same round (see inTurn).
 */
function compare(rows, budget) {
  return Object.keys(rows.without).flatMap((name) =>
    rows.without[name].map((without, i) => {
      const withRow = rows.with[name][i];
      const share = withRow.share;
      return {
        name,
        connections: without.connections,
        without: without.okPerSecond,
        with: withRow.okPerSecond,
        percent: Math.round(100 * share),
        met: share >= budget,
      };
    }),
  );
}

/** The table of one store's rows, as the benches print it. */
export function printComparison(bench, budgetPercent) {
  if (bench.same)
    console.log(
      "  A/A run (--same): both services are without the feature, so every share below is the bench's own spread.",
    );
  console.log(
    `  ${'read'.padEnd(24)} | conns | without 2xx/s | with 2xx/s |  share | target ≥ ${budgetPercent}% | without p99 | with p99 | without runs | with runs | with / without, by round`,
  );
  for (const row of bench.comparison) {
    const index = bench.rows.without[row.name].findIndex((r) => r.connections === row.connections);
    const [without, withRow] = [bench.rows.without[row.name][index], bench.rows.with[row.name][index]];
    console.log(
      `  ${row.name.padEnd(24)} | ${String(row.connections).padStart(5)} | ${String(row.without).padStart(13)} | ${String(row.with).padStart(10)} | ${`${row.percent}%`.padStart(6)} | ${(row.met ? 'met' : 'MISSED').padStart(14)} | ${String(without.p99).padStart(11)} | ${String(withRow.p99).padStart(8)} | ${(without.runs ?? []).join(' ').padEnd(12)} | ${(withRow.runs ?? []).join(' ').padEnd(12)} | ${(withRow.shares ?? []).join(' ')}`,
    );
  }
  printErrorsAndMachine(bench.rows, bench);
}
