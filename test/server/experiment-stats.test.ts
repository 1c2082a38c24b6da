// The experiment report's statistics against reference values worked out here, independently, and published examples.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chanceToBeat,
  enoughData,
  experimentFigures,
  newcombe,
  pooledZTest,
  sampleRatioTest,
  wilson,
  type VariantCounts,
} from '../../server/analytics/experiment-stats.js';

const Z = 1.959963984540054;
/** Six decimal places: |a − b| < 5e-7. */
const PLACES = 6;

// ---- Reference implementations, written out from the textbook formulas and sharing no code with the module. ----

/** Wilson's interval in its other textbook form: (2c + z² ± z·√(z² + 4c(n − c)/n)) / (2(n + z²)). */
function wilsonReference(c: number, n: number): [number, number] {
  const root = Z * Math.sqrt(Z * Z + (4 * c * (n - c)) / n);
  return [(2 * c + Z * Z - root) / (2 * (n + Z * Z)), (2 * c + Z * Z + root) / (2 * (n + Z * Z))];
}

/** Newcombe's method 10: d − √((p1 − l1)² + (u0 − p0)²) and d + √((u1 − p1)² + (p0 − l0)²). */
function newcombeReference(c1: number, n1: number, c0: number, n0: number): [number, number] {
  const [l1, u1] = wilsonReference(c1, n1);
  const [l0, u0] = wilsonReference(c0, n0);
  const p1 = c1 / n1;
  const p0 = c0 / n0;
  return [p1 - p0 - Math.sqrt((p1 - l1) ** 2 + (u0 - p0) ** 2), p1 - p0 + Math.sqrt((u1 - p1) ** 2 + (p0 - l0) ** 2)];
}

/**
 * erfc(x) for x ≥ 0: below 3 by the series erf(x) = 2/√π · e^(−x²) · Σ 2ⁿ x^(2n+1) / (1·3·…·(2n+1)), whose terms are
 * all positive; from 3 by the continued fraction e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))).
 */
function erfcReference(x: number): number {
  if (x < 3) {
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n++) {
      term *= (2 * x * x) / (2 * n + 1);
      sum += term;
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x) * sum;
  }
  let fraction = x;
  for (let k = 200; k >= 1; k--) fraction = x + k / 2 / fraction;
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / fraction;
}

/** The pooled z-test's p-value by Pearson's chi-square of the 2 × 2 table (equal to z²), df = 1: erfc(√(X²/2)). */
function zTestReference(c1: number, n1: number, c0: number, n0: number): number {
  const pooled = (c1 + c0) / (n1 + n0);
  const cells = [
    [c1, n1 * pooled],
    [n1 - c1, n1 * (1 - pooled)],
    [c0, n0 * pooled],
    [n0 - c0, n0 * (1 - pooled)],
  ];
  const statistic = cells.reduce((sum, [observed, expected]) => sum + (observed - expected) ** 2 / expected, 0);
  return erfcReference(Math.sqrt(statistic / 2));
}

/** The chi-square upper tail in closed form for df = 1, 2 and 3. */
function chiSquareTail(statistic: number, degrees: 1 | 2 | 3): number {
  if (degrees === 2) return Math.exp(-statistic / 2);
  const one = erfcReference(Math.sqrt(statistic / 2));
  return degrees === 1 ? one : one + Math.sqrt((2 * statistic) / Math.PI) * Math.exp(-statistic / 2);
}

/**
 * P(p1 > p0) for p ~ Beta(1 + c, 1 + n − c) by numerical integration: ∫ f1(x) F0(x) dx on a fine grid over where both
 * densities have their mass, each density normalised on the grid and F0 accumulated by the trapezoid rule.
 */
function chanceByIntegration(c1: number, n1: number, c0: number, n0: number): number {
  const arms = [
    [1 + c1, 1 + n1 - c1],
    [1 + c0, 1 + n0 - c0],
  ].map(([a, b]) => {
    const mean = a / (a + b);
    const sd = Math.sqrt((a * b) / ((a + b) ** 2 * (a + b + 1)));
    return { a, b, from: mean - 15 * sd, to: mean + 15 * sd };
  });
  const from = Math.max(0, Math.min(arms[0].from, arms[1].from));
  const to = Math.min(1, Math.max(arms[0].to, arms[1].to));
  const steps = 200_000;
  const h = (to - from) / steps;
  const density = ({ a, b }: { a: number; b: number }) => {
    const logs = new Float64Array(steps + 1);
    for (let j = 0; j <= steps; j++) {
      const x = from + j * h;
      logs[j] = (a > 1 ? (a - 1) * Math.log(x) : 0) + (b > 1 ? (b - 1) * Math.log1p(-x) : 0);
    }
    const top = logs.reduce((max, value) => Math.max(max, value), Number.NEGATIVE_INFINITY);
    const values = logs.map((value) => Math.exp(value - top));
    let area = 0;
    for (let j = 1; j <= steps; j++) area += (h * (values[j - 1] + values[j])) / 2;
    return values.map((value) => value / area);
  };
  const f1 = density(arms[0]);
  const f0 = density(arms[1]);
  let cumulative = 0;
  let previous = 0;
  let chance = 0;
  for (let j = 1; j <= steps; j++) {
    cumulative += (h * (f0[j - 1] + f0[j])) / 2;
    chance += (h * (f1[j - 1] * previous + f1[j] * cumulative)) / 2;
    previous = cumulative;
  }
  return chance;
}

const expectInterval = (actual: [number, number] | null, expected: [number, number], places = PLACES) => {
  expect(actual).not.toBeNull();
  expect(actual![0]).toBeCloseTo(expected[0], places);
  expect(actual![1]).toBeCloseTo(expected[1], places);
};

describe('wilson', () => {
  it('matches the published example 81/263 → [0.2553, 0.3662]', () => {
    expectInterval(wilson(81, 263), [0.2553, 0.3662], 4);
  });

  it.each([
    [81, 263],
    [1, 10],
    [29, 30],
    [500, 1000],
    [2000, 20_000],
    [19_999, 20_000],
  ])('equals the closed form for %i of %i to six places', (c, n) => {
    expectInterval(wilson(c, n), wilsonReference(c, n));
  });

  it('starts at exactly 0 when no one converted and ends at exactly 1 when everyone did', () => {
    expect(wilson(0, 10)).toEqual([0, expect.closeTo(Z ** 2 / (10 + Z ** 2), 12)]);
    expect(wilson(10, 10)).toEqual([expect.closeTo(10 / (10 + Z ** 2), 12), 1]);
  });

  it('is null when no one is exposed or the counts are not counts', () => {
    expect(wilson(0, 0)).toBeNull();
    expect(wilson(3, 2)).toBeNull();
    expect(wilson(-1, 5)).toBeNull();
    expect(wilson(1.5, 5)).toBeNull();
  });
});

describe('newcombe', () => {
  it.each([
    // Newcombe (1998), Statistics in Medicine 17, 873–890, table II, method 10.
    [56, 70, 48, 80, [0.0524, 0.3339]],
    [9, 10, 3, 10, [0.1705, 0.809]],
    [6, 7, 2, 7, [0.0582, 0.8062]],
    [5, 56, 0, 29, [-0.0381, 0.1926]],
    [0, 10, 0, 20, [-0.1611, 0.2775]],
    [0, 10, 0, 10, [-0.2775, 0.2775]],
    [10, 10, 0, 20, [0.6791, 1]],
    [10, 10, 0, 10, [0.6075, 1]],
  ] as const)('matches the published interval for %i/%i − %i/%i', (c1, n1, c0, n0, published) => {
    expectInterval(newcombe(c1, n1, c0, n0), [published[0], published[1]], 4);
  });

  it.each([
    [56, 70, 48, 80],
    [6, 7, 2, 7],
    [5, 56, 0, 29],
    [2100, 20_000, 2000, 20_000],
    [0, 20_000, 20_000, 20_000],
  ])('equals the formula for %i/%i − %i/%i to six places', (c1, n1, c0, n0) => {
    expectInterval(newcombe(c1, n1, c0, n0), newcombeReference(c1, n1, c0, n0));
  });

  it('is null when either arm has no one exposed', () => {
    expect(newcombe(1, 10, 0, 0)).toBeNull();
    expect(newcombe(0, 0, 1, 10)).toBeNull();
  });
});

describe('pooledZTest', () => {
  it('checks its own reference: erfc(1.959963984540054/√2) is 0.05', () => {
    expect(erfcReference(Z / Math.SQRT2)).toBeCloseTo(0.05, 12);
    expect(erfcReference(3 / Math.SQRT2)).toBeCloseTo(0.0026997960632601866, 12);
  });

  it.each([
    [56, 70, 48, 80],
    [9, 10, 3, 10],
    [12, 100, 10, 100],
    [1, 1000, 0, 1000],
    [2100, 20_000, 2000, 20_000],
    [2300, 20_000, 2000, 20_000],
    [10_000, 20_000, 9800, 20_000],
  ])('equals the chi-square of the 2 × 2 table for %i/%i against %i/%i to six places', (c1, n1, c0, n0) => {
    expect(pooledZTest(c1, n1, c0, n0)).toBeCloseTo(zTestReference(c1, n1, c0, n0), PLACES);
  });

  it('is 1 for equal rates', () => {
    expect(pooledZTest(30, 100, 60, 200)).toBeCloseTo(1, 12);
  });

  it('is null when an arm has no one exposed, or when no one or everyone converted in both', () => {
    expect(pooledZTest(1, 10, 0, 0)).toBeNull();
    expect(pooledZTest(0, 10, 0, 20)).toBeNull();
    expect(pooledZTest(10, 10, 20, 20)).toBeNull();
  });

  it('gives a p-value when one arm converted no one and the other everyone', () => {
    expect(pooledZTest(0, 10, 10, 10)).toBeCloseTo(zTestReference(0, 10, 10, 10), PLACES);
  });
});

describe('chanceToBeat', () => {
  it('has the known values of small cases', () => {
    // Two uniforms; Beta(2, 1) against a uniform is E[p1] = 2/3; Beta(k + 1, 1) against a uniform is (k + 1)/(k + 2).
    expect(chanceToBeat(0, 0, 0, 0)).toBeCloseTo(0.5, 12);
    expect(chanceToBeat(1, 1, 0, 0)).toBeCloseTo(2 / 3, 12);
    expect(chanceToBeat(0, 1, 0, 0)).toBeCloseTo(1 / 3, 12);
    expect(chanceToBeat(9, 9, 0, 0)).toBeCloseTo(10 / 11, 12);
    expect(chanceToBeat(0, 0, 9, 9)).toBeCloseTo(1 / 11, 12);
  });

  it('is one half for equal counts', () => {
    expect(chanceToBeat(7, 40, 7, 40)).toBeCloseTo(0.5, 12);
    expect(chanceToBeat(9000, 20_000, 9000, 20_000)).toBeCloseTo(0.5, 9);
  });

  it.each([
    [56, 70, 48, 80],
    [9, 10, 3, 10],
    [3, 10, 9, 10],
    [0, 10, 0, 20],
    [10, 10, 0, 20],
    [0, 50, 1, 50],
    [12, 100, 10, 100],
    [120, 1000, 100, 1000],
    [2100, 20_000, 2000, 20_000],
    [2050, 20_000, 2000, 20_000],
    [10_000, 20_000, 9800, 20_000],
    [19_990, 20_000, 19_985, 20_000],
    [40, 20_000, 25, 18_000],
  ])('equals numerical integration of the Beta densities for %i/%i against %i/%i', (c1, n1, c0, n0) => {
    expect(chanceToBeat(c1, n1, c0, n0)).toBeCloseTo(chanceByIntegration(c1, n1, c0, n0), PLACES);
  });

  it('takes the same value whichever of its four sums it runs', () => {
    // Each count pattern makes a different parameter the smallest.
    for (const [c1, n1, c0, n0] of [
      [3, 400, 200, 400],
      [397, 400, 200, 400],
      [200, 400, 3, 400],
      [200, 400, 397, 400],
    ])
      expect(chanceToBeat(c1, n1, c0, n0)).toBeCloseTo(chanceByIntegration(c1, n1, c0, n0), PLACES);
  });

  it('is NaN for counts that are not counts', () => {
    expect(chanceToBeat(5, 4, 0, 10)).toBeNaN();
  });
});

describe('sampleRatioTest', () => {
  it('finds no mismatch in an exact split', () => {
    expect(sampleRatioTest([500, 250, 250], [50, 25, 25])).toEqual({ pValue: 1, mismatch: false });
  });

  it('equals erfc(√(x/2)) for two arms', () => {
    // x = 2 · 50² / 1050
    const { pValue, mismatch } = sampleRatioTest([1000, 1100], [1, 1]);
    expect(pValue).toBeCloseTo(chiSquareTail((2 * 50 ** 2) / 1050, 1), PLACES);
    expect(mismatch).toBe(false);
  });

  it('equals exp(−x/2) for three arms', () => {
    // Expected 5050, 2525, 2525.
    const statistic = 50 ** 2 / 5050 + 25 ** 2 / 2525 + 75 ** 2 / 2525;
    expect(sampleRatioTest([5000, 2500, 2600], [50, 25, 25]).pValue).toBeCloseTo(chiSquareTail(statistic, 2), PLACES);
  });

  it('equals the closed form for four arms', () => {
    // Expected 300, 300, 200, 200.
    const statistic = 20 ** 2 / 300 + 10 ** 2 / 300 + 10 ** 2 / 200 + 20 ** 2 / 200;
    expect(sampleRatioTest([320, 290, 210, 180], [3, 3, 2, 2]).pValue).toBeCloseTo(chiSquareTail(statistic, 3), PLACES);
  });

  it('reports a mismatch below 0.001', () => {
    // x = 2 · 100² / 1100 ≈ 18.2, p ≈ 2e-5.
    const { pValue, mismatch } = sampleRatioTest([1000, 1200], [50, 50]);
    expect(pValue).toBeCloseTo(chiSquareTail((2 * 100 ** 2) / 1100, 1), 10);
    expect(pValue).toBeLessThan(0.001);
    expect(mismatch).toBe(true);
  });

  it('keeps its precision for large counts', () => {
    const { pValue, mismatch } = sampleRatioTest([20_000, 20_300], [1, 1]);
    expect(pValue).toBeCloseTo(chiSquareTail((2 * 150 ** 2) / 20_150, 1), PLACES);
    expect(mismatch).toBe(false);
  });

  it('has no p-value before anyone is exposed', () => {
    expect(sampleRatioTest([0, 0], [50, 50])).toEqual({ pValue: null, mismatch: false });
  });
});

describe('enoughData', () => {
  it('is false while any arm has fewer than 5 conversions or 5 non-conversions', () => {
    expect(
      enoughData([
        { exposed: 10, converted: 5 },
        { exposed: 10, converted: 5 },
      ]),
    ).toBe(true);
    expect(
      enoughData([
        { exposed: 10, converted: 5 },
        { exposed: 100, converted: 4 },
      ]),
    ).toBe(false);
    expect(
      enoughData([
        { exposed: 100, converted: 96 },
        { exposed: 100, converted: 50 },
      ]),
    ).toBe(false);
    expect(enoughData([{ exposed: 0, converted: 0 }])).toBe(false);
    expect(enoughData([])).toBe(false);
  });
});

describe('experimentFigures', () => {
  const variant = (id: string, flow: string | null, weight: number, exposed: number, converted: number) =>
    ({ id, flow, weight, exposed, converted }) satisfies VariantCounts;

  it('compares every variant with the control, wherever it is listed', () => {
    const figures = experimentFigures([
      variant('short', 'welcome-short', 25, 80, 48),
      variant('control', null, 50, 150, 60),
      variant('long', 'welcome-long', 25, 70, 56),
    ]);
    expect(figures.baseline).toBe('control');
    expect(figures.variants.map((entry) => entry.baseline)).toEqual([false, true, false]);
    const [short, control, long] = figures.variants;
    expect(control).toEqual({
      id: 'control',
      flow: null,
      weight: 50,
      baseline: true,
      exposed: 150,
      converted: 60,
      rate: 0.4,
      interval: [expect.closeTo(wilsonReference(60, 150)[0], 12), expect.closeTo(wilsonReference(60, 150)[1], 12)],
      difference: null,
      differenceInterval: null,
      pValue: null,
      chanceToBeatBaseline: null,
    });
    expect(long.rate).toBe(0.8);
    expect(long.difference).toBeCloseTo(0.4, 12);
    expectInterval(long.differenceInterval, newcombeReference(56, 70, 60, 150));
    expect(long.pValue).toBeCloseTo(zTestReference(56, 70, 60, 150), PLACES);
    expect(long.chanceToBeatBaseline).toBeCloseTo(chanceByIntegration(56, 70, 60, 150), PLACES);
    expect(short.difference).toBeCloseTo(0.2, 12);
    expect(short.chanceToBeatBaseline).toBeCloseTo(chanceByIntegration(48, 80, 60, 150), PLACES);
    // Exposed 80, 150, 70 against 75, 150, 75.
    expect(figures.sampleRatio.pValue).toBeCloseTo(chiSquareTail(25 / 75 + 0 + 25 / 75, 2), PLACES);
    expect(figures.sampleRatio.mismatch).toBe(false);
    expect(figures.enoughData).toBe(true);
    expect(figures.methods).toEqual({
      interval: 'wilson-score-95',
      difference: 'newcombe-hybrid-score-95',
      pValue: 'pooled-two-proportion-z-test-two-sided',
      chanceToBeatBaseline: 'beta-posteriors-exact-evan-miller',
      sampleRatio: 'chi-square-goodness-of-fit',
    });
  });

  it('takes the first variant as the baseline when there is no control', () => {
    const figures = experimentFigures([variant('a', 'flow-a', 1, 100, 10), variant('b', 'flow-b', 1, 100, 20)]);
    expect(figures.baseline).toBe('a');
    expect(figures.variants[0].baseline).toBe(true);
    expect(figures.variants[1].difference).toBeCloseTo(0.1, 12);
  });

  it('leaves the figures of an arm with no one exposed null, and the chance to beat at its prior', () => {
    const figures = experimentFigures([variant('control', null, 50, 0, 0), variant('b', 'flow-b', 50, 0, 0)]);
    expect(figures.variants[1]).toMatchObject({
      rate: null,
      interval: null,
      difference: null,
      differenceInterval: null,
      pValue: null,
      chanceToBeatBaseline: expect.closeTo(0.5, 12),
    });
    expect(figures.sampleRatio).toEqual({ pValue: null, mismatch: false });
    expect(figures.enoughData).toBe(false);

    const oneSided = experimentFigures([variant('control', null, 50, 0, 0), variant('b', 'flow-b', 50, 20, 6)]);
    expect(oneSided.variants[1]).toMatchObject({ rate: 0.3, difference: null, differenceInterval: null, pValue: null });
    expect(oneSided.variants[1].interval).not.toBeNull();
    expect(oneSided.sampleRatio.mismatch).toBe(true);
  });

  it('has no p-value when no one converted in either arm, but a difference and its interval', () => {
    const figures = experimentFigures([variant('control', null, 1, 40, 0), variant('b', 'flow-b', 1, 50, 0)]);
    expect(figures.variants[1]).toMatchObject({ rate: 0, difference: 0, pValue: null });
    expectInterval(figures.variants[1].differenceInterval, newcombeReference(0, 50, 0, 40));
  });

  it('reports an arm where everyone converted', () => {
    const figures = experimentFigures([variant('control', null, 1, 20, 10), variant('b', 'flow-b', 1, 20, 20)]);
    const b = figures.variants[1];
    expect(b.interval?.[1]).toBe(1);
    expectInterval(b.differenceInterval, newcombeReference(20, 20, 10, 20));
    expect(b.pValue).toBeCloseTo(zTestReference(20, 20, 10, 20), PLACES);
    expect(b.chanceToBeatBaseline).toBeCloseTo(chanceByIntegration(20, 20, 10, 20), PLACES);
    expect(figures.enoughData).toBe(false);
  });

  it('handles 20,000 users per arm', () => {
    const figures = experimentFigures([
      variant('control', null, 1, 20_000, 2000),
      variant('b', 'flow-b', 1, 20_000, 2150),
    ]);
    const b = figures.variants[1];
    expectInterval(b.interval, wilsonReference(2150, 20_000));
    expectInterval(b.differenceInterval, newcombeReference(2150, 20_000, 2000, 20_000));
    expect(b.pValue).toBeCloseTo(zTestReference(2150, 20_000, 2000, 20_000), PLACES);
    expect(b.chanceToBeatBaseline).toBeCloseTo(chanceByIntegration(2150, 20_000, 2000, 20_000), PLACES);
    expect(figures.sampleRatio).toEqual({ pValue: 1, mismatch: false });
  });
});

describe('properties', () => {
  const arm = fc
    .integer({ min: 0, max: 3000 })
    .chain((exposed) => fc.record({ exposed: fc.constant(exposed), converted: fc.integer({ min: 0, max: exposed }) }));
  const exposedArm = fc
    .integer({ min: 1, max: 3000 })
    .chain((exposed) => fc.record({ exposed: fc.constant(exposed), converted: fc.integer({ min: 0, max: exposed }) }));

  it('keeps the rate inside its interval, within [0, 1]', () => {
    fc.assert(
      fc.property(exposedArm, ({ exposed, converted }) => {
        const [lower, upper] = wilson(converted, exposed)!;
        const rate = converted / exposed;
        return lower >= 0 && upper <= 1 && lower <= rate && rate <= upper;
      }),
    );
  });

  it('keeps the difference inside its interval, within [−1, 1]', () => {
    fc.assert(
      fc.property(exposedArm, exposedArm, (one, zero) => {
        const [lower, upper] = newcombe(one.converted, one.exposed, zero.converted, zero.exposed)!;
        const difference = one.converted / one.exposed - zero.converted / zero.exposed;
        return lower >= -1 && upper <= 1 && lower <= difference + 1e-12 && difference <= upper + 1e-12;
      }),
    );
  });

  it('gives chances to beat that add up to 1 both ways', () => {
    fc.assert(
      fc.property(arm, arm, (one, zero) => {
        const there = chanceToBeat(one.converted, one.exposed, zero.converted, zero.exposed);
        const back = chanceToBeat(zero.converted, zero.exposed, one.converted, one.exposed);
        return there >= 0 && there <= 1 && Math.abs(there + back - 1) < 1e-9;
      }),
      { numRuns: 200 },
    );
  });

  it('raises the chance to beat with one more conversion', () => {
    fc.assert(
      fc.property(exposedArm, arm, (one, zero) => {
        fc.pre(one.converted < one.exposed);
        const before = chanceToBeat(one.converted, one.exposed, zero.converted, zero.exposed);
        const after = chanceToBeat(one.converted + 1, one.exposed, zero.converted, zero.exposed);
        return after >= before - 1e-12;
      }),
      { numRuns: 200 },
    );
  });

  it('gives the same p-value with the arms swapped, within [0, 1]', () => {
    fc.assert(
      fc.property(exposedArm, exposedArm, (one, zero) => {
        const there = pooledZTest(one.converted, one.exposed, zero.converted, zero.exposed);
        const back = pooledZTest(zero.converted, zero.exposed, one.converted, one.exposed);
        if (there === null) return back === null;
        return back !== null && there >= 0 && there <= 1 && Math.abs(there - back) < 1e-12;
      }),
    );
  });
});
