// What an experiment report says, in one line: nothing yet, a warning that comes first, or how the variants compare with the baseline.
import type { ExperimentReport, ExperimentVariantReport } from '../../src/api/wire.js';
import { points, pointsRange } from './format.js';

export interface Verdict {
  /** good: a variant converts better than the baseline; bad: the figures cannot be trusted; warn: too few users yet. */
  tone: 'good' | 'bad' | 'warn' | 'plain';
  text: string;
}

/** The compared variant with the highest chance to beat the baseline, among those the test holds. */
const likeliest = (variants: ExperimentVariantReport[]) =>
  variants.reduce((best, variant) =>
    (variant.chanceToBeatBaseline ?? 0) > (best.chanceToBeatBaseline ?? 0) ? variant : best,
  );

/**
 * The verdict reads the difference's 95 % interval, not the p-value alone: a variant is better (or worse) when its
 * whole interval is above (or below) zero. The two warnings come first, since they make every other figure moot.
 */
export function experimentVerdict(report: ExperimentReport): Verdict {
  if (report.exposed === 0) return { tone: 'plain', text: 'No one exposed yet.' };
  if (report.sampleRatio.mismatch)
    return { tone: 'bad', text: 'Sample ratio mismatch: the figures cannot be trusted until its cause is found.' };
  if (!report.enoughData) return { tone: 'warn', text: 'Not enough data yet.' };
  const compared = report.variants.filter((variant) => !variant.baseline && variant.differenceInterval);
  const better = compared.filter((variant) => variant.differenceInterval![0] > 0);
  const worse = compared.filter((variant) => variant.differenceInterval![1] < 0);
  const say = (variant: ExperimentVariantReport, how: string) =>
    `${variant.id} converts ${how} than ${report.baseline}: ${points(variant.difference!)} (95 % interval ${pointsRange(variant.differenceInterval!)}).`;
  if (better.length > 0) return { tone: 'good', text: say(likeliest(better), 'better') };
  if (worse.length > 0) return { tone: 'plain', text: say(worse[0], 'worse') };
  return { tone: 'plain', text: `No clear difference from ${report.baseline} yet: every interval includes 0.` };
}
