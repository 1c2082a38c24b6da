// POST /v1/public/batch over loopback HTTP: writes in order, each exactly once under its own key, refusals alone, one state read.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userHashFor } from '../../server/http/identity.js';
import type { BatchResponse, BatchWrite } from '../../src/api/wire.js';
import { checklistYaml, PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';

const SECRET = 'a-secret-of-16+chars-for-batches';
let service: TestService;
let verifying: TestService;

const gated = `
slug: gated
name: Gated
type: CHECKLIST
data:
  steps:
    - id: open
      title: Open
    - id: locked
      title: Locked
      startCriteria: "user.properties.unlocked == true"
`;

beforeAll(async () => {
  const flows = { 'a-setup.yaml': checklistYaml('setup'), 'b-gated.yaml': gated };
  service = await startTestService(flows, { limits: { dataBytes: 64 } });
  verifying = await startTestService(flows, { identity: { secrets: [SECRET], required: true } });
});
afterAll(async () => {
  await service?.close();
  await verifying?.close();
});

const newUser = () => `batch-${randomUUID()}`;
const key = () => randomUUID();
const batch = (
  writes: BatchWrite[],
  extra: Record<string, unknown> = {},
  path = '/v1/public/batch',
  target = service,
) => target.call('POST', path, { body: { writes, ...extra } });
const transition = (
  userId: string,
  stepId: string,
  actionType = 'COMPLETED_STEP',
  flowSlug = 'setup',
  userHash?: string,
): BatchWrite => ({
  path: 'flowStates',
  idempotencyKey: key(),
  body: { userId, flowSlug, stepId, actionType: actionType as never, ...(userHash ? { userHash } : {}) },
});

describe('POST /v1/public/batch', () => {
  it('applies the writes in order, answers each one’s status, and reads the last user’s state once', async () => {
    const userId = newUser();
    const writes: BatchWrite[] = [
      {
        path: 'users',
        idempotencyKey: key(),
        body: { userId, properties: { plan: 'pro' }, events: [{ event: 'opened' }] },
      },
      transition(userId, 'one', 'STARTED_FLOW'),
      transition(userId, 'one'),
      transition(userId, 'two'),
      { path: 'groups', idempotencyKey: key(), body: { groupId: `team-${userId}`, userId } },
    ];
    const response = await batch(writes, { knownVersions: { setup: 1 } });
    expect(response.status).toBe(200);
    const body = response.body as BatchResponse;
    expect(body.results).toEqual([
      { status: 201, guestLinked: false },
      { status: 201 },
      { status: 201 },
      { status: 201 },
      { status: 201 },
    ]);
    const setup = body.flowStates!.eligibleFlows.find((flow) => flow.flowSlug === 'setup')!;
    expect(setup.data.steps.map((step) => step.$state.completed)).toEqual([true, true, false]);
    // The version the client holds comes without content; the other flow with it.
    expect(setup.data.steps[0]).not.toHaveProperty('title');
    expect(body.flowStates!.eligibleFlows.find((flow) => flow.flowSlug === 'gated')!.data.steps[0].title).toBe('Open');
    const responses = await service.db.query<{ action_type: string; step_id: string }>(
      'SELECT action_type, step_id FROM flow_responses WHERE user_id = $1 ORDER BY id',
      [userId],
    );
    expect(responses.map((row) => `${row.action_type}:${row.step_id}`)).toEqual([
      'STARTED_FLOW:one',
      'COMPLETED_STEP:one',
      'COMPLETED_STEP:two',
    ]);
    expect(await service.db.query('SELECT group_id FROM group_members WHERE user_id = $1', [userId])).toEqual([
      { group_id: `team-${userId}` },
    ]);
  });

  it('leaves out every flow’s content with ?content=none', async () => {
    const userId = newUser();
    const response = await service.call('POST', '/v1/public/batch?content=none', {
      body: { writes: [transition(userId, 'one')] },
    });
    expect(response.status).toBe(200);
    for (const flow of (response.body as BatchResponse).flowStates!.eligibleFlows)
      expect(Object.keys(flow.data)).toEqual(['steps']);
  });

  it('refuses a write alone, with its own problem, and applies the others', async () => {
    const userId = newUser();
    const writes: BatchWrite[] = [
      transition(userId, 'one'),
      // A blocked step (409), an unknown flow (404), data over the limit (400), a createdAt in 1999 (400).
      transition(userId, 'locked', 'COMPLETED_STEP', 'gated'),
      transition(userId, 'one', 'COMPLETED_STEP', 'nope'),
      {
        path: 'flowStates',
        idempotencyKey: key(),
        body: {
          userId,
          flowSlug: 'setup',
          stepId: 'two',
          actionType: 'COMPLETED_STEP',
          data: { note: 'x'.repeat(100) },
        },
      },
      {
        path: 'flowStates',
        idempotencyKey: key(),
        body: {
          userId,
          flowSlug: 'setup',
          stepId: 'two',
          actionType: 'COMPLETED_STEP',
          createdAt: '1999-01-01T00:00:00Z',
        },
      },
      transition(userId, 'three'),
    ];
    const response = await batch(writes);
    expect(response.status).toBe(200);
    const results = (response.body as BatchResponse).results;
    expect(results.map((result) => result.status)).toEqual([201, 409, 404, 400, 400, 201]);
    expect(results.slice(1, 5).map((result) => result.problem?.field)).toEqual([
      'stepId',
      'flowSlug',
      'data',
      'createdAt',
    ]);
    expect(results[1].problem).toMatchObject({
      type: 'about:blank',
      title: 'Conflict',
      status: 409,
      detail: expect.any(String),
    });
    const steps = await service.db.query<{ flow_slug: string; step_id: string }>(
      'SELECT flow_slug, step_id FROM step_states WHERE user_id = $1 ORDER BY step_id',
      [userId],
    );
    expect(steps).toEqual([
      { flow_slug: 'setup', step_id: 'one' },
      { flow_slug: 'setup', step_id: 'three' },
    ]);
    // A refused write keeps no idempotency record, so it may be sent again with its key.
    expect(
      await service.db.query('SELECT key FROM idempotency_keys WHERE key = ANY($1)', [
        writes.slice(1, 5).map((write) => write.idempotencyKey),
      ]),
    ).toEqual([]);
  });

  it('applies each write once: a repeated batch, and a write sent alone and then in a batch (or the other way), replay', async () => {
    const userId = newUser();
    const writes: BatchWrite[] = [
      { path: 'users', idempotencyKey: key(), body: { userId, events: [{ event: 'once' }] } },
      transition(userId, 'one'),
    ];
    const first = await batch(writes);
    const again = await batch(writes);
    expect((again.body as BatchResponse).results).toEqual([
      { status: 201, replayed: true, guestLinked: false },
      { status: 201, replayed: true },
    ]);
    expect((again.body as BatchResponse).flowStates).toEqual((first.body as BatchResponse).flowStates);

    // Alone first (as a script that sent it before batching would have), then in a batch: the same request.
    const alone = transition(userId, 'two');
    expect(
      (
        await service.call('POST', '/v1/public/flowStates', {
          body: alone.body,
          headers: { 'Idempotency-Key': alone.idempotencyKey },
        })
      ).status,
    ).toBe(201);
    expect((await batch([alone])).body.results).toEqual([{ status: 201, replayed: true }]);
    // In a batch first, then alone.
    const event: BatchWrite = { path: 'users', idempotencyKey: key(), body: { userId, events: [{ event: 'twice?' }] } };
    await batch([event]);
    const replayed = await service.call('POST', '/v1/public/users', {
      body: event.body,
      headers: { 'Idempotency-Key': event.idempotencyKey },
    });
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toMatchObject({
      userId,
      guestLinked: false,
      flowStates: { eligibleFlows: expect.any(Array) },
    });

    const events = await service.db.query<{ event: string }>(
      'SELECT event FROM user_events WHERE user_id = $1 ORDER BY id',
      [userId],
    );
    expect(events).toEqual([{ event: 'once' }, { event: 'twice?' }]);
    expect(
      await service.db.query('SELECT step_id FROM flow_responses WHERE user_id = $1 ORDER BY id', [userId]),
    ).toEqual([{ step_id: 'one' }, { step_id: 'two' }]);
    // The same key with another write is refused alone (422), as it is on the write's own endpoint.
    const changed = await batch([{ ...writes[1], body: { ...writes[1].body, stepId: 'three' } } as BatchWrite]);
    expect(changed.body.results).toEqual([
      expect.objectContaining({ status: 422, problem: expect.objectContaining({ field: 'Idempotency-Key' }) }),
    ]);
  });

  it('checks each write’s identity where identity is required, and reads only a verified last user', async () => {
    const userId = newUser();
    const hash = userHashFor(SECRET, userId);
    const guest = `guest_${randomUUID()}`;
    const writes: BatchWrite[] = [
      transition(guest, 'one'),
      { path: 'users', idempotencyKey: key(), body: { userId, userHash: hash, properties: { plan: 'pro' } } },
      transition(userId, 'one', 'COMPLETED_STEP', 'setup', hash),
      transition(userId, 'two'),
    ];
    const response = await batch(writes, {}, '/v1/public/batch', verifying);
    const body = response.body as BatchResponse;
    expect(body.results.map((result) => result.status)).toEqual([201, 201, 201, 401]);
    expect(body.results[3].problem).toMatchObject({ field: 'userHash' });
    expect(body.flowStates).toBeUndefined();
    expect(await verifying.db.query('SELECT step_id FROM step_states WHERE user_id = $1', [guest])).toEqual([
      { step_id: 'one' },
    ]);
    // The refused write changed nothing: only the verified one is stored.
    expect(await verifying.db.query('SELECT step_id FROM step_states WHERE user_id = $1', [userId])).toEqual([
      { step_id: 'one' },
    ]);
    const verified = await batch(
      [transition(userId, 'two', 'COMPLETED_STEP', 'setup', hash)],
      {},
      '/v1/public/batch',
      verifying,
    );
    expect(
      (verified.body as BatchResponse).flowStates!.eligibleFlows[0].data.steps.map((step) => step.$state.completed),
    ).toEqual([true, true, false]);
  });

  it('counts as one request, and takes a public key in the query and a text/plain body like every endpoint', async () => {
    const userId = newUser();
    const response = await fetch(`${service.url}/v1/public/batch?publicKey=${PUBLIC_KEY}&content=none`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify({ writes: [transition(userId, 'one'), transition(userId, 'two')] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(((await response.json()) as BatchResponse).results).toEqual([{ status: 201 }, { status: 201 }]);
    expect(
      await service.db.query('SELECT step_id FROM step_states WHERE user_id = $1 ORDER BY step_id', [userId]),
    ).toEqual([{ step_id: 'one' }, { step_id: 'two' }]);
  });
});
