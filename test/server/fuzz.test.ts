// Property-based fuzzing of every endpoint with fast-check: whatever arrives, no 5xx, a problem body on every 4xx,
// and a refused request changes no row. A fixed seed in CI; ONBOARDING_FUZZ_RUNS and ONBOARDING_FUZZ_SEED for longer runs.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bannerFlowYaml,
  checklistYaml,
  PRIVATE_KEY,
  PUBLIC_KEY,
  startTestService,
  type TestService,
} from '../support/service.js';

const RUNS = Number(process.env.ONBOARDING_FUZZ_RUNS ?? 1500);
const SEED = Number(process.env.ONBOARDING_FUZZ_SEED ?? 20261122);

let service: TestService;
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
  'api_keys',
];

beforeAll(async () => {
  service = await startTestService(
    { 'banner.yaml': bannerFlowYaml('welcome'), 'setup.yaml': checklistYaml('setup') },
    { limits: { requestsPerMinute: 10_000_000 } },
  );
  await service.call('POST', '/v1/public/users', {
    body: { userId: 'known', properties: { plan: 'pro' }, events: [{ event: 'e' }] },
  });
  await service.call('POST', '/v1/public/groups', { body: { groupId: 'team', userId: 'known' } });
  await service.call('POST', '/v1/public/flowStates', {
    body: { userId: 'known', flowSlug: 'setup', stepId: 'one', actionType: 'COMPLETED_STEP' },
    headers: { 'Idempotency-Key': 'taken' },
  });
});
afterAll(() => service?.close());

/**
 * One fingerprint of every table: its row count and the newest row version (xmin). Any committed
 * insert or update raises the newest version, and a delete lowers the count; a refused request,
 * which rolls back, changes neither. One statement, cheap enough to take after every request.
 */
async function digest(): Promise<string> {
  const rows = await service.db.query<{ t: string; n: string; x: string | null }>(
    TABLES.map((table) => `SELECT '${table}' AS t, count(*) AS n, max(xmin::text::bigint) AS x FROM ${table}`).join(
      ' UNION ALL ',
    ),
  );
  return rows.map((row) => `${row.t}:${row.n}:${row.x ?? ''}`).join(',');
}

// ---- Values: near the valid ones, and at the edges of JSON, Unicode, numbers and dates ----

const ID_LIKE = fc.oneof(
  fc.constantFrom(
    'known',
    'stranger',
    'guest_0b7c3f9e-0000-4000-8000-000000000000',
    'team',
    'welcome',
    'setup',
    'one',
    'two',
    'hello',
    '',
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ minLength: 250, maxLength: 300, unit: 'grapheme-ascii' }),
);
/** Number literals as JSON text, including ones no JavaScript number holds. */
const NUMBER_LITERAL = fc.oneof(
  fc.constantFrom(
    '1e309',
    '-1e309',
    '1e-400',
    '-0',
    '0.0',
    '9007199254740993',
    '-9007199254740993',
    '123456789012345678901234567890',
    '1e308',
    '5e-324',
    '0.1',
    '1E+2',
    '1.7976931348623157e308',
  ),
  fc.double().filter(Number.isFinite).map(String),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
);
const DATE_STRING = fc.oneof(
  fc.constantFrom(
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:00:00Z',
    '1969-12-31T23:59:59.999Z',
    '1999-12-31T23:59:59Z',
    '2000-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '+275760-09-13T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    '2016-12-31T23:59:60Z',
    '2024-02-29T12:00:00+14:00',
    '2023-13-01T00:00:00Z',
    '2023-02-30T00:00:00Z',
    '2023-01-01',
    'now',
    '',
    '2023-01-01T00:00:00.123456789Z',
  ),
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
);
const JSON_VALUE = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constant(null),
);
const PROPERTIES = fc.oneof(
  fc.dictionary(fc.string({ unit: 'binary', maxLength: 8 }), JSON_VALUE, { maxKeys: 6 }),
  JSON_VALUE,
);
const EVENTS = fc.oneof(
  fc.array(fc.record({ event: ID_LIKE, properties: PROPERTIES }, { requiredKeys: ['event'] }), { maxLength: 4 }),
  JSON_VALUE,
);
const ACTION = fc.oneof(
  fc.constantFrom(
    'STARTED_FLOW',
    'COMPLETED_FLOW',
    'SKIPPED_FLOW',
    'NOT_STARTED_FLOW',
    'STARTED_STEP',
    'COMPLETED_STEP',
    'SKIPPED_STEP',
    'NOT_STARTED_STEP',
  ),
  fc.string({ maxLength: 16 }),
);

/** Values a valid request could carry. */
const USER = fc.constantFrom(
  'known',
  'stranger',
  'other',
  'guest_0b7c3f9e-0000-4000-8000-000000000000',
  'guest_1b7c3f9e-0000-4000-8000-000000000001',
);
const SMALL_PROPERTIES = fc.dictionary(
  fc.constantFrom('plan', 'name', 'n', 'flag', 'nested'),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 3 },
);
const SMALL_EVENTS = fc.array(
  fc.record(
    { event: fc.constantFrom('signed-in', 'exported'), properties: SMALL_PROPERTIES },
    { requiredKeys: ['event'] },
  ),
  { maxLength: 2 },
);
const STEP_ACTION = fc.constantFrom('STARTED_STEP', 'COMPLETED_STEP', 'SKIPPED_STEP', 'NOT_STARTED_STEP');
const FLOW_ACTION = fc.constantFrom('STARTED_FLOW', 'COMPLETED_FLOW', 'SKIPPED_FLOW', 'NOT_STARTED_FLOW');

/** Valid bodies per endpoint; `bend` below changes one thing about them, or nothing. */
const VALID_BODIES: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  '/v1/public/users': fc.record(
    {
      userId: USER,
      properties: SMALL_PROPERTIES,
      events: SMALL_EVENTS,
      bootstrapFlowStates: fc.boolean(),
      linkGuestId: USER,
    },
    { requiredKeys: ['userId'] },
  ),
  '/v1/public/groups': fc.record(
    {
      groupId: fc.constantFrom('team', 'other-team'),
      userId: USER,
      properties: SMALL_PROPERTIES,
      events: SMALL_EVENTS,
    },
    { requiredKeys: ['groupId'] },
  ),
  '/v1/public/userGroups': fc.record(
    {
      foreignUserId: USER,
      foreignUserGroupId: fc.constantFrom('team', 'other-team'),
      properties: SMALL_PROPERTIES,
      events: SMALL_EVENTS,
    },
    { requiredKeys: ['foreignUserId', 'foreignUserGroupId'] },
  ),
  '/v1/public/sessions': fc.record(
    {
      userId: USER,
      groupId: fc.constantFrom('team', 'other-team'),
      userProperties: SMALL_PROPERTIES,
      userEvents: SMALL_EVENTS,
      linkGuestId: USER,
      bootstrapFlowStates: fc.boolean(),
    },
    { requiredKeys: ['userId'] },
  ),
  '/v1/public/flowStates': fc.oneof(
    fc.record(
      {
        userId: USER,
        flowSlug: fc.constantFrom('setup', 'welcome'),
        stepId: fc.constantFrom('one', 'two', 'three', 'hello'),
        actionType: STEP_ACTION,
        data: fc.jsonValue({ maxDepth: 2 }),
        createdAt: fc
          .date({ min: new Date(Date.UTC(2001, 0, 1)), max: new Date(), noInvalidDate: true })
          .map((d) => d.toISOString()),
        context: fc.record({ url: fc.webUrl() }),
      },
      { requiredKeys: ['userId', 'flowSlug', 'stepId', 'actionType'] },
    ),
    fc.record(
      {
        userId: USER,
        flowSlug: fc.constantFrom('setup', 'welcome'),
        actionType: FLOW_ACTION,
        groupId: fc.constant('team'),
      },
      { requiredKeys: ['userId', 'flowSlug', 'actionType'] },
    ),
    fc.record(
      {
        userId: USER,
        groupId: fc.constant('team'),
        knownVersions: fc.dictionary(fc.constantFrom('setup', 'welcome'), fc.nat(3)),
      },
      { requiredKeys: ['userId'] },
    ),
  ),
};

/** A batch of valid-looking writes, one of each endpoint's bodies under its own key (`taken` is a key already used). */
const WRITE = fc.oneof(
  ...(['users', 'groups', 'flowStates'] as const).map((path) =>
    fc.record({
      path: fc.constant(path),
      idempotencyKey: fc.oneof(fc.uuid(), fc.constantFrom('taken')),
      body: VALID_BODIES[`/v1/public/${path}`],
    }),
  ),
);
VALID_BODIES['/v1/public/batch'] = fc.record(
  {
    writes: fc.array(WRITE, { minLength: 1, maxLength: 3 }),
    knownVersions: fc.dictionary(fc.constantFrom('setup', 'welcome'), fc.nat(3)),
  },
  { requiredKeys: ['writes'] },
);

/** Anything a field might be sent as: IDs at the edges, any JSON, strings of any code points, dates at the edges. */
const EDGE_VALUE = fc.oneof(ID_LIKE, JSON_VALUE, DATE_STRING, PROPERTIES, EVENTS, ACTION);

/** The body as it is, or with one field changed, removed, or added. */
const bend = (body: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> => {
  const keys = Object.keys(body);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(body) },
    {
      weight: 4,
      arbitrary: fc.tuple(fc.constantFrom(...keys), EDGE_VALUE).map(([key, value]) => ({ ...body, [key]: value })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...keys)
        .map((key) => Object.fromEntries(Object.entries(body).filter(([k]) => k !== key))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.oneof(
            fc.string({ maxLength: 10 }),
            fc.constantFrom('userHash', 'foreignId', 'context', 'knownVersions', '__proto__'),
          ),
          EDGE_VALUE,
        )
        .map(([key, value]) => ({ ...body, [key]: value })),
    },
  );
};
const BODIES: Record<string, fc.Arbitrary<Record<string, unknown>>> = Object.fromEntries(
  Object.entries(VALID_BODIES).map(([path, valid]) => [path, valid.chain(bend)]),
);

/** A raw body: a bent valid-looking one, any JSON at all, a number literal spliced in, or bytes that are not UTF-8. */
const RAW_BODY = (path: string) =>
  fc.oneof(
    { weight: 5, arbitrary: BODIES[path].map((body) => JSON.stringify(body)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(BODIES[path], NUMBER_LITERAL)
        .map(([body, literal]) => JSON.stringify({ ...body, n: 0 }).replace('"n":0', `"properties":{"n":${literal}}`)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(BODIES[path], NUMBER_LITERAL)
        .map(([body, literal]) => JSON.stringify({ ...body, data: 0 }).replace('"data":0', `"data":${literal}`)),
    },
    { weight: 1, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes)) },
  );

const QUERY_VALUE = fc.oneof(
  ID_LIKE,
  fc.constantFrom('%00', '%ZZ', '%E0%A4%A', '1e309', '-1', '99999999999999999999', 'none', 'all'),
);
const query = (names: string[]) =>
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 6 })), QUERY_VALUE), { maxLength: 4 })
    .map((pairs) =>
      pairs
        .map(([name, value]) => `${encodeURIComponent(name)}=${/%/.test(value) ? value : encodeURIComponent(value)}`)
        .join('&'),
    );

interface FuzzRequest {
  method: string;
  path: string;
  body?: string | Buffer;
  headers: Record<string, string>;
}

const HEADERS = fc.record(
  {
    key: fc.oneof(
      { weight: 12, arbitrary: fc.constant(PUBLIC_KEY) },
      { weight: 3, arbitrary: fc.constant(PRIVATE_KEY) },
      fc.constantFrom('pk_unknown', ''),
    ),
    contentType: fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
      fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', ''),
    ),
    idempotencyKey: fc.oneof(
      fc.constant(undefined),
      fc.uuid(),
      fc.constantFrom('taken', 'k'.repeat(300), 'with space'),
    ),
    // Where the key goes: the Authorization header, the publicKey query field (as a page without a preflight sends it), or both.
    keyIn: fc.oneof({ weight: 8, arbitrary: fc.constant('header') }, fc.constantFrom('query', 'both')),
  },
  { requiredKeys: ['key', 'contentType', 'keyIn'] },
);
const withKey = (path: string, search: string, key: string, keyIn: string) => {
  const query =
    keyIn === 'header' ? search : [search, `publicKey=${encodeURIComponent(key)}`].filter(Boolean).join('&');
  return `${path}${query ? `?${query}` : ''}`;
};

const REQUEST: fc.Arbitrary<FuzzRequest> = fc.oneof(
  ...Object.keys(BODIES).map((path) =>
    fc
      .tuple(RAW_BODY(path), HEADERS, fc.oneof(fc.constant(''), query(['content'])))
      .map(([body, headers, search]): FuzzRequest => ({
        method: 'POST',
        path: withKey(path, search, headers.key, headers.keyIn),
        body,
        headers: {
          ...(headers.key && headers.keyIn !== 'query' ? { Authorization: `Bearer ${headers.key}` } : {}),
          ...(headers.contentType ? { 'Content-Type': headers.contentType } : {}),
          ...(headers.idempotencyKey ? { 'Idempotency-Key': headers.idempotencyKey } : {}),
        },
      })),
  ),
  fc
    .tuple(
      fc.constantFrom(
        '/v1/public/flowStates',
        '/v1/public/flows',
        '/v1/users',
        '/v1/public/flows/setup',
        '/v1/public/flows/nope',
        '/v1/analytics/flows',
        '/v1/analytics/flows/setup',
        '/v1/analytics/flows/setup/responses',
      ),
      query([
        'userId',
        'groupId',
        'content',
        'userHash',
        'offset',
        'limit',
        'foreignId',
        'from',
        'to',
        'version',
        'cursor',
        'stepId',
      ]),
      fc.constantFrom(PUBLIC_KEY, PRIVATE_KEY),
    )
    .map(([path, search, key]): FuzzRequest => ({
      method: 'GET',
      path: `${path}?${search}`,
      headers: { Authorization: `Bearer ${key}` },
    })),
  fc.tuple(query(['foreignId']), fc.constantFrom(PUBLIC_KEY, PRIVATE_KEY)).map(([search, key]): FuzzRequest => ({
    method: 'DELETE',
    path: `/v1/users?${search}`,
    headers: { Authorization: `Bearer ${key}` },
  })),
);

describe('fuzzing every endpoint', () => {
  it(
    `answers ${RUNS} generated requests (seed ${SEED}) with no 5xx, a problem on every 4xx, and no change from a refused one`,
    async () => {
      let before = await digest();
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(REQUEST, async (request) => {
          const response = await fetch(service.url + request.path, {
            method: request.method,
            headers: request.headers,
            body: request.body as BodyInit | undefined,
          });
          const text = await response.text();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const after = await digest();
          const changed = after !== before;
          before = after;
          if (response.status >= 500)
            throw new Error(`${response.status} for ${request.method} ${request.path}: ${text.slice(0, 300)}`);
          if (response.status >= 400) {
            expect(response.headers.get('content-type'), text).toMatch(/^application\/problem\+json/);
            const problem = JSON.parse(text);
            expect(problem).toMatchObject({
              type: 'about:blank',
              status: response.status,
              title: expect.any(String),
              detail: expect.any(String),
            });
            expect(changed, `${response.status} ${request.method} ${request.path} changed stored rows`).toBe(false);
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      if (process.env.ONBOARDING_FUZZ_REPORT)
        process.stdout.write(
          `statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}\n`,
        );
      // The generators must reach past validation: some requests are applied, many refused.
      const applied = [...statuses].filter(([status]) => status < 300).reduce((sum, [, n]) => sum + n, 0);
      expect(applied).toBeGreaterThan(RUNS / 50);
      expect(statuses.get(400) ?? 0).toBeGreaterThan(RUNS / 10);
    },
    Math.max(120_000, RUNS * 60),
  );
});
