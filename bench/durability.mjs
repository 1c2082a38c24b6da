// Issue 35: what syncing each write to disk costs the embedded store, transitions and users upserts with `--fsync on` (the default) against `--fsync off`, in turn in the same run.
// Usage: node bench/durability.mjs [--duration 5] [--connections 1,16] [--repeat 3]
import { loadavg } from 'node:os';
import { inTurn } from './collections.mjs';
import { benchFlows, LIMIT_ARGS, readEveryUser, scenarios, seededLocation } from './service.mjs';
import {
  cpuTicks,
  printErrorsAndMachine,
  runWhenMain,
  startServiceProcess,
  stolenShare,
  tempFlows,
} from './support.mjs';

/** Syncing is the default only if it keeps at least half of the writes a second the store serves without it. */
const BUDGET = 0.5;
const USERS = 10_000;
const FLOWS = 50;
const WRITES = ['transition', 'users upsert'];

/**
 * Two embedded stores seeded alike, one service syncing each write's WAL before it answers and one leaving writes in
 * the operating system's cache; every user read once on each, then each write loaded on both in turn (inTurn), so a
 * row's share is the median of the rounds' writes a second with syncing as a share of those without.
 */
export async function runDurabilityBench({ duration = 5, connections = [1, 16], repeat = 3 } = {}) {
  const files = benchFlows(FLOWS);
  const slugs = Object.keys(files).map((file) => file.replace(/\.yaml$/, ''));
  const folder = tempFlows(files);
  const data = [
    await seededLocation('embedded', undefined, USERS, folder.dir, slugs),
    await seededLocation('embedded', undefined, USERS, folder.dir, slugs),
  ];
  const services = [];
  try {
    for (const [i, fsync] of ['off', 'on'].entries())
      services.push(
        await startServiceProcess({
          flows: folder.dir,
          database: data[i].location,
          args: [...LIMIT_ARGS, '--fsync', fsync],
        }),
      );
    const ticks = cpuTicks();
    const loadBefore = loadavg()[0];
    const headers = { authorization: `Bearer ${services[0].publicKey}`, 'content-type': 'application/json' };
    for (const { url } of services) await readEveryUser(url, USERS, headers);
    const all = scenarios(USERS, slugs);
    const rows = { off: {}, on: {} };
    let turn = 0;
    for (const name of WRITES) {
      rows.off[name] = [];
      rows.on[name] = [];
      for (const c of connections) {
        const [off, on] = await inTurn(services, repeat, turn, {
          connections: c,
          duration,
          request: all[name],
          headers,
        });
        turn += repeat;
        rows.off[name].push(off);
        rows.on[name].push(on);
      }
    }
    const comparison = WRITES.flatMap((name) =>
      rows.on[name].map((on, i) => ({
        name,
        connections: on.connections,
        off: rows.off[name][i].okPerSecond,
        on: on.okPerSecond,
        percent: Math.round(100 * on.share),
        met: on.share >= BUDGET,
      })),
    );
    return {
      store: 'embedded',
      users: USERS,
      flows: FLOWS,
      duration,
      repeat,
      connections,
      budgetPercent: 100 * BUDGET,
      rows,
      comparison,
      stolenPercent: stolenShare(ticks),
      loadAverage: [loadBefore, loadavg()[0]].map((n) => Number(n.toFixed(1))),
    };
  } finally {
    await Promise.all(services.map((service) => service.stop()));
    for (const location of data) await location.dropDatabase();
    folder.remove();
  }
}

export function printDurabilityBench(result) {
  console.log(
    `\nWrites on the embedded store (PGlite, data directory): ${result.users} users, ${result.flows} flows, each write's WAL synced to disk before it is answered (--fsync on, the default) against left in the operating system's cache (--fsync off), ${result.repeat} runs of ${result.duration} s per side and row, in turn; each side's median run, and the median of the rounds' shares`,
  );
  console.log(
    `  ${'write'.padEnd(14)} | conns | off 2xx/s | on 2xx/s |  share | target ≥ ${result.budgetPercent}% | off p99 | on p99 | off CPU µs | on CPU µs | on / off, by round`,
  );
  for (const row of result.comparison) {
    const index = result.rows.on[row.name].findIndex((r) => r.connections === row.connections);
    const [off, on] = [result.rows.off[row.name][index], result.rows.on[row.name][index]];
    console.log(
      `  ${row.name.padEnd(14)} | ${String(row.connections).padStart(5)} | ${String(row.off).padStart(9)} | ${String(row.on).padStart(8)} | ${`${row.percent}%`.padStart(6)} | ${(row.met ? 'met' : 'MISSED').padStart(13)} | ${String(off.p99).padStart(7)} | ${String(on.p99).padStart(6)} | ${String(off.cpuMicrosPerRequest ?? '').padStart(10)} | ${String(on.cpuMicrosPerRequest ?? '').padStart(9)} | ${(on.shares ?? []).join(' ')}`,
    );
  }
  printErrorsAndMachine(result.rows, result);
}

await runWhenMain(import.meta.url, runDurabilityBench, printDurabilityBench);
