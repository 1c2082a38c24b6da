// Benchmark support: the built service as its own process on loopback, temporary flow folders, and RSS sampling from /proc.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));

export function tempFlows(files) {
  const dir = mkdtempSync(join(tmpdir(), 'onboarding-bench-flows-'));
  for (const [name, yaml] of Object.entries(files)) writeFileSync(join(dir, name), yaml);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts `node dist/server.mjs` on a free loopback port with its own data directory; resolves once it listens. */
export async function startServiceProcess({ flows, database, args = [], env = {} }) {
  const dataDir = database ? undefined : mkdtempSync(join(tmpdir(), 'onboarding-bench-data-'));
  const publicKey = 'pk_bench_public';
  const privateKey = 'sk_bench_private';
  // BENCH_PROFILE_DIR=<dir>: the service writes a CPU profile there when it stops (open it in Chrome's DevTools).
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  const child = spawn(
    process.execPath,
    [...profile, 'dist/server.mjs', '--port', '0', '--flows', flows, '--database', database ?? dataDir, ...args],
    {
      cwd: root,
      env: { ...process.env, ONBOARDING_PUBLIC_KEYS: publicKey, ONBOARDING_PRIVATE_KEYS: privateKey, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start:\n${output}`)), 60_000);
    child.stdout.on('data', () => {
      const match = /listening on (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`the service exited ${code}:\n${output}`)));
  });
  // The start-up line "limits: max-body-bytes 102400, …" names every limit in force.
  const limitLine = /limits:\s+(.*)/.exec(output)?.[1] ?? '';
  const limits = Object.fromEntries(
    [...limitLine.matchAll(/([a-z-]+) (\d+)/g)].map(([, flag, value]) => [
      flag.replace(/-([a-z])/g, (_, c) => c.toUpperCase()),
      Number(value),
    ]),
  );
  return {
    url,
    pid: child.pid,
    publicKey,
    privateKey,
    output: () => output,
    limits: { dataBytes: limits.maxDataBytes ?? 8192, ...limits },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => {
          if (dataDir) rmSync(dataDir, { recursive: true, force: true });
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** The q-th quantile (0 to 1) of timings, in ms with one decimal (or `digits`); null for none. */
export function percentile(values, q, digits = 1) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(digits));
}

/** The middle value of numbers, the mean of the middle two for an even count. */
export function middle(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const half = sorted.length / 2;
  return Number.isInteger(half) ? (sorted[half - 1] + sorted[half]) / 2 : sorted[Math.floor(half)];
}

/**
 * Runs the sides in turn, `rounds` times, the first one going round from `turn` on (A then B, B then A, …; with three,
 * A B C, B C A, C A B, …), so runs next to each other meet the same machine. Returns each side's runs and, per round,
 * the second side's rate (`okPerSecond`) as a share of the first's in the same round (see `sharesOf` for other
 * pairs): a paired share leaves out what a whole run's speed varies by (up to 2× on a shared machine), which sides
 * taken apart keep.
 */
export async function inRounds(rounds, turn, sides) {
  const runs = sides.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < sides.length; k++) {
      const i = (turn + r + k) % sides.length;
      runs[i].push(await sides[i]());
    }
  }
  return { runs, shares: sharesOf(runs, 1, 0) };
}

/** Per round, side `of`'s rate as a share of side `to`'s in the same round. */
export const sharesOf = (runs, of, to) =>
  runs[of].map((run, r) => run.okPerSecond / Math.max(runs[to][r].okPerSecond, 1));

/** Resident set size of a process, in MiB. */
export function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/**
 * Samples RSS every 20 ms: for `ms`, or, with `untilStopped`, until `stop()` is called.
 * Resolves (or `stop()` resolves) to the mean and the maximum, in MiB with one decimal.
 */
export function sampleRss(pid, ms, { untilStopped = false } = {}) {
  const samples = [];
  const take = () => samples.push(rssMiB(pid));
  take();
  const timer = setInterval(take, 20);
  const finish = () => {
    clearInterval(timer);
    take();
    const round = (n) => Number(n.toFixed(1));
    return { mean: round(samples.reduce((a, b) => a + b, 0) / samples.length), max: round(Math.max(...samples)) };
  };
  if (untilStopped) return { stop: async () => finish() };
  return new Promise((resolve) => setTimeout(() => resolve(finish()), ms));
}

/** CPU time a process has used so far (user + system), in milliseconds, from /proc (clock ticks of 10 ms). */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // After "pid (comm) ", utime and stime are the 12th and 13th fields.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The machine's CPU time by kind so far, from /proc/stat (clock ticks): `share(before)` then gives the part of
 * all CPU time since `before` that the hypervisor gave to other machines (steal). Shared cores make timings noisy.
 */
export function cpuTicks() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  return { total: fields.slice(0, 8).reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
}

export function stolenShare(before) {
  const now = cpuTicks();
  const total = now.total - before.total;
  return total > 0 ? Number(((100 * (now.steal - before.steal)) / total).toFixed(1)) : 0;
}

/** The line under a bench's table: its runs' errors, and what else the machine was doing meanwhile. */
export function printErrorsAndMachine(rows, { stolenPercent, loadAverage }) {
  const errors = Object.values(rows)
    .flatMap((side) => Object.values(side).flat())
    .reduce((sum, row) => sum + row.errors, 0);
  console.log(
    `  Errors: ${errors}. CPU time the hypervisor gave to other machines during these runs: ${stolenPercent}%; load average ${loadAverage.join(' → ')} (2 cores, the bench's own processes included)`,
  );
}

/**
 * Runs a side-by-side read bench when its file is the one node was started with: `--duration 5`, `--stores
 * embedded,postgres`, `--connections 1,16,64`, `--repeat 3` (or the bench's own `defaults` of duration and repeat),
 * as `npm run bench` runs it; `--same` loads two services that are both without the feature (an A/A run), whose
 * shares are the bench's own spread on this machine.
 */
export async function runWhenMain(moduleUrl, run, print, defaults = {}) {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: String(defaults.duration ?? 5) },
      stores: { type: 'string', default: 'embedded,postgres' },
      connections: { type: 'string', default: '1,16,64' },
      repeat: { type: 'string', default: String(defaults.repeat ?? 3) },
      same: { type: 'boolean', default: false },
    },
  });
  print(
    await run({
      duration: Number(values.duration),
      stores: values.stores.split(','),
      connections: values.connections.split(',').map(Number),
      repeat: Number(values.repeat),
      same: values.same,
    }),
  );
}

/** The state answers (no content) of `sample` users spread over `users`, each read with one of the 100 bench groups: what a bench's reads carry. */
export async function sampledAnswers(service, users, sample = 200) {
  const headers = { authorization: `Bearer ${service.publicKey}` };
  const answers = [];
  for (let i = 0; i < sample; i++) {
    const userId = `bench-user-${Math.floor((i * users) / sample)}`;
    const path = `/v1/public/flowStates?userId=${userId}&groupId=bench-group-${i % 100}&content=none`;
    answers.push(await (await fetch(`${service.url}${path}`, { headers })).json());
  }
  return answers;
}
