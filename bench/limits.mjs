// Issue 39: the service's state reads with global limits and schedules in force against the same reads without, in turn in the same run, on both stores.
// Usage: node bench/limits.mjs [--duration 5] [--stores embedded,postgres] [--connections 1,16,64] [--repeat 3] [--same]
import { onStores, storeTitle } from './collections.mjs';
import { printComparison, sideBySide } from './side-by-side.mjs';
import { runWhenMain, sampledAnswers } from './support.mjs';

/** How far a read with limits and schedules may fall behind the same read without: within 10 % of its reads a second. */
const BUDGET = 0.9;
const USERS = 10_000;
const FLOWS = 50;
const SCHEDULED = 20;

/**
 * Three limits over the bench's flows: every checklist (all 50 are) at most 3 first starts a day, the first 10 at
 * least 6 hours apart, the next 20 at most 5 a week; one flow ignores them.
 */
export function limitsYaml(slugs) {
  return `limits:
  - id: three-a-day
    types: [CHECKLIST]
    max: 3
    per: 1d
  - id: breathing-room
    flows: [${slugs.slice(0, 10).join(', ')}]
    minGap: 6h
  - id: five-a-week
    flows: [${slugs.slice(10, 30).join(', ')}]
    max: 5
    per: 7d
`;
}

/** The flow folder with limits: limits.yaml, 20 flows with a schedule in force (so as eligible as without), one ignoring the limits. */
function withLimits(files, slugs) {
  const out = { ...files, 'limits.yaml': limitsYaml(slugs) };
  slugs.forEach((slug, index) => {
    const extra = [
      index < SCHEDULED ? 'schedule: { start: "2020-01-01T00:00:00Z", end: "2099-01-01T00:00:00+01:00" }' : '',
      index === FLOWS - 1 ? 'ignoreLimits: true' : '',
    ].filter(Boolean);
    if (extra.length) out[`${slug}.yaml`] = files[`${slug}.yaml`].replace(/^type: /m, `${extra.join('\n')}\ntype: `);
  });
  return out;
}

/**
 * First starts for half the users, in both data sets: the three flows they have started, each at its own time in the
 * last two days, so the daily limit holds for some users now and not for others.
 */
async function firstStarts(q) {
  await q(
    `INSERT INTO analytics_flow_users (user_id, flow_slug, flow_version, started_at)
     SELECT 'bench-user-' || n, 'bench-flow-' || lpad(k::text, 3, '0'), 1, now() - ((n + 7 * k) % 48) * interval '1 hour'
     FROM generate_series(0, $1::int - 1) AS n, generate_series(0, 2) AS k WHERE n % 2 = 0`,
    [USERS],
  );
}

/** What reads with limits carry, over `sample` users: flows held back (not finished, not visible). */
async function answerShape(service, sample = 200) {
  let held = 0;
  let limited = 0;
  for (const answer of await sampledAnswers(service, USERS, sample)) {
    const hidden = answer.eligibleFlows.filter((flow) => !flow.$state.visible && !flow.$state.completed).length;
    held += hidden;
    if (hidden) limited++;
  }
  const mean = (n) => Number((n / sample).toFixed(1));
  return { sample, heldBack: mean(held), usersHeldBack: Math.round((100 * limited) / sample) };
}

async function benchStore(store, options) {
  const result = await sideBySide(store, options, {
    users: USERS,
    flows: FLOWS,
    withFiles: withLimits,
    more: firstStarts,
    shape: answerShape,
    budget: BUDGET,
  });
  return { ...result, limits: 3, scheduled: SCHEDULED };
}

export const runLimitsBench = (options) => onStores(benchStore, BUDGET, options);

export function printLimitsBench(result) {
  for (const [store, bench] of Object.entries(result.stores)) {
    console.log(
      `\nState reads on ${storeTitle(store)}: ${bench.users} users, ${bench.flows} flows, ${bench.same ? 'two services both without limits or schedules (A/A)' : `without and with ${bench.limits} global limits and ${bench.scheduled} scheduled flows`}, ${result.repeat} runs of ${result.duration} s per side and row, in turn; each side's median run, and the median of the rounds' shares`,
    );
    const { shape } = bench;
    if (!bench.same)
      console.log(
        `  With limits, per read (${shape.sample} users): ${shape.heldBack} flows held back; ${shape.usersHeldBack}% of users have one held back. First reads at 8 connections: ${bench.firstReads.with.perSecond} a second (${bench.firstReads.with.shed} shed), against ${bench.firstReads.without.perSecond} (${bench.firstReads.without.shed} shed) without`,
      );
    printComparison(bench, result.budgetPercent);
  }
}

await runWhenMain(import.meta.url, runLimitsBench, printLimitsBench);
