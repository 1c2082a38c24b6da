// The embedded store's queue, measured: once the work that has waited longest for its turn has waited half of --max-wait-ms,
// new requests get a fast 503, whatever the estimate of the work ahead says. (PostgreSQL sheds by its pool's estimate.)
import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHED_HOLD_MS } from '../../server/http/backpressure.js';
import { bannerFlowYaml, startTestService, type TestService } from '../support/service.js';
import { send, visitor } from '../support/visitors.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService(
    { 'banner.yaml': bannerFlowYaml('welcome') },
    { database: 'memory', limits: { eventLoopDelayMs: 0, maxWaitMs: 1000 } },
  );
});
afterAll(() => service?.close());

/**
 * Keeps the embedded store's turn with a transaction, and one more piece of work waiting behind it, while the loop stays
 * free; `release` lets both finish, and `done` settles once they have.
 */
function holdTurn(): { release: () => void; done: Promise<unknown> } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const holding = service.db.transaction(() => released);
  const waiting = service.db.query('SELECT 1');
  return { release, done: Promise.all([holding, waiting]) };
}

describe("the embedded store's queue", () => {
  it('sheds a new request once the work that has waited longest for its turn has waited half of --max-wait-ms, and serves again once it moves', async () => {
    const turn = holdTurn();
    const read = (n: number) =>
      send(service, 'POST', '/v1/public/flowStates', visitor(500 + n), { userId: `queued-${n}` });
    // At once: the queue is young, so it is admitted, and waits its turn. (It has half of --max-wait-ms to arrive: a
    // loaded test machine can take over 100 ms to hand a request to the route.)
    const early = read(0);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // The oldest waiting piece of work has now waited 1,100 ms, past half of 1,000: shed at once, whatever the estimate says.
    const late = await Promise.race([read(1), new Promise<undefined>((resolve) => setTimeout(resolve, 1000))]).finally(
      turn.release,
    );
    await turn.done;
    expect(late, 'answered at once, not after the queue moved').toBeDefined();
    expect(late!.status).toBe(503);
    expect(late!.headers['retry-after']).toBe('1');
    expect(JSON.parse(late!.body)).toMatchObject({
      status: 503,
      detail: expect.stringMatching(/has waited \d+ ms for the database/),
    });
    expect((await early).status).toBe(200);
    expect((await read(2)).status).toBe(200);
  });

  // Timed on a shared machine: a stall of the test's own process can delay one answer past the hold.
  it(
    "sends a connection's first 503 at once, and holds each one it asks for again before Retry-After for SHED_HOLD_MS, so a client that sends again at once cannot make shedding a busy loop",
    { retry: 2 },
    async () => {
      const turn = holdTurn();
      await new Promise((resolve) => setTimeout(resolve, 600));
      // One kept-alive connection that ignores Retry-After, as a load tester or a retry loop does, for one second.
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const timings: number[] = [];
      const ask = async () => {
        const started = performance.now();
        const answer = await send(
          service,
          'POST',
          '/v1/public/flowStates',
          visitor(700),
          { userId: 'retry-loop' },
          {},
          agent,
        );
        expect(answer.status).toBe(503);
        expect(answer.headers['retry-after']).toBe('1');
        return performance.now() - started;
      };
      let afterWaiting: number;
      try {
        const until = performance.now() + 1000;
        while (performance.now() < until) timings.push(await ask());
        // Waited as told, the client's next 503 is sent at once again.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        afterWaiting = await ask();
      } finally {
        agent.destroy();
        turn.release();
        await turn.done;
      }
      const [first, ...again] = timings;
      expect(first, 'the first 503 is not held').toBeLessThan(SHED_HOLD_MS - 1);
      expect(afterWaiting, 'nor the first after waiting Retry-After').toBeLessThan(SHED_HOLD_MS - 1);
      // Answered at once, the loop would have made hundreds of requests; held, it makes at most one per SHED_HOLD_MS.
      expect(again.length).toBeGreaterThan(5);
      expect(again.length).toBeLessThanOrEqual(1000 / SHED_HOLD_MS);
      expect(Math.min(...again)).toBeGreaterThanOrEqual(SHED_HOLD_MS - 1);
      // Still a fast answer.
      expect(again.sort((a, b) => a - b)[Math.floor(again.length / 2)]).toBeLessThan(50);
    },
  );

  it('answers a shed request as every other answer is seen by a page: CORS lets it read Retry-After, and the body is a problem', async () => {
    const turn = holdTurn();
    await new Promise((resolve) => setTimeout(resolve, 600));
    let shed: Awaited<ReturnType<typeof send>>;
    let health: Awaited<ReturnType<typeof send>>;
    let preflight: Awaited<ReturnType<typeof send>>;
    try {
      shed = await send(
        service,
        'POST',
        '/v1/public/flowStates',
        visitor(800),
        { userId: 'shed-cors' },
        {
          Origin: 'https://app.example',
        },
      );
      // Health checks and preflights are never shed: an orchestrator must not take a busy instance for a dead one.
      health = await send(service, 'GET', '/healthz', visitor(801));
      preflight = await send(service, 'OPTIONS', '/v1/public/flowStates', visitor(802), undefined, {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      });
    } finally {
      turn.release();
      await turn.done;
    }
    expect(shed.status).toBe(503);
    expect(shed.headers['access-control-allow-origin']).toBe('*');
    expect(String(shed.headers['access-control-expose-headers']).split(', ')).toContain('Retry-After');
    expect(shed.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(Number(shed.headers['content-length'])).toBe(Buffer.byteLength(shed.body));
    expect(JSON.parse(shed.body)).toEqual({
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      detail: expect.stringMatching(/^The service is busy \(.+\); retry in 1 s\.$/),
    });
    expect(health.status).toBe(200);
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
  });

  // Timed on a shared machine: the release must come while the request is held, not before it arrives.
  it(
    'serves a held request whose queue has room by the end of its hold, instead of shedding it',
    { retry: 2 },
    async () => {
      const turn = holdTurn();
      await new Promise((resolve) => setTimeout(resolve, 600));
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const ask = () =>
          send(service, 'POST', '/v1/public/flowStates', visitor(900), { userId: 'held-then-served' }, {}, agent);
        // The connection's first 503 is sent at once; its next request, sent at once, is held.
        expect((await ask()).status).toBe(503);
        const started = performance.now();
        const next = ask();
        // The queue empties while the request is held (it arrives within a few ms on an idle loop).
        setTimeout(turn.release, 4);
        const answer = await next;
        const ms = performance.now() - started;
        expect(answer.status, answer.body).toBe(200);
        expect(ms, 'it was held, then served').toBeGreaterThanOrEqual(SHED_HOLD_MS - 1);
      } finally {
        agent.destroy();
        turn.release();
        await turn.done;
      }
    },
  );
});
