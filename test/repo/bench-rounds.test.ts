// The side-by-side benches' rounds: which side runs when, and the paired shares they report.
import { describe, expect, it } from 'vitest';

interface Run {
  okPerSecond: number;
}
type Rounds = (
  rounds: number,
  turn: number,
  sides: Array<() => Promise<Run>>,
) => Promise<{ runs: Run[][]; shares: number[] }>;
const support = new URL('../../bench/support.mjs', import.meta.url).href;
const { inRounds, sharesOf } = (await import(support)) as {
  inRounds: Rounds;
  sharesOf: (runs: Run[][], of: number, to: number) => number[];
};

/** Sides that note when they ran and answer `rates[side][round]`. */
function sides(rates: number[][]) {
  const order: number[] = [];
  const done = rates.map(() => 0);
  const make = rates.map((perRound, side) => async () => {
    order.push(side);
    return { okPerSecond: perRound[done[side]++] };
  });
  return { order, make };
}

describe('inRounds', () => {
  it('alternates two sides from the turn given, as the benches always have', async () => {
    const { order, make } = sides([
      [100, 200, 300],
      [50, 100, 600],
    ]);
    const { runs, shares } = await inRounds(3, 1, make);
    expect(order).toEqual([1, 0, 0, 1, 1, 0]);
    expect(runs.map((side) => side.map((run) => run.okPerSecond))).toEqual([
      [100, 200, 300],
      [50, 100, 600],
    ]);
    expect(shares).toEqual([0.5, 0.5, 2]);
  });

  it('takes three sides round, each first once in three rounds, and pairs any two by round', async () => {
    const { order, make } = sides([
      [100, 100, 100],
      [80, 90, 70],
      [80, 100, 100],
    ]);
    const { runs, shares } = await inRounds(3, 0, make);
    expect(order).toEqual([0, 1, 2, 1, 2, 0, 2, 0, 1]);
    expect(shares).toEqual([0.8, 0.9, 0.7]);
    expect(sharesOf(runs, 1, 2)).toEqual([1, 0.9, 0.7]);
  });
});
