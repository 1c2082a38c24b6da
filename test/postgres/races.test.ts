// Races that once answered 500 on PostgreSQL: a delete against the user's own writes, a guest link against the guest's
// writes, and two guests linking each other. Each gets a defined answer, and nothing is orphaned.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checklistYaml, PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

let service: TestService;
beforeAll(async () => {
  // No write may be shed here: every one of them must race.
  service = await startTestService(
    { 'setup.yaml': checklistYaml('setup') },
    { limits: { userWritesPerMinute: 100_000, maxWaitMs: 600_000 } },
  );
  expect(service.db.kind).toBe('postgres');
});
afterAll(() => service?.close());

const event = (userId: string, name: string) =>
  service.call('POST', '/v1/public/users', { body: { userId, events: [{ event: name }] } });
const transition = (userId: string, stepId: string, actionType: string) =>
  service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug: 'setup', stepId, actionType } });
const count = async (sql: string, params: unknown[]) =>
  Number((await service.db.query<{ n: string }>(sql, params))[0].n);

describe('races on PostgreSQL', () => {
  it("answers a delete racing the user's own writes without a 5xx, and every stored row has its user", async () => {
    for (let round = 0; round < 5; round++) {
      const userId = `user-${randomUUID()}`;
      await event(userId, 'first');
      const writes = Array.from(
        { length: 30 },
        (_, i) => () =>
          i % 2 ? event(userId, `e${i}`) : transition(userId, ['one', 'two', 'three'][i % 3], 'COMPLETED_STEP'),
      );
      const answers = await Promise.all([
        ...writes.slice(0, 15).map((write) => write()),
        service.call('DELETE', `/v1/users?foreignId=${userId}`, { key: PRIVATE_KEY }),
        ...writes.slice(15).map((write) => write()),
      ]);
      // Each write applies (201, to the user as it then is) and the delete either deletes (204) or finds the user gone (404).
      expect(answers.map((a) => a.status).filter((status) => ![201, 204, 404].includes(status))).toEqual([]);
      // Writes after the delete made the user anew; none of their rows lost its user.
      for (const table of ['user_events', 'flow_states', 'step_states', 'flow_responses']) {
        expect(
          await count(
            `SELECT count(*) AS n FROM ${table} t WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = t.user_id)`,
            [],
          ),
        ).toBe(0);
      }
    }
  });

  it("puts a guest's writes racing its link on the user, exactly once, and leaves no guest behind", async () => {
    for (let round = 0; round < 5; round++) {
      const guest = `guest_${randomUUID()}`;
      const userId = `user-${randomUUID()}`;
      await event(guest, 'before');
      const names = Array.from({ length: 30 }, (_, i) => `e${i}`);
      const answers = await Promise.all([
        ...names.slice(0, 15).map((name) => event(guest, name)),
        service.call('POST', '/v1/public/users', { body: { userId, linkGuestId: guest } }),
        ...names.slice(15).map((name) => event(guest, name)),
        transition(guest, 'one', 'COMPLETED_STEP'),
      ]);
      expect(answers.map((a) => a.status).filter((status) => status !== 201)).toEqual([]);
      expect(answers[15].body.guestLinked).toBe(true);
      expect(await count('SELECT count(*) AS n FROM users WHERE id = $1', [guest])).toBe(0);
      const events = await service.db.query<{ event: string }>(
        'SELECT event FROM user_events WHERE user_id = $1 ORDER BY event',
        [userId],
      );
      expect(events.map((e) => e.event).sort()).toEqual(['before', ...names].sort());
      expect(
        await count("SELECT count(*) AS n FROM step_states WHERE user_id = $1 AND step_id = 'one' AND completed", [
          userId,
        ]),
      ).toBe(1);
      // A retry of the guest's write, after the link, still lands on the user.
      expect((await event(guest, 'late')).status).toBe(201);
      expect(await count("SELECT count(*) AS n FROM user_events WHERE user_id = $1 AND event = 'late'", [userId])).toBe(
        1,
      );
      expect(await count('SELECT count(*) AS n FROM users WHERE id = $1', [guest])).toBe(0);
      // And a read of the guest is a read of the user.
      const read = await service.call('GET', `/v1/public/flowStates?userId=${guest}`);
      expect(read.body.eligibleFlows[0].data.steps[0].$state.completed).toBe(true);
    }
  });

  it('links one of two guests that link each other at once, without a deadlock reaching the client', async () => {
    for (let round = 0; round < 10; round++) {
      const a = `guest_${randomUUID()}`;
      const b = `guest_${randomUUID()}`;
      await Promise.all([event(a, 'from-a'), event(b, 'from-b')]);
      const [ab, ba] = await Promise.all([
        service.call('POST', '/v1/public/users', { body: { userId: a, linkGuestId: b } }),
        service.call('POST', '/v1/public/users', { body: { userId: b, linkGuestId: a } }),
      ]);
      expect([ab.status, ba.status]).toEqual([201, 201]);
      // The first link wins; the second finds its guest gone into the other and links nothing.
      expect([ab.body.guestLinked, ba.body.guestLinked].filter(Boolean)).toHaveLength(1);
      const survivors = await service.db.query<{ id: string }>('SELECT id FROM users WHERE id = ANY($1::text[])', [
        [a, b],
      ]);
      expect(survivors).toHaveLength(1);
      const events = await service.db.query<{ event: string }>('SELECT event FROM user_events WHERE user_id = $1', [
        survivors[0].id,
      ]);
      expect(events.map((e) => e.event).sort()).toEqual(['from-a', 'from-b']);
    }
  });
});
