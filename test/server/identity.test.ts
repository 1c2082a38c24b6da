// Identity verification over loopback HTTP: with it required, a public key cannot read or change a user without that user's hash.
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveIdentity } from '../../server/http/identity.js';
import { checklistYaml, PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

const NEW_SECRET = 'new-secret-0123456789abcdef';
const OLD_SECRET = 'old-secret-0123456789abcdef';
const hash = (userId: string, secret = NEW_SECRET) => createHmac('sha256', secret).update(userId).digest('hex');

let required: TestService;
let optional: TestService;
const flows = { 'setup.yaml': checklistYaml('setup') };

beforeAll(async () => {
  required = await startTestService(flows, { identity: { secrets: [NEW_SECRET, OLD_SECRET], required: true } });
  optional = await startTestService(flows);
});
afterAll(async () => {
  await required?.close();
  await optional?.close();
});

const TABLES = [
  'users',
  'user_events',
  'groups',
  'group_members',
  'flow_states',
  'step_states',
  'flow_responses',
  'idempotency_keys',
];
async function rows(service: TestService): Promise<Record<string, unknown[]>> {
  const all: Record<string, unknown[]> = {};
  for (const table of TABLES) all[table] = await service.db.query(`SELECT * FROM ${table} ORDER BY 1, 2`);
  return all;
}

/** Every endpoint that names a user, as a request for `userId` carrying `userHash` (when given). */
const REQUESTS: Record<
  string,
  (userId: string, userHash?: string) => { method: string; path: string; body?: Record<string, unknown> }
> = {
  'GET flowStates': (userId, userHash) => ({
    method: 'GET',
    path: `/v1/public/flowStates?userId=${encodeURIComponent(userId)}${userHash ? `&userHash=${userHash}` : ''}`,
  }),
  'POST flowStates read': (userId, userHash) => ({
    method: 'POST',
    path: '/v1/public/flowStates',
    body: { userId, userHash },
  }),
  'POST flowStates write': (userId, userHash) => ({
    method: 'POST',
    path: '/v1/public/flowStates',
    body: {
      userId,
      userHash,
      flowSlug: 'setup',
      stepId: 'one',
      actionType: 'COMPLETED_STEP',
      data: { answer: 'secret' },
    },
  }),
  'POST users': (userId, userHash) => ({
    method: 'POST',
    path: '/v1/public/users',
    body: { userId, userHash, properties: { plan: 'pro' } },
  }),
  'POST users (foreignId)': (userId, userHash) => ({
    method: 'POST',
    path: '/v1/public/users',
    body: { foreignId: userId, userHash, events: [{ event: 'e' }] },
  }),
  'POST groups': (userId, userHash) => ({
    method: 'POST',
    path: '/v1/public/groups',
    body: { groupId: 'team', userId, userHash },
  }),
  'POST userGroups': (userId, userHash) => ({
    method: 'POST',
    path: '/v1/public/userGroups',
    body: { foreignUserId: userId, foreignUserGroupId: 'team', userHash },
  }),
  'POST sessions': (userId, userHash) => ({
    method: 'POST',
    path: '/v1/public/sessions',
    body: { userId, userHash, userProperties: { plan: 'pro' } },
  }),
};

async function send(
  service: TestService,
  request: { method: string; path: string; body?: Record<string, unknown> },
  key?: string,
) {
  const body =
    request.body && Object.fromEntries(Object.entries(request.body).filter(([, value]) => value !== undefined));
  return service.call(request.method, request.path, { body, ...(key ? { key } : {}) });
}

describe.each(Object.entries(REQUESTS))('%s with identity verification required', (_name, make) => {
  it("succeeds with the user's hash from the current secret or the rotated one", async () => {
    const userId = `user-${randomUUID()}`;
    expect((await send(required, make(userId, hash(userId)))).status).toBeLessThan(300);
    expect((await send(required, make(userId, hash(userId, OLD_SECRET)))).status).toBeLessThan(300);
    expect((await send(required, make(userId, hash(userId).toUpperCase()))).status).toBeLessThan(300);
  });

  it("answers 401 with a problem, and changes nothing, for a missing, wrong or other user's hash", async () => {
    const victim = `user-${randomUUID()}`;
    // The victim has state and answers; an attacker with the public key tries to read or change them.
    await send(required, REQUESTS['POST flowStates write'](victim, hash(victim)));
    const before = await rows(required);
    const attacker = `user-${randomUUID()}`;
    for (const userHash of [
      undefined,
      '',
      'f'.repeat(64),
      hash(attacker),
      hash(victim, 'some-other-secret-0123456'),
      'not-hex',
    ]) {
      const response = await send(required, make(victim, userHash));
      expect(response.status, String(userHash)).toBe(401);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.body).toMatchObject({ status: 401, field: 'userHash' });
      expect(response.body.detail).toMatch(userHash ? /does not match user/ : /must send "userHash"/);
      expect(JSON.stringify(response.body)).not.toContain(NEW_SECRET);
      expect(response.text).not.toContain(hash(victim));
    }
    expect(await rows(required)).toEqual(before);
  });

  it('needs no hash for a guest, nor with a private key', async () => {
    expect((await send(required, make(`guest_${randomUUID()}`))).status).toBeLessThan(300);
    expect((await send(required, make(`user-${randomUUID()}`), PRIVATE_KEY)).status).toBeLessThan(300);
  });
});

describe('guest linking with identity verification required', () => {
  it("links only with the real user's hash; the guest needs none", async () => {
    const guest = `guest_${randomUUID()}`;
    await send(required, REQUESTS['POST flowStates write'](guest));
    const userId = `user-${randomUUID()}`;
    const before = await rows(required);
    const refused = await required.call('POST', '/v1/public/users', { body: { userId, linkGuestId: guest } });
    expect(refused.status).toBe(401);
    const wrong = await required.call('POST', '/v1/public/users', {
      body: { userId, linkGuestId: guest, userHash: hash(guest) },
    });
    expect(wrong.status).toBe(401);
    expect(await rows(required)).toEqual(before);
    const linked = await required.call('POST', '/v1/public/users', {
      body: { userId, linkGuestId: guest, userHash: hash(userId) },
    });
    expect(linked.status).toBe(201);
    expect(linked.body.guestLinked).toBe(true);
    const session = await required.call('POST', '/v1/public/sessions', {
      body: { userId: `user-${randomUUID()}`, linkGuestId: `guest_${randomUUID()}` },
    });
    expect(session.status).toBe(401);
  });
});

describe('without identity verification', () => {
  it('takes requests with no hash, and ignores a hash it cannot check', async () => {
    const userId = `user-${randomUUID()}`;
    for (const make of Object.values(REQUESTS)) {
      expect((await send(optional, make(userId))).status).toBeLessThan(300);
      expect((await send(optional, make(userId, 'whatever'))).status).toBeLessThan(300);
    }
  });

  it('is configured from flags and environment variables, and refuses a requirement without a secret', () => {
    expect(resolveIdentity({}, {})).toEqual({ secrets: [], required: false });
    expect(resolveIdentity({ secret: `${NEW_SECRET}, ${OLD_SECRET}`, require: true }, {})).toEqual({
      secrets: [NEW_SECRET, OLD_SECRET],
      required: true,
    });
    expect(
      resolveIdentity({}, { ONBOARDING_IDENTITY_SECRET: NEW_SECRET, ONBOARDING_REQUIRE_IDENTITY: 'true' }),
    ).toEqual({ secrets: [NEW_SECRET], required: true });
    expect(() => resolveIdentity({ require: true }, {})).toThrow(/needs at least one identity secret/);
    expect(() => resolveIdentity({}, { ONBOARDING_REQUIRE_IDENTITY: 'yes' })).toThrow(/true or false/);
    expect(() => resolveIdentity({ secret: 'short' }, {})).toThrow(/at least 16 characters/);
  });
});
