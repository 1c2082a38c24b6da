// The embedded store's queue: one job at a time in arrival order, the event loop turning between jobs, and an honest wait.
import { describe, expect, it } from 'vitest';
import { TURN_BUDGET_MS, TurnQueue } from '../../server/storage/turn-queue.js';

/** Synchronous work, as PGlite's is: the loop cannot turn while it runs. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('TurnQueue', () => {
  it('runs jobs one at a time, in the order they came', async () => {
    const queue = new TurnQueue();
    const log: string[] = [];
    let running = 0;
    const job = (name: string) => async () => {
      running++;
      expect(running).toBe(1);
      log.push(`start ${name}`);
      await Promise.resolve();
      spin(1);
      log.push(`end ${name}`);
      running--;
      return name;
    };
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((name) => queue.run(job(name))));
    expect(results).toEqual(['a', 'b', 'c', 'd']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c', 'start d', 'end d']);
  });

  it('never starts a job in the turn that queued it, so every request read in one turn is queued before any runs', async () => {
    const queue = new TurnQueue();
    const log: string[] = [];
    const jobs = [1, 2, 3].map((n) => queue.run(async () => log.push(`job ${n}`)));
    expect(log).toEqual([]);
    expect(queue.length).toBe(3);
    await Promise.all(jobs);
    expect(log).toEqual(['job 1', 'job 2', 'job 3']);
  });

  it('lets the event loop turn between jobs that fill a turn, so I/O and timers are served while work queues', async () => {
    const queue = new TurnQueue();
    const log: string[] = [];
    const jobs = [1, 2, 3].map((n) =>
      queue.run(async () => {
        log.push(`job ${n}`);
        // What arrives while a job runs (a new request, a timer) is served before the next job starts.
        setImmediate(() => log.push(`turn after job ${n}`));
        spin(TURN_BUDGET_MS);
      }),
    );
    await Promise.all(jobs);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['job 1', 'turn after job 1', 'job 2', 'turn after job 2', 'job 3', 'turn after job 3']);
  });

  it('estimates the wait from the jobs queued and how long a job holds the database', async () => {
    const queue = new TurnQueue();
    expect(queue.expectedWaitMs()).toBe(0);
    // Teach it that a job takes about 5 ms (longer on a busy machine: each is timed, for the bound below).
    const took: number[] = [];
    for (let i = 0; i < 40; i++) {
      await queue.run(async () => {
        const started = performance.now();
        spin(5);
        took.push(performance.now() - started);
      });
    }
    expect(queue.expectedWaitMs()).toBe(0);
    let release!: () => void;
    const first = queue.run(() => new Promise<void>((resolve) => (release = resolve)));
    // The first job starts in the next turn and holds the database until released.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const queued = Array.from({ length: 10 }, () => queue.run(async () => spin(5)));
    expect(queue.length).toBe(10);
    // Ten waiting and one running, about 5 ms each.
    expect(queue.expectedWaitMs()).toBeGreaterThan(11 * 4);
    // Of the order of what the jobs took: a busy machine stretches the spins, and the estimate with them.
    expect(queue.expectedWaitMs()).toBeLessThan(11 * 1.5 * Math.max(...took));
    // Requests admitted whose work is not queued yet count too.
    expect(queue.expectedWaitMs(30)).toBeGreaterThan(41 * 4);
    release();
    await Promise.all([first, ...queued]);
    expect(queue.length).toBe(0);
    expect(queue.expectedWaitMs()).toBe(0);
  });

  it('runs short jobs several to a turn', async () => {
    const queue = new TurnQueue();
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    await Promise.all(Array.from({ length: 100 }, () => queue.run(async () => spin(0.01))));
    counting = false;
    expect(turns).toBeLessThan(20);
  });

  it('goes on after a job that fails', async () => {
    const queue = new TurnQueue();
    const failed = queue.run(async () => {
      throw new Error('constraint violated');
    });
    const next = queue.run(async () => 'next');
    await expect(failed).rejects.toThrow('constraint violated');
    await expect(next).resolves.toBe('next');
  });
});
