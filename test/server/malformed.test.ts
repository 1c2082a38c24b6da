// No input produces a 500: a table of malformed requests, each answered with the right 4xx problem body and no change to stored state.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bannerFlowYaml, PRIVATE_KEY, PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ 'banner.yaml': bannerFlowYaml('welcome') });
  // Something to leave untouched: a user with state, a group, and an idempotency record.
  await service.call('POST', '/v1/public/users', {
    body: { userId: 'existing', properties: { plan: 'pro' }, events: [{ event: 'e' }] },
  });
  await service.call('POST', '/v1/public/groups', { body: { groupId: 'team', userId: 'existing' } });
  await service.call('POST', '/v1/public/flowStates', {
    body: { userId: 'existing', flowSlug: 'welcome', stepId: 'hello', actionType: 'STARTED_STEP' },
    headers: { 'Idempotency-Key': 'kept' },
  });
});
afterAll(() => service?.close());

const TABLES = [
  'users',
  'user_events',
  'groups',
  'group_events',
  'group_members',
  'flows',
  'flow_states',
  'step_states',
  'flow_responses',
  'idempotency_keys',
  'analytics_flow_users',
  'analytics_step_users',
  'analytics_daily',
  'analytics_durations',
  'analytics_answers',
  'analytics_target_missing_users',
  'analytics_target_missing',
  'webhook_outbox',
];

/** Every stored row, so "unchanged" means unchanged, not just the same counts. */
async function storedState(): Promise<Record<string, unknown[]>> {
  const state: Record<string, unknown[]> = {};
  for (const table of TABLES) state[table] = await service.db.query(`SELECT * FROM ${table} ORDER BY 1, 2`);
  return state;
}

/** One users write of a batch, with `change` applied (an undefined value removes the field). */
const batchWrite = (change: Record<string, unknown> = {}) =>
  Object.fromEntries(
    Object.entries({
      path: 'users',
      idempotencyKey: 'k1',
      body: { userId: 'batch-x', events: [{ event: 'e' }] },
      ...change,
    }).filter(([, value]) => value !== undefined),
  );

const nested = (depth: number) => `{"userId":"deep","properties":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
const json = { 'Content-Type': 'application/json' };

interface Case {
  name: string;
  method: string;
  path: string;
  /** A string is sent as is; anything else JSON-encoded. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The Authorization key; null sends none. */
  key?: string | null;
  status: number;
  /** The field the problem names; a RegExp when the exact path is long. */
  field?: string | RegExp;
}

const CASES: Case[] = [
  // Bodies that are not JSON objects
  { name: 'truncated JSON', method: 'POST', path: '/v1/public/users', body: '{"userId":', status: 400, field: 'body' },
  {
    name: 'trailing garbage',
    method: 'POST',
    path: '/v1/public/users',
    body: '{"userId":"x"} y',
    status: 400,
    field: 'body',
  },
  { name: 'a JSON array', method: 'POST', path: '/v1/public/users', body: '[]', status: 400 },
  { name: 'a JSON string', method: 'POST', path: '/v1/public/groups', body: '"x"', status: 400 },
  { name: 'JSON null', method: 'POST', path: '/v1/public/flowStates', body: 'null', status: 400 },
  {
    name: 'an empty JSON body',
    method: 'POST',
    path: '/v1/public/users',
    body: '',
    headers: json,
    status: 400,
    field: 'body',
  },
  { name: 'no body at all', method: 'POST', path: '/v1/public/users', status: 400 },
  {
    name: 'text/plain that is not JSON',
    method: 'POST',
    path: '/v1/public/users',
    body: 'userId=x',
    headers: { 'Content-Type': 'text/plain' },
    status: 400,
    field: 'body',
  },
  {
    name: 'a form body',
    method: 'POST',
    path: '/v1/public/users',
    body: 'userId=x',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    status: 415,
  },
  {
    name: 'XML',
    method: 'POST',
    path: '/v1/public/groups',
    body: '<groupId>x</groupId>',
    headers: { 'Content-Type': 'application/xml' },
    status: 415,
  },
  {
    name: 'a gzip Content-Encoding',
    method: 'POST',
    path: '/v1/public/users',
    body: '{"userId":"x"}',
    headers: { ...json, 'Content-Encoding': 'gzip' },
    status: 415,
  },
  {
    name: '__proto__ in the body',
    method: 'POST',
    path: '/v1/public/users',
    body: '{"userId":"x","properties":{"__proto__":{"admin":true}}}',
    status: 400,
  },
  {
    name: 'a body over the size limit',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'big', properties: { blob: 'x'.repeat(110_000) } },
    status: 413,
  },
  {
    name: 'nesting past 32 levels',
    method: 'POST',
    path: '/v1/public/users',
    body: nested(40),
    status: 400,
    field: /^properties\.a(\.0)+$/,
  },
  { name: 'nesting 20,000 levels deep', method: 'POST', path: '/v1/public/users', body: nested(20_000), status: 400 },
  // Users upsert fields
  {
    name: 'userId missing',
    method: 'POST',
    path: '/v1/public/users',
    body: { properties: {} },
    status: 400,
    field: 'userId',
  },
  {
    name: 'userId a number',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 1 },
    status: 400,
    field: 'userId',
  },
  {
    name: 'userId empty',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: '' },
    status: 400,
    field: 'userId',
  },
  {
    name: 'userId of 257 characters',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'u'.repeat(257) },
    status: 400,
    field: 'userId',
  },
  {
    name: 'userId with a NUL',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'a\u0000b' },
    status: 400,
    field: 'userId',
  },
  {
    name: 'userId with a newline',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'a\nb' },
    status: 400,
    field: 'userId',
  },
  {
    name: 'properties an array',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'x', properties: [1] },
    status: 400,
    field: 'properties',
  },
  {
    name: 'properties a string',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'x', properties: 'a' },
    status: 400,
    field: 'properties',
  },
  {
    name: 'a property value with a NUL',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'x', properties: { a: 'b\u0000' } },
    status: 400,
    field: 'properties.a',
  },
  {
    name: 'a property name with a NUL',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'x', properties: { 'a\u0000': 1 } },
    status: 400,
  },
  {
    name: 'an unpaired surrogate',
    method: 'POST',
    path: '/v1/public/users',
    body: '{"userId":"x","properties":{"a":"\\ud800"}}',
    status: 400,
    field: 'properties.a',
  },
  {
    name: 'a number that overflows (1e309)',
    method: 'POST',
    path: '/v1/public/users',
    body: '{"userId":"x","properties":{"big":1e309}}',
    status: 400,
    field: 'properties.big',
  },
  {
    name: 'a negative number that overflows',
    method: 'POST',
    path: '/v1/public/users',
    body: '{"userId":"x","events":[{"event":"e","properties":{"n":-1e309}}]}',
    status: 400,
    field: 'events.0.properties.n',
  },
  {
    name: 'a number that underflows to 0 (1e-400)',
    method: 'POST',
    path: '/v1/public/flowStates',
    body: '{"userId":"x","flowSlug":"welcome","stepId":"hello","actionType":"STARTED_STEP","data":{"tiny":1e-400}}',
    status: 400,
    field: 'data.tiny',
  },
  {
    name: 'an integer beyond 2^53',
    method: 'POST',
    path: '/v1/public/groups',
    body: '{"groupId":"g","properties":{"id":9007199254740993}}',
    status: 400,
    field: 'properties.id',
  },
  {
    name: 'an integer beyond 2^53 in an array',
    method: 'POST',
    path: '/v1/public/users',
    body: '{"userId":"x","properties":{"ids":[1,12345678901234567890]}}',
    status: 400,
    field: 'properties.ids.1',
  },
  {
    name: 'events an object',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'x', events: { event: 'a' } },
    status: 400,
    field: 'events',
  },
  {
    name: 'an event without a name',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'x', events: [{ properties: {} }] },
    status: 400,
    field: 'events.0.event',
  },
  {
    name: 'an event with an unknown field',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'x', events: [{ event: 'a', at: 1 }] },
    status: 400,
    field: 'events.0.at',
  },
  {
    name: 'an unknown top-level field',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'x', email: 'a@b.c' },
    status: 400,
    field: 'email',
  },
  {
    name: 'bootstrapFlowStates a string',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'x', bootstrapFlowStates: 'yes' },
    status: 400,
    field: 'bootstrapFlowStates',
  },
  {
    name: 'linkGuestId a number',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'x', linkGuestId: 5 },
    status: 400,
    field: 'linkGuestId',
  },
  {
    name: 'a bad Idempotency-Key',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'x' },
    headers: { 'Idempotency-Key': 'k'.repeat(300) },
    status: 400,
    field: 'Idempotency-Key',
  },
  {
    name: 'a reused Idempotency-Key with another body',
    method: 'POST',
    path: '/v1/public/users',
    body: { userId: 'x' },
    headers: { 'Idempotency-Key': 'kept' },
    status: 422,
    field: 'Idempotency-Key',
  },
  // Groups upsert fields
  {
    name: 'groupId missing',
    method: 'POST',
    path: '/v1/public/groups',
    body: { userId: 'x' },
    status: 400,
    field: 'groupId',
  },
  {
    name: 'group userId an object',
    method: 'POST',
    path: '/v1/public/groups',
    body: { groupId: 'g', userId: {} },
    status: 400,
    field: 'userId',
  },
  // Flow-state write fields
  {
    name: 'actionType missing',
    method: 'POST',
    path: '/v1/public/flowStates',
    body: { userId: 'x', flowSlug: 'welcome', stepId: 'hello' },
    status: 400,
    field: 'actionType',
  },
  {
    name: 'actionType unknown',
    method: 'POST',
    path: '/v1/public/flowStates',
    body: { userId: 'x', flowSlug: 'welcome', stepId: 'hello', actionType: 'FINISHED' },
    status: 400,
    field: 'actionType',
  },
  {
    name: 'stepId a number',
    method: 'POST',
    path: '/v1/public/flowStates',
    body: { userId: 'x', flowSlug: 'welcome', stepId: 1, actionType: 'STARTED_STEP' },
    status: 400,
    field: 'stepId',
  },
  {
    name: 'createdAt not a time',
    method: 'POST',
    path: '/v1/public/flowStates',
    body: { userId: 'x', flowSlug: 'welcome', stepId: 'hello', actionType: 'STARTED_STEP', createdAt: 'yesterday' },
    status: 400,
    field: 'createdAt',
  },
  {
    name: 'createdAt on February 30th',
    method: 'POST',
    path: '/v1/public/flowStates',
    body: {
      userId: 'x',
      flowSlug: 'welcome',
      stepId: 'hello',
      actionType: 'STARTED_STEP',
      createdAt: '2024-02-30T10:00:00Z',
    },
    status: 400,
    field: 'createdAt',
  },
  {
    name: 'createdAt in the year 0000',
    method: 'POST',
    path: '/v1/public/flowStates',
    body: {
      userId: 'x',
      flowSlug: 'welcome',
      stepId: 'hello',
      actionType: 'STARTED_STEP',
      createdAt: '0000-01-01T00:00:00Z',
    },
    status: 400,
    field: 'createdAt',
  },
  {
    name: 'createdAt before 2000',
    method: 'POST',
    path: '/v1/public/flowStates',
    body: {
      userId: 'x',
      flowSlug: 'welcome',
      stepId: 'hello',
      actionType: 'STARTED_STEP',
      createdAt: '1999-12-31T23:59:59Z',
    },
    status: 400,
    field: 'createdAt',
  },
  {
    name: 'createdAt two days ahead',
    method: 'POST',
    path: '/v1/public/flowStates',
    body: {
      userId: 'x',
      flowSlug: 'welcome',
      stepId: 'hello',
      actionType: 'STARTED_STEP',
      createdAt: new Date(Date.now() + 48 * 3600_000).toISOString(),
    },
    status: 400,
    field: 'createdAt',
  },
  {
    name: 'an unknown flow',
    method: 'POST',
    path: '/v1/public/flowStates',
    body: { userId: 'existing', flowSlug: 'nope', stepId: 'hello', actionType: 'STARTED_STEP' },
    status: 404,
    field: 'flowSlug',
  },
  {
    name: 'an unknown step',
    method: 'POST',
    path: '/v1/public/flowStates',
    body: { userId: 'existing', flowSlug: 'welcome', stepId: 'nope', actionType: 'COMPLETED_STEP' },
    status: 404,
    field: 'stepId',
  },
  // Query strings
  { name: 'flowStates without userId', method: 'GET', path: '/v1/public/flowStates', status: 400, field: 'userId' },
  {
    name: 'flowStates with an empty userId',
    method: 'GET',
    path: '/v1/public/flowStates?userId=',
    status: 400,
    field: 'userId',
  },
  {
    name: 'flowStates with userId twice',
    method: 'GET',
    path: '/v1/public/flowStates?userId=a&userId=b',
    status: 400,
    field: 'userId',
  },
  {
    name: 'flowStates with a NUL in userId',
    method: 'GET',
    path: '/v1/public/flowStates?userId=a%00b',
    status: 400,
    field: 'userId',
  },
  {
    name: 'flowStates with an oversized userId',
    method: 'GET',
    path: `/v1/public/flowStates?userId=${'u'.repeat(300)}`,
    status: 400,
    field: 'userId',
  },
  {
    name: 'flowStates with an oversized groupId',
    method: 'GET',
    path: `/v1/public/flowStates?userId=a&groupId=${'g'.repeat(300)}`,
    status: 400,
    field: 'groupId',
  },
  { name: 'flows with limit=abc', method: 'GET', path: '/v1/public/flows?limit=abc', status: 400, field: 'limit' },
  { name: 'flows with limit=0', method: 'GET', path: '/v1/public/flows?limit=0', status: 400, field: 'limit' },
  { name: 'flows with limit=1001', method: 'GET', path: '/v1/public/flows?limit=1001', status: 400, field: 'limit' },
  { name: 'flows with offset=-1', method: 'GET', path: '/v1/public/flows?offset=-1', status: 400, field: 'offset' },
  { name: 'flows with offset=1.5', method: 'GET', path: '/v1/public/flows?offset=1.5', status: 400, field: 'offset' },
  {
    name: 'flows with a huge offset',
    method: 'GET',
    path: '/v1/public/flows?offset=99999999999999999999',
    status: 400,
    field: 'offset',
  },
  {
    name: 'delete without foreignId',
    method: 'DELETE',
    path: '/v1/users',
    key: PRIVATE_KEY,
    status: 400,
    field: 'foreignId',
  },
  {
    name: 'delete with an empty foreignId',
    method: 'DELETE',
    path: '/v1/users?foreignId=',
    key: PRIVATE_KEY,
    status: 400,
    field: 'foreignId',
  },
  {
    name: 'delete of an unknown user',
    method: 'DELETE',
    path: '/v1/users?foreignId=nobody',
    key: PRIVATE_KEY,
    status: 404,
    field: 'foreignId',
  },
  {
    name: 'delete with an unknown query field',
    method: 'DELETE',
    path: '/v1/users?foreignId=existing&force=1',
    key: PRIVATE_KEY,
    status: 400,
    field: 'force',
  },
  // Analytics queries (private key)
  {
    name: 'analytics with from not a date',
    method: 'GET',
    path: '/v1/analytics/flows?from=last-week',
    key: PRIVATE_KEY,
    status: 400,
    field: 'from',
  },
  {
    name: 'analytics with from after to',
    method: 'GET',
    path: '/v1/analytics/flows?from=2024-03-02&to=2024-03-01',
    key: PRIVATE_KEY,
    status: 400,
    field: 'from',
  },
  {
    name: 'analytics over more than 366 days',
    method: 'GET',
    path: '/v1/analytics/flows?from=2022-01-01&to=2024-01-01',
    key: PRIVATE_KEY,
    status: 400,
    field: 'from',
  },
  {
    name: 'analytics with version=abc',
    method: 'GET',
    path: '/v1/analytics/flows/welcome?version=abc',
    key: PRIVATE_KEY,
    status: 400,
    field: 'version',
  },
  {
    name: 'analytics with an unknown query field',
    method: 'GET',
    path: '/v1/analytics/flows?since=2024-01-01',
    key: PRIVATE_KEY,
    status: 400,
    field: 'since',
  },
  {
    name: 'analytics of an unknown flow',
    method: 'GET',
    path: '/v1/analytics/flows/nope',
    key: PRIVATE_KEY,
    status: 404,
    field: 'slug',
  },
  {
    name: 'analytics of an unknown version',
    method: 'GET',
    path: '/v1/analytics/flows/welcome?version=9',
    key: PRIVATE_KEY,
    status: 404,
    field: 'version',
  },
  {
    name: 'answers with limit=0',
    method: 'GET',
    path: '/v1/analytics/flows/welcome/responses?limit=0',
    key: PRIVATE_KEY,
    status: 400,
    field: 'limit',
  },
  {
    name: 'answers with a forged cursor',
    method: 'GET',
    path: '/v1/analytics/flows/welcome/responses?cursor=WyJ4IiwiMSIsImEiXQ',
    key: PRIVATE_KEY,
    status: 400,
    field: 'cursor',
  },
  {
    name: 'answers as CSV of an unknown flow',
    method: 'GET',
    path: '/v1/analytics/flows/nope/responses',
    key: PRIVATE_KEY,
    headers: { Accept: 'text/csv' },
    status: 404,
    field: 'slug',
  },
  { name: 'analytics with a public key', method: 'GET', path: '/v1/analytics/flows', status: 403 },
  { name: 'POST on analytics', method: 'POST', path: '/v1/analytics/flows', key: PRIVATE_KEY, body: {}, status: 405 },
  // The public key in the query
  {
    name: 'a private key in the publicKey query field',
    method: 'POST',
    path: `/v1/public/users?publicKey=${PRIVATE_KEY}`,
    body: { userId: 'x' },
    key: null,
    status: 400,
    field: 'publicKey',
  },
  {
    name: 'an unknown key in the publicKey query field',
    method: 'POST',
    path: '/v1/public/users?publicKey=pk_nope',
    body: { userId: 'x' },
    key: null,
    status: 401,
    field: 'publicKey',
  },
  {
    name: 'the publicKey query field twice',
    method: 'GET',
    path: `/v1/public/flowStates?userId=x&publicKey=${PUBLIC_KEY}&publicKey=${PUBLIC_KEY}`,
    key: null,
    status: 400,
    field: 'publicKey',
  },
  {
    name: 'a key in the header and in the query',
    method: 'POST',
    path: `/v1/public/users?publicKey=${PUBLIC_KEY}`,
    body: { userId: 'x' },
    status: 400,
    field: 'publicKey',
  },
  {
    name: 'a public key in the query on a private path',
    method: 'DELETE',
    path: `/v1/users?foreignId=existing&publicKey=${PUBLIC_KEY}`,
    key: null,
    status: 403,
  },
  // Batches
  { name: 'a batch without writes', method: 'POST', path: '/v1/public/batch', body: {}, status: 400, field: 'writes' },
  {
    name: 'a batch of no writes',
    method: 'POST',
    path: '/v1/public/batch',
    body: { writes: [] },
    status: 400,
    field: 'writes',
  },
  {
    name: 'a batch of 101 writes',
    method: 'POST',
    path: '/v1/public/batch',
    body: { writes: Array.from({ length: 101 }, (_, i) => batchWrite({ idempotencyKey: `k${i}` })) },
    status: 400,
    field: 'writes',
  },
  {
    name: 'a batch write to an unknown path',
    method: 'POST',
    path: '/v1/public/batch',
    body: { writes: [batchWrite({ path: 'sessions' })] },
    status: 400,
    field: 'writes.0.path',
  },
  {
    name: 'a batch write without a key',
    method: 'POST',
    path: '/v1/public/batch',
    body: { writes: [batchWrite({ idempotencyKey: undefined })] },
    status: 400,
    field: 'writes.0.idempotencyKey',
  },
  {
    name: 'a batch write with a bad key',
    method: 'POST',
    path: '/v1/public/batch',
    body: { writes: [batchWrite({ idempotencyKey: 'with space' })] },
    status: 400,
    field: 'writes.0.idempotencyKey',
  },
  {
    name: 'a batch write with an unknown field',
    method: 'POST',
    path: '/v1/public/batch',
    body: { writes: [batchWrite({ body: { userId: 'x', email: 'a@b.c' } })] },
    status: 400,
    field: 'writes.0.body.email',
  },
  {
    name: 'a batch transition without actionType',
    method: 'POST',
    path: '/v1/public/batch',
    body: { writes: [batchWrite({ path: 'flowStates', body: { userId: 'x', flowSlug: 'welcome', stepId: 'hello' } })] },
    status: 400,
    field: 'writes.0.body.actionType',
  },
  {
    name: 'a batch read (knownVersions) as a write',
    method: 'POST',
    path: '/v1/public/batch',
    body: { writes: [batchWrite({ path: 'flowStates', body: { userId: 'x', knownVersions: {} } })] },
    status: 400,
  },
  {
    name: 'a batch with an unknown field',
    method: 'POST',
    path: '/v1/public/batch',
    body: { writes: [batchWrite()], read: true },
    status: 400,
    field: 'read',
  },
  {
    name: 'a batch whose second write is malformed',
    method: 'POST',
    path: '/v1/public/batch',
    body: { writes: [batchWrite(), batchWrite({ idempotencyKey: 'k2', body: { userId: 1 } })] },
    status: 400,
    field: 'writes.1.body.userId',
  },
  {
    name: 'a batch with bad knownVersions',
    method: 'POST',
    path: '/v1/public/batch',
    body: { writes: [batchWrite()], knownVersions: { welcome: 'one' } },
    status: 400,
    field: 'knownVersions.welcome',
  },
  {
    name: 'a batch that is not JSON',
    method: 'POST',
    path: '/v1/public/batch',
    body: 'writes=1',
    headers: { 'Content-Type': 'text/plain' },
    status: 400,
    field: 'body',
  },
  // Paths and methods
  { name: 'an unknown path', method: 'GET', path: '/v1/public/nothing', status: 404 },
  { name: 'an unknown version', method: 'GET', path: '/v2/public/flows', key: PRIVATE_KEY, status: 404 },
  { name: 'the root', method: 'GET', path: '/', key: PRIVATE_KEY, status: 404 },
  { name: 'PUT on users', method: 'PUT', path: '/v1/public/users', body: { userId: 'x' }, status: 405 },
  { name: 'GET on users', method: 'GET', path: '/v1/public/users?userId=existing', status: 405 },
  { name: 'PATCH on flowStates', method: 'PATCH', path: '/v1/public/flowStates', body: { userId: 'x' }, status: 405 },
  { name: 'DELETE on groups', method: 'DELETE', path: '/v1/public/groups', status: 405 },
  { name: 'a malformed percent-encoding in the path', method: 'GET', path: '/v1/public/%E0%A4%A', status: 400 },
];

/** Sends bytes as they are over a socket (fetch always adds a Host header) and reads the answer. */
async function rawHttp(request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { port } = new URL(service.url);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('malformed input', () => {
  it.each(CASES)('answers $status for $name and changes nothing', async (c) => {
    const before = await storedState();
    const response = await service.call(c.method, c.path, {
      body: c.body,
      headers: c.headers,
      ...(c.key !== undefined ? { key: c.key } : {}),
    });
    expect(response.status).toBe(c.status);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({
      type: 'about:blank',
      status: c.status,
      title: expect.any(String),
      detail: expect.any(String),
    });
    if (typeof c.field === 'string') expect(response.body.field).toBe(c.field);
    if (c.field instanceof RegExp) expect(response.body.field).toMatch(c.field);
    expect(await storedState()).toEqual(before);
  });

  it('says what is wrong in words a person can act on', async () => {
    const control = await service.call('POST', '/v1/public/users', { body: { userId: 'a\tb' } });
    expect(control.body.detail).toBe('body field "userId" must not contain control characters');
    const missing = await service.call('POST', '/v1/public/flowStates', {
      body: { userId: 'x', flowSlug: 'welcome', stepId: 'hello' },
    });
    expect(missing.body.detail).toBe('body field "actionType" is required');
    const unknown = await service.call('POST', '/v1/public/users', { body: { userId: 'x', mail: 'a@b.c' } });
    expect(unknown.body.detail).toBe('body field "mail" is not allowed');
  });

  it('names the allowed methods on a 405', async () => {
    const response = await service.call('PUT', '/v1/public/flowStates');
    expect(response.headers.get('allow')).toBe('GET, POST');
  });

  it('answers a request line over the header limit with 431 and a problem body', async () => {
    const response = await service.call('GET', `/v1/public/flowStates?userId=${'u'.repeat(20_000)}`);
    expect(response.status).toBe(431);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.body.status).toBe(431);
  });

  it('stores numbers exactly as sent when a JavaScript number holds them', async () => {
    const body =
      '{"userId":"numbers","properties":{"max":1e308,"min":-1e308,"tiny":5e-324,"safe":9007199254740991,"tenth":0.1,"long":0.12345678901234567890,"zero":0,"negZero":-0.0}}';
    expect((await service.call('POST', '/v1/public/users', { body })).status).toBe(201);
    const [row] = await service.db.query<{ properties: Record<string, number> }>(
      "SELECT properties FROM users WHERE id = 'numbers'",
    );
    expect(row.properties).toMatchObject({
      max: 1e308,
      min: -1e308,
      tiny: 5e-324,
      safe: 9007199254740991,
      tenth: 0.1,
      zero: 0,
    });
  });

  it('answers 400 to a body that is not valid UTF-8, and stores nothing', async () => {
    const before = await storedState();
    const bytes = Buffer.concat([
      Buffer.from('{"userId":"utf","properties":{"name":"'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('"}}'),
    ]);
    const response = await fetch(`${service.url}/v1/public/users`, {
      method: 'POST',
      headers: { Authorization: 'Bearer pk_test_public', 'Content-Type': 'application/json' },
      body: bytes,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      status: 400,
      field: 'body',
      detail: expect.stringContaining('UTF-8'),
    });
    expect(await storedState()).toEqual(before);
  });

  it('answers a request without a Host header, and an unknown Expect, with problem bodies', async () => {
    const noHost = await rawHttp(
      `GET /v1/public/flows HTTP/1.1\r\nAuthorization: Bearer pk_test_public\r\nConnection: close\r\n\r\n`,
    );
    expect(noHost.status).toBe(400);
    expect(noHost.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(noHost.body)).toMatchObject({ status: 400, field: 'Host' });
    const expectation = await rawHttp(
      `GET /v1/public/flows HTTP/1.1\r\nHost: x\r\nExpect: nonsense\r\nAuthorization: Bearer pk_test_public\r\nConnection: close\r\n\r\n`,
    );
    expect(expectation.status).toBe(417);
    expect(expectation.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(expectation.body)).toMatchObject({ status: 417, title: 'Expectation Failed' });
  });

  it('still serves normal requests after all of that', async () => {
    const response = await service.call('GET', '/v1/public/flowStates?userId=existing');
    expect(response.status).toBe(200);
    expect(response.body.eligibleFlows[0].data.steps[0].$state.started).toBe(true);
  });
});
