// The API client's classification of failures, and its checks of the answers it gets, against a fake fetch.
import { describe, expect, it } from 'vitest';
import { ApiError, createApiClient, isRetryable, retryAfterMs } from '../../src/api/client.js';

type Answer = { status?: number; body?: string; headers?: Record<string, string> } | Error;

/** A client whose fetch gives `answer` to every request. */
const clientAnswering = (answer: Answer) =>
  createApiClient({
    apiUrl: 'https://onboarding.test',
    publicKey: 'pk_test',
    fetch: async () => {
      if (answer instanceof Error) throw answer;
      return new Response(answer.body ?? '', { status: answer.status ?? 200, headers: answer.headers });
    },
  });

/** The ApiError a call rejects with (or the other error, when it is not one). */
async function failureOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('the call resolved');
}

const write = [
  {
    path: 'flowStates' as const,
    idempotencyKey: 'k1',
    body: { userId: 'u', flowSlug: 'f', stepId: 's', actionType: 'COMPLETED_STEP' as const },
  },
];
const states = {
  eligibleFlows: [
    {
      flowSlug: 'f',
      flowName: 'F',
      flowType: 'CHECKLIST',
      version: 1,
      data: {
        steps: [
          {
            id: 's',
            $state: {
              started: false,
              completed: false,
              skipped: false,
              visible: true,
              blocked: false,
              flowResponses: [],
            },
          },
        ],
      },
      $state: {
        currentStepId: 's',
        currentStepIndex: 0,
        started: false,
        completed: false,
        skipped: false,
        visible: true,
        flowResponses: [],
      },
    },
  ],
  ineligibleFlows: ['other'],
};

describe('API client failures', () => {
  it('classifies a fetch that rejects or is aborted as a network failure, worth another try', async () => {
    for (const cause of [
      new TypeError('Failed to fetch'),
      new DOMException('The operation timed out.', 'TimeoutError'),
    ]) {
      const error = await failureOf(clientAnswering(cause).sendBatch(write));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 0, kind: 'network' });
      expect(isRetryable(error)).toBe(true);
    }
  });

  it('classifies 408, 429 and 5xx as retryable and other 4xx as refusals, whatever their body', async () => {
    for (const [status, kind] of [
      [408, 'retry'],
      [429, 'retry'],
      [503, 'retry'],
      [400, 'refused'],
      [409, 'refused'],
    ] as const) {
      for (const body of ['{"detail":"no"}', 'null', '<html>', '']) {
        const error = await failureOf(clientAnswering({ status, body }).sendBatch(write));
        expect(error).toMatchObject({ status, kind });
      }
    }
  });

  it('classifies a 2xx that is not JSON, or not of the expected shape, as a bad answer that is not retried', async () => {
    const notJson = await failureOf(clientAnswering({ status: 201, body: '<html>hello</html>' }).sendBatch(write));
    expect(notJson).toMatchObject({ status: 201, kind: 'bad-answer' });
    expect(isRetryable(notJson)).toBe(false);
    for (const body of [
      '[]',
      '"text"',
      '{"eligibleFlows":[{"flowSlug":"f"}],"ineligibleFlows":[]}',
      '{"eligibleFlows":[],"ineligibleFlows":[1]}',
    ]) {
      expect(await failureOf(clientAnswering({ body }).readFlowStates({ userId: 'u' }))).toMatchObject({
        kind: 'bad-answer',
      });
    }
    for (const body of ['{"results":"no"}', '{"results":[{}]}', '{"results":[],"flowStates":{"eligibleFlows":"no"}}']) {
      expect(await failureOf(clientAnswering({ body }).sendBatch(write))).toMatchObject({ kind: 'bad-answer' });
    }
  });

  it('takes an empty body or an empty object as no answer, and passes a well-shaped one through', async () => {
    expect(await clientAnswering({ body: '' }).sendBatch(write)).toEqual({ results: [] });
    expect(await clientAnswering({ body: '{}' }).sendBatch(write)).toEqual({ results: [] });
    expect(await clientAnswering({ body: '{}' }).readFlowStates({ userId: 'u' })).toEqual({
      eligibleFlows: [],
      ineligibleFlows: [],
    });
    expect(await clientAnswering({ body: JSON.stringify(states) }).readFlowStates({ userId: 'u' })).toEqual(states);
    const batch = {
      results: [{ status: 201 }, { status: 409, problem: { status: 409, detail: 'blocked' } }],
      flowStates: states,
    };
    expect(await clientAnswering({ body: JSON.stringify(batch) }).sendBatch(write)).toEqual(batch);
  });

  it('lets a body that cannot be serialised fail as it is, not as the network', async () => {
    const error = await failureOf(
      clientAnswering({ status: 201 }).sendBatch([
        { path: 'users', idempotencyKey: 'k', body: { userId: 'u', properties: { n: BigInt(1) } } },
      ]),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(isRetryable(error)).toBe(false);
  });

  it('gives every request a timeout signal unless the caller passes one', async () => {
    const signals: Array<AbortSignal | null | undefined> = [];
    const client = createApiClient({
      apiUrl: 'https://onboarding.test',
      publicKey: 'pk_test',
      fetch: async (_input, init) => {
        signals.push(init?.signal);
        return new Response('', { status: 200 });
      },
    });
    const own = new AbortController().signal;
    await client.readFlowStates({ userId: 'u' });
    await client.sendBatch(write);
    await client.sendBatch(write, undefined, { signal: own });
    expect(signals.slice(0, 2).every((signal) => signal instanceof AbortSignal && !signal.aborted)).toBe(true);
    expect(signals[2]).toBe(own);
  });

  it('sends only CORS simple requests: a text/plain POST with the public key in the query and no header of its own', async () => {
    const seen: Array<{ url: string; init: RequestInit }> = [];
    const client = createApiClient({
      apiUrl: 'https://onboarding.test/',
      publicKey: 'pk_test',
      fetch: async (input, init) => {
        seen.push({ url: input instanceof Request ? input.url : input.toString(), init: init! });
        return new Response('{}', { status: 200 });
      },
    });
    await client.readFlowStates({ userId: 'u', userHash: 'abc', knownVersions: { f: 1 } });
    await client.sendBatch(write);
    await client.sendBatch(write, { f: 1 });
    expect(seen.map((request) => request.url)).toEqual([
      'https://onboarding.test/v1/public/flowStates?publicKey=pk_test',
      'https://onboarding.test/v1/public/batch?content=none&publicKey=pk_test',
      'https://onboarding.test/v1/public/batch?publicKey=pk_test',
    ]);
    for (const { init } of seen) {
      expect(init.method).toBe('POST');
      expect(init.headers).toBeUndefined();
      expect(typeof init.body).toBe('string');
      expect(init.credentials).toBe('omit');
    }
    expect(JSON.parse(seen[0].init.body as string)).toEqual({ userId: 'u', userHash: 'abc', knownVersions: { f: 1 } });
    expect(JSON.parse(seen[1].init.body as string)).toEqual({ writes: write });
    expect(JSON.parse(seen[2].init.body as string)).toEqual({ writes: write, knownVersions: { f: 1 } });
  });

  it('reads Retry-After as delta-seconds or an HTTP date, at most ten minutes', async () => {
    const now = Date.parse('2026-03-01T09:00:00.000Z');
    expect(retryAfterMs('1', now)).toBe(1000);
    expect(retryAfterMs(' 120 ', now)).toBe(120_000);
    expect(retryAfterMs('Sun, 01 Mar 2026 09:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('4000000', now)).toBe(600_000);
    expect(retryAfterMs('Fri, 01 Jan 2100 00:00:00 GMT', now)).toBe(600_000);
    for (const header of [null, '', '0', '-5', '1.5', 'soon', 'Sat, 28 Feb 2026 09:00:00 GMT'])
      expect(retryAfterMs(header, now)).toBeUndefined();
    const error = await failureOf(
      clientAnswering({ status: 503, headers: { 'Retry-After': '4000000' } }).sendBatch(write),
    );
    expect(error).toMatchObject({ kind: 'retry', retryAfterMs: 600_000 });
  });
});
