// The dashboard's one-line verdict on an experiment, and the formats of its figures: warnings first, then the difference's interval.
import { describe, expect, it } from 'vitest';
import type { ExperimentReport, ExperimentVariantReport } from '../../src/api/wire.js';
import { experimentVerdict } from '../../tools/dashboard/experiment-verdict.js';
import { points, pointsRange, pValue } from '../../tools/dashboard/format.js';

const variant = (id: string, fields: Partial<ExperimentVariantReport> = {}): ExperimentVariantReport => ({
  id,
  flow: id === 'control' ? null : id,
  weight: 50,
  baseline: id === 'control',
  exposed: 100,
  converted: 20,
  rate: 0.2,
  interval: [0.13, 0.29],
  difference: null,
  differenceInterval: null,
  pValue: null,
  chanceToBeatBaseline: null,
  ...fields,
});

const report = (variants: ExperimentVariantReport[], fields: Partial<ExperimentReport> = {}): ExperimentReport => ({
  id: 'e',
  status: 'running',
  goal: { event: 'done', within: '7d' },
  winner: null,
  baseline: 'control',
  variants,
  sampleRatio: { pValue: 0.5, mismatch: false },
  enoughData: true,
  exposed: variants.reduce((sum, v) => sum + v.exposed, 0),
  methods: {
    interval: 'wilson-score-95',
    difference: 'newcombe-hybrid-score-95',
    pValue: 'pooled-two-proportion-z-test-two-sided',
    chanceToBeatBaseline: 'beta-posteriors-exact-evan-miller',
    sampleRatio: 'chi-square-goodness-of-fit',
  },
  ...fields,
});

const compared = (id: string, difference: number, interval: [number, number], chance: number) =>
  variant(id, { difference, differenceInterval: interval, pValue: 0.01, chanceToBeatBaseline: chance });

describe('experimentVerdict', () => {
  it('says no one is exposed before anyone is', () => {
    const empty = [variant('control', { exposed: 0, converted: 0, rate: null, interval: null }), variant('a')];
    expect(experimentVerdict(report(empty, { exposed: 0 }))).toEqual({ tone: 'plain', text: 'No one exposed yet.' });
  });

  it('puts a sample ratio mismatch before too little data, and both before any comparison', () => {
    const variants = [variant('control'), compared('a', 0.1, [0.02, 0.18], 0.99)];
    const mismatch = { pValue: 0.0001, mismatch: true };
    expect(experimentVerdict(report(variants, { sampleRatio: mismatch, enoughData: false })).tone).toBe('bad');
    expect(experimentVerdict(report(variants, { enoughData: false }))).toEqual({
      tone: 'warn',
      text: 'Not enough data yet.',
    });
  });

  it('names the likeliest winner among the variants whose whole interval is above zero', () => {
    const variants = [
      variant('control'),
      compared('a', 0.05, [0.01, 0.09], 0.97),
      compared('b', 0.08, [0.03, 0.13], 0.995),
      compared('c', 0.2, [-0.01, 0.4], 0.999),
    ];
    expect(experimentVerdict(report(variants))).toEqual({
      tone: 'good',
      text: 'b converts better than control: +8 pts (95 % interval +3 to +13 pts).',
    });
  });

  it('says a variant converts worse when its whole interval is below zero, and no clear difference otherwise', () => {
    const worse = [variant('control'), compared('a', -0.06, [-0.1, -0.02], 0.01)];
    expect(experimentVerdict(report(worse)).text).toBe(
      'a converts worse than control: -6 pts (95 % interval -10 to -2 pts).',
    );
    const unclear = [variant('control'), compared('a', 0.01, [-0.03, 0.05], 0.7)];
    expect(experimentVerdict(report(unclear))).toEqual({
      tone: 'plain',
      text: 'No clear difference from control yet: every interval includes 0.',
    });
  });
});

describe("an experiment's figures as text", () => {
  it('writes differences in signed percentage points, and small p-values as a bound', () => {
    expect([points(0.0312), points(-0.0004), points(0), pointsRange([-0.032, 0.131])]).toEqual([
      '+3.1 pts',
      '0 pts',
      '0 pts',
      '-3.2 to +13.1 pts',
    ]);
    expect([pValue(null), pValue(0.0004), pValue(0.0123), pValue(1)]).toEqual(['–', '< 0.001', '0.012', '1.000']);
  });
});
