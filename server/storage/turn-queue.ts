// The embedded store's queue: database work one job at a time, each in a turn of the event loop of its own, with the wait it implies.

/** Queued jobs run back to back for up to this long in one turn; then the loop turns again. */
export const TURN_BUDGET_MS = 4;

/**
 * PGlite runs a query synchronously and resolves its promise at once, so a request's database work runs from
 * start to end inside the I/O callback that read the request. Left at that, one turn of the event loop serves
 * every connection that has a request ready, one after another; Node accepts one new connection per turn,
 * so under load a new visitor waits for whole rounds of everyone else's work, for seconds, and there is never
 * a queue to look at and shed from. Here the callback only queues its job, and the jobs run one per turn (with
 * `setImmediate`, after the loop has polled for I/O): a turn stays as short as one job, new connections are
 * accepted and new requests read between jobs, and the queue's length says how long a new request would wait.
 * Short jobs (a read by primary key) run several to a turn, up to `TURN_BUDGET_MS`, so the turns cost little.
 */
export class TurnQueue {
  readonly #waiting: Array<() => Promise<void>> = [];
  /** When each waiting job was queued (performance.now()), in the same order. */
  readonly #queuedAt: number[] = [];
  /** Jobs are running, or scheduled to run in the next turn. */
  #scheduled = false;
  #running = false;
  /** How long a job holds the database, on average (a moving average, in ms). */
  #holdMs = 1;
  /**
   * While jobs are queued, how long from one job's start to the next's (a moving average, in ms): the job
   * and whatever else the loop did before the next turn (reading requests, answering, shedding).
   */
  #cycleMs = 1;
  #lastStart = 0;
  #backlogged = false;
  #queued = 0;

  /**
   * How long new work would wait for the jobs already queued and running, and for `jobsAhead` more known to be
   * on their way, in ms (an estimate).
   */
  expectedWaitMs(jobsAhead = 0): number {
    return (this.#waiting.length + (this.#running ? 1 : 0) + jobsAhead) * Math.max(this.#holdMs, this.#cycleMs);
  }

  /** How long the job that has waited longest for its turn has waited so far, in ms (0 when none waits). */
  oldestWaitMs(now = performance.now()): number {
    return this.#queuedAt.length > 0 ? now - this.#queuedAt[0] : 0;
  }

  /** Jobs queued since the start, running and done ones included. */
  get queued(): number {
    return this.#queued;
  }

  /** Jobs waiting for their turn, not counting the one running. */
  get length(): number {
    return this.#waiting.length;
  }

  /** Runs `job` in a later turn than this one, after every job queued before it has finished. */
  run<T>(job: () => Promise<T>): Promise<T> {
    this.#queued++;
    return new Promise<T>((resolve, reject) => {
      this.#queuedAt.push(performance.now());
      this.#waiting.push(async () => {
        this.#running = true;
        const started = performance.now();
        // Measured only while jobs wait for each other; otherwise it returns to the hold time.
        const cycle = this.#backlogged ? started - this.#lastStart : this.#holdMs;
        this.#cycleMs = 0.9 * this.#cycleMs + 0.1 * cycle;
        this.#lastStart = started;
        this.#backlogged = this.#waiting.length > 0;
        // The queue's figures are current before the caller hears the outcome.
        const done = () => {
          this.#running = false;
          this.#holdMs = 0.9 * this.#holdMs + 0.1 * (performance.now() - started);
        };
        try {
          const value = await job();
          done();
          resolve(value);
        } catch (error) {
          done();
          // The job's own failure, whatever it threw, is its caller's to see as it is.
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          reject(error);
        }
      });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#next());
      }
    });
  }

  readonly #next = async (): Promise<void> => {
    const turn = performance.now();
    do {
      this.#queuedAt.shift();
      await this.#waiting.shift()!();
    } while (this.#waiting.length > 0 && performance.now() - turn < TURN_BUDGET_MS);
    if (this.#waiting.length > 0) setImmediate(() => void this.#next());
    else this.#scheduled = false;
  };
}
