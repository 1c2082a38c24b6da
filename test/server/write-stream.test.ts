// Concurrent writes for the same few users: users, groups, sessions, batches, transitions and deletes from four
// clients at once, some refused, on both stores. No 5xx, every row names a user and a group that exist, and what the
// service answers from its read cache is what its rows say.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFlowStates } from '../../server/state/read.js';
import { bannerFlowYaml, checklistYaml, PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

const SEED = Number(process.env.ONBOARDING_FUZZ_SEED ?? 20261125);
const WORKERS = 4;
const PER_WORKER = Number(process.env.ONBOARDING_STREAM_REQUESTS ?? 250);

const GUESTS = [
  'guest_8bccb6a1-0c21-4371-a219-9987466eac0d',
  'guest_1f0e2d3c-4b5a-4978-8695-a4b3c2d1e0f9',
  'guest_00000000-0000-4000-8000-00000000beef',
];
const NAMED = ['ada', 'bob'];
const USERS = [...GUESTS, ...NAMED];
const GROUPS = ['שלום', 'team'];

let service: TestService;

beforeAll(async () => {
  service = await startTestService(
    {
      'welcome.yaml': bannerFlowYaml('welcome'),
      'setup.yaml': checklistYaml('setup'),
      // Only for users on the pro plan: a guest's transition is refused (409) after its user row was written in the
      // transaction, which then rolls back.
      'pro-setup.yaml': checklistYaml('pro-setup', "user.properties.plan == 'pro'"),
    },
    // Few stored keys, so that some upserts are refused (409) after they wrote.
    { limits: { requestsPerMinute: 10_000_000, userWritesPerMinute: 10_000_000, storedProperties: 6 } },
  );
});
afterAll(() => service?.close());

interface StreamRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  key?: string;
}

const user = fc.constantFrom(...USERS);
const guest = fc.constantFrom(...GUESTS);
const group = fc.constantFrom(...GROUPS);
const properties = fc.oneof(
  fc.constant({}),
  fc.record({ plan: fc.constantFrom('pro', 'free') }),
  // Past the six stored keys once merged: refused with 409 after the write.
  fc.constant({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 }),
);
const events = fc.array(fc.record({ event: fc.constantFrom('signed-in', 'exported') }), { maxLength: 2 });
const transition = fc.record({
  userId: user,
  flowSlug: fc.oneof({ weight: 3, arbitrary: fc.constant('pro-setup') }, fc.constantFrom('setup', 'welcome', 'nope')),
  stepId: fc.constantFrom('one', 'two', 'hello', 'missing'),
  actionType: fc.constantFrom(
    'STARTED_STEP',
    'COMPLETED_STEP',
    'SKIPPED_STEP',
    'STARTED_FLOW',
    'COMPLETED_FLOW',
    'NOT_STARTED_FLOW',
  ),
});
const groupWrite = fc.record({ groupId: group, userId: user, properties });
const userWrite = fc.record({ userId: user, properties, events, linkGuestId: guest }, { requiredKeys: ['userId'] });
/** A valid body made invalid: a field of the wrong type, or an ID past its length. */
const broken = <T extends Record<string, unknown>>(body: fc.Arbitrary<T>) =>
  fc
    .tuple(
      body,
      fc.constantFrom<[string, unknown]>(
        ['userId', 5],
        ['groupId', null],
        ['properties', 'x'],
        ['userId', 'u'.repeat(300)],
      ),
    )
    .map(([valid, [key, value]]) => ({ ...valid, [key]: value }));

const REQUEST: fc.Arbitrary<StreamRequest> = fc.oneof(
  { weight: 4, arbitrary: groupWrite.map((body) => ({ method: 'POST' as const, path: '/v1/public/groups', body })) },
  {
    weight: 4,
    arbitrary: transition.map((body) => ({ method: 'POST' as const, path: '/v1/public/flowStates', body })),
  },
  { weight: 3, arbitrary: userWrite.map((body) => ({ method: 'POST' as const, path: '/v1/public/users', body })) },
  {
    weight: 2,
    arbitrary: fc
      .record(
        { userId: user, groupId: group, linkGuestId: guest, userProperties: properties },
        { requiredKeys: ['userId'] },
      )
      .map((body) => ({
        method: 'POST' as const,
        path: '/v1/public/sessions',
        body,
      })),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(
        fc.oneof(
          groupWrite.map((body) => ({ path: 'groups', body })),
          transition.map((body) => ({ path: 'flowStates', body })),
          userWrite.map((body) => ({ path: 'users', body })),
        ),
        { minLength: 1, maxLength: 3 },
      )
      .chain((writes) =>
        fc.tuple(fc.constant(writes), fc.array(fc.uuid(), { minLength: writes.length, maxLength: writes.length })),
      )
      .map(([writes, keys]) => ({
        method: 'POST' as const,
        path: '/v1/public/batch',
        body: { writes: writes.map((write, i) => ({ ...write, idempotencyKey: keys[i] })) },
      })),
  },
  {
    weight: 2,
    arbitrary: fc.oneof(broken(groupWrite), broken(transition)).map((body) => ({
      method: 'POST' as const,
      path: 'groupId' in body ? '/v1/public/groups' : '/v1/public/flowStates',
      body,
    })),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(user, group).map(([u, g]) => ({
      method: 'GET' as const,
      path: `/v1/public/flowStates?userId=${encodeURIComponent(u)}&groupId=${encodeURIComponent(g)}`,
    })),
  },
  // Deleted users come back with the next write: the stream keeps making and unmaking the rows it names.
  {
    weight: 2,
    arbitrary: user.map((u) => ({
      method: 'DELETE' as const,
      path: `/v1/users?foreignId=${encodeURIComponent(u)}`,
      key: PRIVATE_KEY,
    })),
  },
);

async function send(request: StreamRequest): Promise<{ status: number; text: string }> {
  const response = await service.call(request.method, request.path, {
    body: request.body,
    ...(request.key ? { key: request.key } : {}),
  });
  return { status: response.status, text: response.text };
}

/** Rows of every table that names a user or a group whose row is missing; foreign keys forbid them, and this says so. */
const ORPHANS_SQL = `
SELECT 'group_members.user_id' AS what, m.user_id AS id FROM group_members m LEFT JOIN users u ON u.id = m.user_id WHERE u.id IS NULL
UNION ALL SELECT 'group_members.group_id', m.group_id FROM group_members m LEFT JOIN groups g ON g.id = m.group_id WHERE g.id IS NULL
UNION ALL SELECT 'flow_states', s.user_id FROM flow_states s LEFT JOIN users u ON u.id = s.user_id WHERE u.id IS NULL
UNION ALL SELECT 'step_states', s.user_id FROM step_states s LEFT JOIN users u ON u.id = s.user_id WHERE u.id IS NULL
UNION ALL SELECT 'flow_responses', r.user_id FROM flow_responses r LEFT JOIN users u ON u.id = r.user_id WHERE u.id IS NULL
UNION ALL SELECT 'user_events', e.user_id FROM user_events e LEFT JOIN users u ON u.id = e.user_id WHERE u.id IS NULL
UNION ALL SELECT 'guest_links', l.user_id FROM guest_links l LEFT JOIN users u ON u.id = l.user_id WHERE u.id IS NULL`;

describe('a stream of concurrent writes for the same few users', () => {
  it("stores a new guest's group membership after a refused transition of that guest", async () => {
    const newGuest = 'guest_5e1f0a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
    // Not eligible: the transaction made the guest's row, then rolled back.
    const refused = await service.call('POST', '/v1/public/flowStates', {
      body: { userId: newGuest, flowSlug: 'pro-setup', stepId: 'one', actionType: 'COMPLETED_STEP' },
    });
    expect(refused.status).toBe(409);
    const joined = await service.call('POST', '/v1/public/groups', {
      body: { groupId: 'שלום', userId: newGuest, properties: {} },
    });
    expect(joined.status, joined.text).toBe(201);
    const rows = await service.db.query<{ user_id: string }>(
      'SELECT m.user_id FROM group_members m JOIN users u ON u.id = m.user_id WHERE m.user_id = $1',
      [newGuest],
    );
    expect(rows).toEqual([{ user_id: newGuest }]);
  });

  it(`answers ${WORKERS} clients' ${WORKERS * PER_WORKER} mixed requests (seed ${SEED}) with no 5xx, and leaves no row naming a missing user`, async () => {
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    await Promise.all(
      Array.from({ length: WORKERS }, async (_, worker) => {
        for (const request of fc.sample(REQUEST, { seed: SEED + worker, numRuns: PER_WORKER })) {
          const { status, text } = await send(request);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status >= 500)
            failures.push(
              `${status} ${request.method} ${request.path} ${JSON.stringify(request.body)}: ${text.slice(0, 300)}`,
            );
        }
      }),
    );
    expect(failures).toEqual([]);
    // The stream reaches past validation: writes are applied, and some are refused after they wrote (409).
    expect(statuses.get(201) ?? 0).toBeGreaterThan(WORKERS * PER_WORKER * 0.2);
    expect(statuses.get(409) ?? 0).toBeGreaterThan(10);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(10);
    expect(await service.db.query(ORPHANS_SQL)).toEqual([]);
  }, 180_000);

  it('answers every user as its rows say, whatever its read cache held during the stream', async () => {
    // The same read with no cache at all: straight from the rows.
    const uncached = { query: service.db.query.bind(service.db) };
    for (const userId of USERS) {
      for (const groupId of [undefined, ...GROUPS]) {
        const expected = await readFlowStates(uncached, service.catalog, userId, groupId);
        const query = `userId=${encodeURIComponent(userId)}${groupId ? `&groupId=${encodeURIComponent(groupId)}` : ''}`;
        const answer = await service.call('GET', `/v1/public/flowStates?${query}`);
        expect(answer.status).toBe(200);
        expect(answer.body, `${userId} ${groupId ?? ''}`).toEqual(JSON.parse(JSON.stringify(expected)));
      }
    }
  });
});
