// State answers are joined in reused buffers: each buffer is lent once at a time and taken back once its response has
// closed, so answers sent at once, compressed or not, with flows targeted out sent hidden or not, never share bytes.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowStatesResponse, TargetedOutMode } from '../../src/api/wire.js';
import { AnswerBuffers } from '../../server/http/answer-buffers.js';
import { readFlowStates } from '../../server/state/read.js';
import { checklistYaml, PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';

describe('answer buffers', () => {
  const part = (byte: number, length: number) => Buffer.alloc(length, byte);

  it('joins the parts, and lends a buffer again only after it was given back', () => {
    const buffers = new AnswerBuffers();
    const first = buffers.join([part(1, 10_000), part(2, 10_000)], 20_000);
    expect(first.equals(Buffer.concat([part(1, 10_000), part(2, 10_000)]))).toBe(true);
    expect(buffers.owns(first)).toBe(true);
    const second = buffers.join([part(3, 20_000)], 20_000);
    expect(second.buffer).not.toBe(first.buffer);
    buffers.giveBack(first);
    expect(buffers.owns(first)).toBe(false);
    // Given back twice, it is still kept once: the next two answers get two different buffers.
    buffers.giveBack(first);
    expect(buffers.freeBytes).toBe(32 * 1024);
    const third = buffers.join([part(4, 30_000)], 30_000);
    const fourth = buffers.join([part(5, 30_000)], 30_000);
    expect(third.buffer).toBe(first.buffer);
    expect(fourth.buffer).not.toBe(first.buffer);
    expect(third.equals(part(4, 30_000))).toBe(true);
  });

  it('takes a buffer back only when its response has closed', () => {
    const buffers = new AnswerBuffers();
    const raw = new EventEmitter();
    const answer = buffers.join([part(7, 40_000)], 40_000);
    let sent: unknown;
    buffers.onSend({}, { raw }, answer, (_error, payload) => (sent = payload));
    expect(sent).toBe(answer);
    // Written, perhaps not yet taken by the socket: still lent.
    expect(buffers.owns(answer)).toBe(true);
    expect(buffers.join([part(8, 40_000)], 40_000).buffer).not.toBe(answer.buffer);
    raw.emit('close');
    expect(buffers.owns(answer)).toBe(false);
    expect(buffers.join([part(9, 40_000)], 40_000).buffer).toBe(answer.buffer);
  });

  it('leaves small and huge answers to the allocator', () => {
    const buffers = new AnswerBuffers();
    expect(buffers.owns(buffers.join([part(1, 100)], 100))).toBe(false);
    expect(buffers.owns(buffers.join([part(1, 5_000_000)], 5_000_000))).toBe(false);
  });
});

describe('answers sent at once', () => {
  let service: TestService;
  const users = Array.from({ length: 12 }, (_, i) => `user-${i}-${randomUUID()}`);
  beforeAll(async () => {
    // Enough flows that each answer is past the smallest pooled size, and users whose answers differ: every third flow
    // no user writes to is for VIPs only, which half the users are, so the other half's answers differ by mode.
    const vipOnly = (i: number) => i >= users.length && i % 3 === 2;
    const flows = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [
        `flow-${i}.yaml`,
        checklistYaml(`flow-${i}`, vipOnly(i) ? 'has(user.properties.vip)' : '', 6),
      ]),
    );
    service = await startTestService(flows);
    for (const [i, userId] of users.entries()) {
      if (i % 2 === 0) await service.call('POST', '/v1/public/users', { body: { userId, properties: { vip: true } } });
      const answer = await service.call('POST', '/v1/public/flowStates', {
        body: { userId, flowSlug: `flow-${i}`, stepId: 'one', actionType: 'COMPLETED_STEP' },
      });
      expect(answer.status).toBe(201);
    }
  });
  afterAll(() => service?.close());

  it('never share bytes, compressed or not, in either mode', async () => {
    const db = { query: service.db.query.bind(service.db) };
    const expected = new Map<string, FlowStatesResponse>();
    for (const userId of users) {
      for (const targetedOut of ['hidden', 'omit'] as const)
        expected.set(
          `${userId} ${targetedOut}`,
          await readFlowStates(db, service.catalog, userId, undefined, { targetedOut }),
        );
    }
    expect(JSON.stringify(expected.get(`${users[0]} omit`)).length).toBeGreaterThan(16 * 1024);
    expect(expected.get(`${users[1]} hidden`)!.eligibleFlows.length).toBeGreaterThan(
      expected.get(`${users[1]} omit`)!.eligibleFlows.length,
    );
    const reads = Array.from({ length: 240 }, (_, n) => users[n % users.length]);
    const answers = await Promise.all(
      reads.map(async (userId, n) => {
        const gzip = n % 3 === 0;
        // Hidden by the SDK's header, or omitted; every fifth read says so in the query instead.
        const targetedOut: TargetedOutMode = Math.floor(n / users.length) % 2 ? 'hidden' : 'omit';
        const query = n % 5 === 0 ? `&targetedOut=${targetedOut}` : '';
        const response = await fetch(`${service.url}/v1/public/flowStates?userId=${userId}${query}`, {
          headers: {
            authorization: `Bearer ${PUBLIC_KEY}`,
            'accept-encoding': gzip ? 'gzip' : 'identity',
            ...(targetedOut === 'hidden' && !query ? { 'x-frigade-sdk-version': '0.9.12' } : {}),
          },
        });
        // fetch undoes the gzip itself; the header says whether the answer went through the compressor.
        return {
          key: `${userId} ${targetedOut}`,
          gzip: response.headers.get('content-encoding') === 'gzip',
          body: await response.json(),
        };
      }),
    );
    expect(answers.some((answer) => answer.gzip)).toBe(true);
    for (const answer of answers)
      expect(answer.body, answer.key).toEqual(JSON.parse(JSON.stringify(expected.get(answer.key))));
  });
});
