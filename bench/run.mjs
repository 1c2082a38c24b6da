// `npm run bench`: runs the benchmarks, prints their tables, writes every figure to bench/results.json and docs/performance.md from them.
// Usage: npm run bench [-- <name> …]   (names: the keys of BENCHMARKS below; default: all)
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printAnalyticsBench, runAnalyticsBench } from './analytics.mjs';
import { printAttack, runAttack } from './attack-bloat.mjs';
import { printCollectionsBench, runCollectionsBench } from './collections.mjs';
import { printDurabilityBench, runDurabilityBench } from './durability.mjs';
import { printExperimentsBench, runExperimentsBench } from './experiments.mjs';
import { printLimitsBench, runLimitsBench } from './limits.mjs';
import { printLocale, runLocale } from './locale.mjs';
import { printLocaleAnswer, runLocaleAnswer } from './locale-answer.mjs';
import { printMainThread, runMainThread } from './main-thread.mjs';
import { performanceDoc } from './performance-doc.mjs';
import { printRoundTrips, runRoundTrips } from './round-trips.mjs';
import { printServiceBench, runServiceBench } from './service.mjs';
import { printSize, runSize } from './size.mjs';
import { printStartRules, runStartRules } from './start-rules.mjs';
import { printTargets, runTargets } from './targets.mjs';

const BENCHMARKS = {
  /** Issue: a public key could crash the service by bloating one user; answers must stay bounded, RSS flat. */
  attack: { run: () => runAttack(), print: printAttack },
  /** Issues 10, 23 and 24: the bytes of the script and each chunk (≤ 24 KiB; 3 KiB for the checklist, form and survey, 10 KiB for the tour, 9 KiB for hints and tooltips), and what each dependency and element takes. */
  size: { run: () => runSize(), print: printSize },
  /**
   * Issues 10 and 23: round trips and time to the first flow in Chromium, 100 ms added per request (1, 1 and 0 round
   * trips; a form in the markup 1, its chunk beside the first read; an auto-mounted survey 2, the read then its chunk).
   */
  'round-trips': { run: () => runRoundTrips(), print: printRoundTrips },
  /** Issue 10: long tasks, the apply of an answer and a click's work in Chromium with 10, 100 and 1000 flows. */
  'main-thread': { run: () => runMainThread(), print: printMainThread },
  /**
   * Issue 24: a tour step on a page of 5,000 elements, its target three scrollers deep (long tasks ≤ 50 ms, the tooltip
   * beside its target within one frame, no work while idle), and the cost of waiting for a late target on a page
   * that mutates 1,000 times a second.
   */
  targets: { run: () => runTargets(), print: printTargets },
  /** Issue 25: checking the start rules of 100 flows on a route change costs under 1 ms, and never a request. */
  'start-rules': { run: () => runStartRules(), print: printStartRules },
  /** Issue 27: setLocale redraws 100 translated flows placed in the page with no long task over 50 ms. */
  locale: { run: () => runLocale(), print: printLocale },
  /**
   * Issue 27: a state answer in one locale is the size of the same flows written in that language alone (within 1%),
   * and the elements' strings cost less in their own file than in every answer.
   */
  'locale-answer': { run: () => runLocaleAnswer(), print: printLocaleAnswer },
  /**
   * Issue 15: 10,000 users and 50 targeted flows, reads, transitions and upserts at 1, 16 and 64 connections against a
   * one-SELECT ceiling route, on the embedded store and on a PostgreSQL server it starts; growth in users and flows; RSS.
   */
  service: { run: () => runServiceBench(), print: printServiceBench },
  /**
   * Issue 25: state reads with 10 collections (cool-offs running for some users) and targeting over time (eventCount
   * in a window, lastEventAt) within 20 % of today's reads, measured in turn in the same run, on both stores.
   */
  collections: { run: () => runCollectionsBench(), print: printCollectionsBench },
  /**
   * Issue 35: transitions and users upserts on the embedded store with each write synced to disk before its answer
   * (--fsync on, the default) against without, in turn; syncing stays the default while it keeps at least half.
   */
  durability: { run: () => runDurabilityBench(), print: printDurabilityBench },
  /**
   * Issue 38: state reads with 10 running experiments within 10 % of the same reads with none, on both stores; 5 runs
   * per side and row, as the limits bench takes: one round's share of two identical services strays by up to 16 %
   * (spread).
   */
  experiments: { run: () => runExperimentsBench({ repeat: 5 }), print: printExperimentsBench },
  /**
   * Issue 39: state reads with 3 global limits and 20 scheduled flows within 10 % of the same reads without, on both
   * stores; 5 runs per side and row, as one run at 1 connection varies by up to 2.4× on this machine.
   */
  limits: { run: () => runLimitsBench({ repeat: 5 }), print: printLimitsBench },
  /**
   * The side-by-side benches' own spread: the limits bench's rounds on both stores with both services without the
   * feature (an A/A run), so a share in the rows above can be read against what two identical services give.
   */
  spread: { run: () => runLimitsBench({ repeat: 5, same: true }), print: printLimitsBench },
  /** Issue 13: on 100,000 users and 50 flows, each analytics endpoint answers in under 500 ms on the embedded store. */
  analytics: { run: () => runAnalyticsBench(), print: printAnalyticsBench },
};

const resultsPath = fileURLToPath(new URL('./results.json', import.meta.url));
const requested = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const unknown = requested.filter((name) => !(name in BENCHMARKS));
if (unknown.length) {
  console.error(`Unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(BENCHMARKS).join(', ')}.`);
  process.exit(2);
}
const names = requested.length ? requested : Object.keys(BENCHMARKS);
// Keep the figures of benchmarks not run this time, so one run of one benchmark does not erase the others.
const results = existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, 'utf8')) : {};
results.machine = {
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  at: new Date().toISOString(),
};
for (const name of names) {
  const benchmark = BENCHMARKS[name];
  console.log(`\n== ${name} ==`);
  const result = await benchmark.run();
  benchmark.print(result);
  results[name] = result;
}
writeFileSync(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
// The page is written from every figure kept, not only this run's, so it always matches results.json.
writeFileSync(fileURLToPath(new URL('../docs/performance.md', import.meta.url)), performanceDoc(results));
console.log(`\nFigures written to bench/results.json and docs/performance.md.`);
