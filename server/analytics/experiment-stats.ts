// The statistics of an experiment report, as pure functions of the counts: intervals, tests and the chance to beat.
import betaln from '@stdlib/math-base-special-betaln';
import erfc from '@stdlib/math-base-special-erfc';
import gammainc from '@stdlib/math-base-special-gammainc';
import type { ExperimentMethods, ExperimentVariantReport, Interval95 } from '../../src/api/wire.js';

/** The 0.975 quantile of the standard normal distribution: two-sided 95 %. */
export const Z95 = 1.959963984540054;

/** The sample-ratio test's threshold: below it, the split did not come out as configured. */
export const SAMPLE_RATIO_ALPHA = 0.001;

/** Conversions and non-conversions each arm needs before the figures are worth reading. */
export const ENOUGH_PER_OUTCOME = 5;

export const EXPERIMENT_METHODS: ExperimentMethods = {
  interval: 'wilson-score-95',
  difference: 'newcombe-hybrid-score-95',
  pValue: 'pooled-two-proportion-z-test-two-sided',
  chanceToBeatBaseline: 'beta-posteriors-exact-evan-miller',
  sampleRatio: 'chi-square-goodness-of-fit',
};

/** A variant's configuration and counts, as the report's store query gives them. */
export interface VariantCounts {
  id: string;
  flow: string | null;
  weight: number;
  exposed: number;
  converted: number;
}

export interface SampleRatio {
  pValue: number | null;
  mismatch: boolean;
}

export interface ExperimentFigures {
  baseline: string;
  variants: ExperimentVariantReport[];
  sampleRatio: SampleRatio;
  enoughData: boolean;
  methods: ExperimentMethods;
}

/** Whole counts with 0 ≤ converted ≤ exposed: the only ones the formulas below are defined for. */
const validCounts = (converted: number, exposed: number) =>
  Number.isSafeInteger(converted) && Number.isSafeInteger(exposed) && converted >= 0 && converted <= exposed;

const clamp01 = (value: number) => Math.min(1, Math.max(0, value));

/** The 95 % Wilson score interval of converted ÷ exposed; null when no one is exposed (or the counts are not counts). */
export function wilson(converted: number, exposed: number): Interval95 | null {
  if (!validCounts(converted, exposed) || exposed === 0) return null;
  const p = converted / exposed;
  const z2 = Z95 * Z95;
  const denominator = 1 + z2 / exposed;
  const centre = (p + z2 / (2 * exposed)) / denominator;
  const half = (Z95 / denominator) * Math.sqrt((p * (1 - p)) / exposed + z2 / (4 * exposed * exposed));
  // At 0 and at every conversion the bound is exactly 0 or 1; rounding would leave it a hair away.
  const lower = converted === 0 ? 0 : clamp01(centre - half);
  const upper = converted === exposed ? 1 : clamp01(centre + half);
  return [lower, upper];
}

/**
 * The 95 % interval of p1 − p0 by Newcombe's hybrid score method (method 10 of Newcombe 1998), from each rate's Wilson
 * interval; null when either arm has no one exposed.
 */
export function newcombe(c1: number, n1: number, c0: number, n0: number): Interval95 | null {
  const w1 = wilson(c1, n1);
  const w0 = wilson(c0, n0);
  if (!w1 || !w0) return null;
  const p1 = c1 / n1;
  const p0 = c0 / n0;
  const difference = p1 - p0;
  const below = Math.hypot(p1 - w1[0], w0[1] - p0);
  const above = Math.hypot(w1[1] - p1, p0 - w0[0]);
  return [Math.max(-1, difference - below), Math.min(1, difference + above)];
}

/**
 * The two-sided p-value of the pooled two-proportion z-test of p1 = p0; null when either arm has no one exposed, or when
 * no one converted or everyone did in both (the pooled proportion is 0 or 1, and the test has no variance to go on).
 */
export function pooledZTest(c1: number, n1: number, c0: number, n0: number): number | null {
  if (!validCounts(c1, n1) || !validCounts(c0, n0) || n1 === 0 || n0 === 0) return null;
  const pooled = (c1 + c0) / (n1 + n0);
  if (pooled <= 0 || pooled >= 1) return null;
  const z = (c1 / n1 - c0 / n0) / Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n0));
  // erfc keeps its precision in the far tail, where 1 − Φ(|z|) would round to 0.
  return Math.min(1, erfc(Math.abs(z) / Math.SQRT2));
}

/** Terms between exact re-evaluations of the closed form's term, so the recurrence's rounding cannot build up. */
const RESYNC_EVERY = 256;

/**
 * Evan Miller's closed form of P(pB > pA), pA ~ Beta(aA, bA) and pB ~ Beta(aB, bB) independent, for a whole aB:
 * the sum over i from 0 to aB − 1 of B(aA + i, bA + bB) / ((bB + i) · B(1 + i, bB) · B(aA, bA)). Each term is taken in
 * log-space (no overflow at tens of thousands per arm); between exact evaluations, term i + 1 is term i times
 * (aA + i)(bB + i) / ((aA + bA + bB + i)(1 + i)). The loop runs aB times.
 */
function millerSum(aA: number, bA: number, aB: number, bB: number): number {
  const logNorm = betaln(aA, bA);
  const exactLogTerm = (i: number) => betaln(aA + i, bA + bB) - Math.log(bB + i) - betaln(1 + i, bB) - logNorm;
  let sum = 0;
  let logTerm = 0;
  for (let i = 0; i < aB; i++) {
    logTerm =
      i % RESYNC_EVERY === 0
        ? exactLogTerm(i)
        : logTerm + Math.log(((aA + i - 1) / (aA + bA + bB + i - 1)) * ((bB + i - 1) / i));
    sum += Math.exp(logTerm);
  }
  return sum;
}

/**
 * P(p1 > p0) with p ~ Beta(1 + converted, 1 + exposed − converted) for each arm, independent (uniform priors), exactly
 * by Evan Miller's closed form. Of the four equivalent sums (over the successes or the failures of either arm, by
 * P(p1 > p0) = 1 − P(p0 > p1) = P(1 − p0 > 1 − p1)), the shortest is taken, so the loop runs at most
 * min(1 + c1, 1 + n1 − c1, 1 + c0, 1 + n0 − c0) times. NaN when the counts are not counts.
 */
export function chanceToBeat(c1: number, n1: number, c0: number, n0: number): number {
  if (!validCounts(c1, n1) || !validCounts(c0, n0)) return Number.NaN;
  const a1 = 1 + c1;
  const b1 = 1 + n1 - c1;
  const a0 = 1 + c0;
  const b0 = 1 + n0 - c0;
  const shortest = Math.min(a1, a0, b0, b1);
  let chance: number;
  if (shortest === a1) chance = millerSum(a0, b0, a1, b1);
  else if (shortest === b0) chance = millerSum(b1, a1, b0, a0);
  else if (shortest === a0) chance = 1 - millerSum(a1, b1, a0, b0);
  else chance = 1 - millerSum(b0, a0, b1, a1);
  return clamp01(chance);
}

/**
 * The chi-square goodness-of-fit test of the exposed counts against the shares the weights give, df = k − 1;
 * `mismatch` when p < 0.001. pValue is null when no one is exposed (or the lists do not pair up).
 */
export function sampleRatioTest(exposed: number[], weights: number[]): SampleRatio {
  const total = exposed.reduce((sum, count) => sum + count, 0);
  const totalWeight = weights.reduce((sum, weight) => sum + weight, 0);
  if (exposed.length !== weights.length || !(total > 0) || !(totalWeight > 0)) return { pValue: null, mismatch: false };
  let statistic = 0;
  for (const [index, observed] of exposed.entries()) {
    const expected = (total * weights[index]) / totalWeight;
    if (expected > 0) statistic += (observed - expected) ** 2 / expected;
    else if (observed > 0) statistic = Number.POSITIVE_INFINITY;
  }
  const degrees = exposed.length - 1;
  // One arm takes everyone by definition; its test has nothing to find.
  const pValue = degrees === 0 ? 1 : Number.isFinite(statistic) ? gammainc(statistic / 2, degrees / 2, true, true) : 0;
  return { pValue, mismatch: pValue < SAMPLE_RATIO_ALPHA };
}

/** False while any arm has fewer than 5 conversions or fewer than 5 non-conversions (and when there is no arm). */
export function enoughData(variants: Array<{ exposed: number; converted: number }>): boolean {
  return (
    variants.length > 0 &&
    variants.every(
      ({ exposed, converted }) => converted >= ENOUGH_PER_OUTCOME && exposed - converted >= ENOUGH_PER_OUTCOME,
    )
  );
}

/**
 * An experiment's figures from its variants' counts, in their order: the baseline is the first variant without a flow
 * (the control), else the first variant; every other variant is compared with it.
 */
export function experimentFigures(variants: VariantCounts[]): ExperimentFigures {
  const control = variants.findIndex((variant) => variant.flow === null);
  const baselineIndex = control === -1 ? 0 : control;
  const base = variants[baselineIndex];
  const reports = variants.map((variant, index): ExperimentVariantReport => {
    const { id, flow, weight, exposed, converted } = variant;
    const isBaseline = index === baselineIndex;
    const rate = exposed > 0 ? converted / exposed : null;
    const compared = !isBaseline && rate !== null && base.exposed > 0;
    return {
      id,
      flow,
      weight,
      baseline: isBaseline,
      exposed,
      converted,
      rate,
      interval: wilson(converted, exposed),
      difference: compared ? rate - base.converted / base.exposed : null,
      differenceInterval: compared ? newcombe(converted, exposed, base.converted, base.exposed) : null,
      pValue: compared ? pooledZTest(converted, exposed, base.converted, base.exposed) : null,
      chanceToBeatBaseline: isBaseline ? null : chanceToBeat(converted, exposed, base.converted, base.exposed),
    };
  });
  return {
    baseline: base?.id ?? '',
    variants: reports,
    sampleRatio: sampleRatioTest(
      variants.map((variant) => variant.exposed),
      variants.map((variant) => variant.weight),
    ),
    enoughData: enoughData(variants),
    methods: EXPERIMENT_METHODS,
  };
}
