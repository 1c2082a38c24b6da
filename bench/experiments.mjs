// Issue 38: the service's state reads with 10 running experiments against the same reads with none, in turn in the same run, on both stores.
// Usage: node bench/experiments.mjs [--duration 5] [--stores embedded,postgres] [--connections 1,16,64] [--repeat 3] [--same]
// (npm run bench -- experiments takes 5 runs per side and row.)
import { onStores, storeTitle } from './collections.mjs';
import { printComparison, sideBySide } from './side-by-side.mjs';
import { runWhenMain, sampledAnswers } from './support.mjs';

/** How far a read with experiments may fall behind the same read without: within 10 % of its reads a second. */
const BUDGET = 0.9;
const USERS = 10_000;
const FLOWS = 50;
const EXPERIMENTS = 10;

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
  let exposed = 0;
  let held = 0;
  for (const answer of await sampledAnswers(service, USERS, sample)) {
    exposed += answer.experiments?.length ?? 0;
    held += answer.eligibleFlows.filter((flow) => !flow.$state.visible && !flow.$state.completed).length;
  }
  const mean = (n) => Number((n / sample).toFixed(1));
  return { sample, experimentsExposedTo: mean(exposed), heldBack: mean(held) };
}

/** One store: the same data and flows, read without and with experiments.yaml, loaded in turn at each concurrency. */
async function benchStore(store, options) {
  const result = await sideBySide(store, options, {
    users: USERS,
    flows: FLOWS,
    withFiles: (files, slugs) => ({ ...files, 'experiments.yaml': experimentsYaml(slugs) }),
    shape: answerShape,
    budget: BUDGET,
  });
  return { ...result, experiments: EXPERIMENTS };
}

export const runExperimentsBench = (options) => onStores(benchStore, BUDGET, options);

export function printExperimentsBench(result) {
  for (const [store, bench] of Object.entries(result.stores)) {
    console.log(
      `\nState reads on ${storeTitle(store)}: ${bench.users} users, ${bench.flows} flows, ${bench.same ? 'two services both without experiments (A/A)' : `without and with ${bench.experiments} running experiments`}, ${result.repeat} runs of ${result.duration} s per side and row, in turn; each side's median run, and the median of the rounds' shares`,
    );
    const { shape } = bench;
    if (!bench.same)
      console.log(
        `  With experiments, per read (${shape.sample} users): exposed to ${shape.experimentsExposedTo} experiments, ${shape.heldBack} flows held back. First reads at 8 connections (recording the exposures): ${bench.firstReads.with.perSecond} a second (${bench.firstReads.with.shed} shed), against ${bench.firstReads.without.perSecond} (${bench.firstReads.without.shed} shed) without`,
      );
    printComparison(bench, result.budgetPercent);
  }
}

await runWhenMain(import.meta.url, runExperimentsBench, printExperimentsBench);
