// Events over time in CEL over loopback HTTP: eventCount in a window, lastEventAt, on user and group, through the read cache, on the service's clock, and their checks at load.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogVersion } from '../../server/flows/catalog.js';
import { compileExpression, eventCallsOf } from '../../server/targeting/cel.js';
import { countKey, eventWindowSets } from '../../server/targeting/event-window-calls.js';
import { KEPT_EVENT_TIMES } from '../../server/storage/schema.js';
import {
  windowColumnsSql,
  windowsFromRows,
  windowsFromTimes,
  type WindowCountRow,
  type WindowLastRow,
} from '../../server/state/event-window-values.js';
import { eligibleSlugs, startTestService, targetedCards, type TestService } from '../support/service.js';

let service: TestService;
/** The service's clock: the wall clock unless a test sets it. */
let clock: number | undefined;
const HOUR = 3_600_000;

/** One CARD flow per expression, so eligibility shows whether the expression held. */
const EXPRESSIONS: Record<string, string> = {
  'third-export-this-week': "user.eventCount('exported', duration('168h')) >= 3",
  'one-export-this-hour': "user.eventCount('exported', duration('1h')) == 1",
  'exported-today': "now - user.lastEventAt('exported') < duration('24h')",
  'exported-this-year': "user.lastEventAt('exported') > timestamp('2026-01-01T00:00:00Z')",
  'never-exported': "user.lastEventAt('exported') == timestamp(0)",
  'idle-30-days': "now - user.lastEventAt('active') > duration('720h')",
  'exports-ever': 'has(user.events.exported) && user.events.exported >= 3',
  'pinged-lately': "user.eventCount('ping', duration('4s')) >= 1",
  'renewed-twice-this-month': "group.eventCount('renewed', duration('720h')) == 2",
  'group-renewed-today': "now - group.lastEventAt('renewed') < duration('24h')",
  'busy-week': "user.eventCount('busy', duration('168h')) == 40",
  'busy-ten-hours': "user.eventCount('busy', duration('10h')) == 10",
  'busy-this-hour': "now - user.lastEventAt('busy') < duration('1h')",
};

beforeAll(async () => {
  service = await startTestService(targetedCards(EXPRESSIONS), { now: () => new Date(clock ?? Date.now()) });
});
afterAll(() => service?.close());

const eligible = (userId: string, groupId?: string) => eligibleSlugs(service, userId, groupId);

const track = (userId: string, ...events: string[]) =>
  service.call('POST', '/v1/public/users', { body: { userId, events: events.map((event) => ({ event })) } });

/**
 * Moves a user's or group's events of one name into the past, the nth by `hoursAgo[n]`, in the order they were
 * tracked. Behind the service's back, so its cached entry is dropped as a write through it would. The times are
 * taken from the service's clock, as it stamps events, not the database's `now()`: that has microseconds, so an event
 * moved to 0 hours ago could fall after a read made within the same millisecond, and count as not yet happened.
 */
async function backdate(kind: 'user' | 'group', id: string, event: string, hoursAgo: number[]): Promise<void> {
  const [table, key] = kind === 'user' ? ['user_events', 'user_id'] : ['group_events', 'group_id'];
  const rows = await service.db.query<{ id: string }>(
    `SELECT id FROM ${table} WHERE ${key} = $1 AND event = $2 ORDER BY id`,
    [id, event],
  );
  const now = new Date(clock ?? Date.now());
  for (const [index, hours] of hoursAgo.entries()) {
    await service.db.query(`UPDATE ${table} SET created_at = $3::timestamptz - $2 * interval '1 hour' WHERE id = $1`, [
      rows[index].id,
      hours,
      now,
    ]);
  }
  if (kind === 'user') service.db.cache?.dropUser(id);
  else service.db.cache?.dropGroup(id);
}

describe('user.eventCount', () => {
  it('targets the third export of the week only once it happens, and reads each new event at once', async () => {
    const userId = `win-${randomUUID()}`;
    await track(userId, 'exported', 'exported');
    expect(await eligible(userId)).not.toContain('third-export-this-week');
    // A second read comes from the cache; the third event must still show.
    expect(await eligible(userId)).not.toContain('third-export-this-week');
    await track(userId, 'exported');
    expect(await eligible(userId)).toEqual(expect.arrayContaining(['third-export-this-week', 'exports-ever']));
  });

  it('counts only the events inside the window, which ends now', async () => {
    const userId = `win-${randomUUID()}`;
    await track(userId, 'exported', 'exported', 'exported');
    await backdate('user', userId, 'exported', [200, 100, 0]);
    const flows = await eligible(userId);
    // Three ever, two this week, one this hour.
    expect(flows).toEqual(expect.arrayContaining(['exports-ever', 'one-export-this-hour']));
    expect(flows).not.toContain('third-export-this-week');
  });

  it('drops a kept count when its oldest event leaves the window, with no write in between', async () => {
    const userId = `win-${randomUUID()}`;
    await track(userId, 'ping');
    const [row] = await service.db.query<{ at: Date | string }>(
      'SELECT created_at AS at FROM user_events WHERE user_id = $1',
      [userId],
    );
    expect(await eligible(userId)).toContain('pinged-lately');
    expect(await eligible(userId)).toContain('pinged-lately');
    // Until the ping is four seconds old (the window), and a little more.
    const leaves = new Date(row.at).getTime() + 4_000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, leaves - Date.now()) + 200));
    expect(await eligible(userId)).not.toContain('pinged-lately');
  });
});

describe('the times kept beside the counts', () => {
  it('answer a window from the latest times, and one reaching past them from the log', async () => {
    const userId = `win-${randomUUID()}`;
    await track(userId, ...Array.from({ length: 40 }, () => 'busy'));
    // 40 now: more than the kept times, all newer than a week ago, so the week is counted from the log.
    let flows = await eligible(userId);
    expect(flows).toEqual(expect.arrayContaining(['busy-week', 'busy-this-hour']));
    expect(flows).not.toContain('busy-ten-hours');
    // One an hour, the latest half an hour ago: ten in the last ten hours, from the kept times; the week from the log.
    await backdate(
      'user',
      userId,
      'busy',
      Array.from({ length: 40 }, (_, n) => 39.5 - n),
    );
    flows = await eligible(userId);
    expect(flows).toEqual(expect.arrayContaining(['busy-week', 'busy-ten-hours', 'busy-this-hour']));
  });

  it('say which windows they cannot answer: those that start before the oldest kept time of a name with more events', () => {
    const now = new Date('2026-12-01T12:00:00Z');
    const at = now.getTime();
    const kept = Array.from({ length: KEPT_EVENT_TIMES }, (_, n) => at - (KEPT_EVENT_TIMES - n) * HOUR);
    const set = {
      counts: [
        ['busy', 10 * HOUR],
        ['busy', 168 * HOUR],
        ['rare', 168 * HOUR],
        ['none', HOUR],
      ] as Array<[string, number]>,
      last: ['busy', 'rare'],
      key: 'k',
    };
    const { counts, last, missing } = windowsFromTimes(
      set,
      [
        ['busy', 100, kept],
        ['rare', 2, [at - 2 * HOUR, at + HOUR]],
      ],
      now,
    );
    expect(missing).toEqual({ counts: [['busy', 168 * HOUR]], last: [], key: 'k' });
    expect(counts).toEqual([
      ['busy', 10 * HOUR, 9, at - 9 * HOUR, null],
      ['rare', 168 * HOUR, 1, at - 2 * HOUR, at + HOUR],
      ['none', HOUR, 0, null, null],
    ]);
    expect(last).toEqual([
      ['busy', at - HOUR, null],
      ['rare', at - 2 * HOUR, at + HOUR],
    ]);
    // Every kept time after now, with older events not kept: the last time up to now is in the log.
    const ahead = windowsFromTimes(set, [['busy', 100, kept.map((t) => t + 40 * HOUR)]], now);
    expect(ahead.missing?.last).toEqual(['busy']);
  });

  it("keep a linked guest's events, which the user then counts", async () => {
    const guest = `guest_${randomUUID()}`;
    const userId = `win-${randomUUID()}`;
    await track(guest, 'exported', 'exported', 'exported');
    expect(await eligible(guest)).toContain('third-export-this-week');
    await track(userId, 'exported');
    const link = await service.call('POST', '/v1/public/users', { body: { userId, linkGuestId: guest } });
    expect(link.status).toBeLessThan(300);
    const [row] = await service.db.query<{ count: number | string; times: number[] }>(
      "SELECT count, times FROM user_event_counts WHERE user_id = $1 AND event = 'exported'",
      [userId],
    );
    expect(Number(row.count)).toBe(4);
    expect(row.times).toHaveLength(4);
    expect(await eligible(userId)).toEqual(expect.arrayContaining(['third-export-this-week', 'exported-today']));
  });
});

describe('user.lastEventAt', () => {
  it('answers the time of the latest event, and timestamp(0) when there is none', async () => {
    const userId = `win-${randomUUID()}`;
    const before = await eligible(userId);
    expect(before).toEqual(expect.arrayContaining(['never-exported', 'idle-30-days']));
    expect(before).not.toContain('exported-this-year');
    expect(before).not.toContain('exported-today');
    await track(userId, 'exported', 'active');
    const after = await eligible(userId);
    expect(after).toEqual(expect.arrayContaining(['exported-today', 'exported-this-year']));
    expect(after).not.toContain('never-exported');
    expect(after).not.toContain('idle-30-days');
    await backdate('user', userId, 'active', [31 * 24]);
    await backdate('user', userId, 'exported', [25]);
    const later = await eligible(userId);
    expect(later).toEqual(expect.arrayContaining(['idle-30-days', 'exported-this-year']));
    expect(later).not.toContain('exported-today');
  });
});

describe('the read time', () => {
  afterEach(() => {
    clock = undefined;
  });

  it("measures windows to the service's clock, which also stamps the tracked events", async () => {
    const userId = `win-${randomUUID()}`;
    const start = Date.now() - 1_000 * HOUR;
    clock = start;
    await track(userId, 'exported', 'exported', 'exported');
    let flows = await eligible(userId);
    expect(flows).toEqual(expect.arrayContaining(['third-export-this-week', 'exported-today']));
    expect(flows).not.toContain('one-export-this-hour');
    // 100 hours on: still this week, no longer today; the kept counts hold, and are read again once one changes.
    clock = start + 100 * HOUR;
    flows = await eligible(userId);
    expect(flows).toContain('third-export-this-week');
    expect(flows).not.toContain('exported-today');
    clock = start + 168 * HOUR + 1;
    flows = await eligible(userId);
    expect(flows).not.toContain('third-export-this-week');
    expect(flows).toEqual(expect.arrayContaining(['exports-ever', 'exported-this-year']));
  });

  it('counts no event stamped after the read time, even when the clock is set back past a kept count', async () => {
    const userId = `win-${randomUUID()}`;
    const start = Date.now();
    clock = start;
    await track(userId, 'exported', 'exported', 'exported');
    expect(await eligible(userId)).toEqual(expect.arrayContaining(['third-export-this-week', 'exported-today']));
    clock = start - 48 * HOUR;
    const before = await eligible(userId);
    expect(before).toContain('never-exported');
    expect(before).not.toContain('third-export-this-week');
    expect(before).not.toContain('exported-today');
    // A clock moving on to the events counts them again.
    clock = start;
    expect(await eligible(userId)).toContain('third-export-this-week');
  });
});

describe('group.eventCount and group.lastEventAt', () => {
  it('read the events of the group the read names', async () => {
    const userId = `win-${randomUUID()}`;
    const groupId = `team-${randomUUID()}`;
    const renew = () =>
      service.call('POST', '/v1/public/groups', { body: { groupId, userId, events: [{ event: 'renewed' }] } });
    await renew();
    await renew();
    await renew();
    await backdate('group', groupId, 'renewed', [800, 48, 30]);
    let flows = await eligible(userId, groupId);
    expect(flows).toContain('renewed-twice-this-month');
    expect(flows).not.toContain('group-renewed-today');
    await renew();
    flows = await eligible(userId, groupId);
    expect(flows).toContain('group-renewed-today');
    expect(flows).not.toContain('renewed-twice-this-month');
    // A read without a group counts nothing for it.
    expect(await eligible(userId)).not.toContain('renewed-twice-this-month');
    expect(await eligible(userId)).not.toContain('group-renewed-today');
  });
});

describe('the load of flow files', () => {
  it.each([
    [
      'a window that is no duration',
      "user.eventCount('exported', duration('a week')) >= 3",
      /duration\('a week'\) is not a duration/,
    ],
    ['a window of zero', "user.eventCount('exported', duration('0s')) >= 3", /must be longer than zero/],
    [
      'a count as the window',
      "user.eventCount('exported', 3) >= 3",
      /user\.eventCount takes an event name and a window, both literals/,
    ],
    [
      'an event name that is not a string literal',
      "user.eventCount(user.properties.e, duration('1h')) > 0",
      /takes an event name and a window/,
    ],
    [
      'lastEventAt with a window',
      "group.lastEventAt('exported', duration('1h')) > now",
      /group\.lastEventAt takes one event name/,
    ],
    [
      'a call on something other than user or group',
      "flows.eventCount('exported', duration('1h')) > 0",
      /eventCount is called on user or group/,
    ],
    ['a call as a function', "lastEventAt('exported') > now", /lastEventAt is called on user or group/],
  ])('refuses %s, naming the file and the line', async (_name, expression, problem) => {
    const file = `bad-${randomUUID()}.yaml`;
    await service.writeFlow(
      file,
      `slug: bad-${randomUUID()}\nname: Bad\ntype: CARD\ntargetingLogic: ${JSON.stringify(expression)}\ndata:\n  steps:\n    - id: s\n`,
    );
    const error = service.catalog.errors().find((e) => e.file === file);
    await service.removeFlow(file);
    expect(error?.message).toMatch(/^targetingLogic \(line 4\): does not compile as CEL: /);
    expect(error?.message).toMatch(problem);
  });
});

describe('a window past the bound', () => {
  const TEN_THOUSAND_YEARS = "user.eventCount('exported', duration('87600000h')) >= 1";

  it('is refused at load, naming the file and the line', async () => {
    const file = `bad-${randomUUID()}.yaml`;
    await service.writeFlow(
      file,
      `slug: bad-${randomUUID()}\nname: Bad\ntype: CARD\ntargetingLogic: ${JSON.stringify(TEN_THOUSAND_YEARS)}\ndata:\n  steps:\n    - id: s\n`,
    );
    const error = service.catalog.errors().find((e) => e.file === file);
    await service.removeFlow(file);
    expect(error?.message).toMatch(
      /^targetingLogic \(line 4\): user\.eventCount\('exported', …\): the window is over 100 years \(876600h\), the longest there is; for "ever", use user\.events$/,
    );
  });

  it('is clamped when a flow got past the check: reads, upserts and batches answer, and the flow counts 100 years back', async () => {
    // A flow file with a window the check refuses, served all the same: its targeting compiled from the text, and its
    // windows put in the catalog, as a file from before the check (or a check skipped) would be.
    const slug = 'forever-exported';
    const expression = `${TEN_THOUSAND_YEARS} && user.eventCount('exported', duration('1000000000000000h')) >= 1`;
    await service.writeFlow(`${slug}.yaml`, targetedCards({ [slug]: 'true' })[`${slug}.yaml`]);
    const loaded = service.catalog.current();
    const patched: CatalogVersion = {
      ...loaded,
      flows: loaded.flows.map((flow) =>
        flow.flow.slug === slug ? { ...flow, targeting: compileExpression(expression, () => {}) } : flow,
      ),
      eventWindows: eventWindowSets(
        loaded.flows
          .flatMap((flow) => [flow.definition.targetingLogic])
          .concat(expression)
          .flatMap(eventCallsOf),
      ),
    };
    service.catalog.current = () => patched;
    try {
      const userId = `win-${randomUUID()}`;
      // The upsert reads the user's state too, to bootstrap.
      const upsert = await service.call('POST', '/v1/public/users', {
        body: { userId, events: [{ event: 'exported' }], bootstrapFlowStates: true },
      });
      expect(upsert.status).toBe(201);
      const batch = await service.call('POST', '/v1/public/batch', {
        body: {
          writes: [{ path: 'users', idempotencyKey: randomUUID(), body: { userId, events: [{ event: 'exported' }] } }],
        },
      });
      expect(batch.status).toBe(200);
      expect(batch.body.results).toEqual([{ status: 201, guestLinked: false }]);
      expect(batch.body.flowStates.eligibleFlows.map((flow: { flowSlug: string }) => flow.flowSlug)).toContain(slug);
      expect(await eligible(userId)).toContain(slug);
      // Events a century and a day old are outside the clamped window.
      await backdate('user', userId, 'exported', [(36_525 + 1) * 24, (36_525 + 1) * 24]);
      expect(await eligible(userId)).not.toContain(slug);
    } finally {
      delete (service.catalog as { current?: unknown }).current;
      await service.removeFlow(`${slug}.yaml`);
    }
  });
});

describe('an event name no event can have', () => {
  it('passes the check, and reads as no events instead of failing the read', async () => {
    // A CEL escape makes a NUL, which PostgreSQL cannot hold in text: no tracked event can have the name.
    const slug = `nul-${randomUUID()}`;
    const expression =
      "user.eventCount('\\x00', duration('1h')) == 0 && user.lastEventAt('\\x00') == timestamp(0) && group.eventCount('\\x00', duration('1h')) == 0";
    await service.writeFlow(`${slug}.yaml`, targetedCards({ [slug]: expression })[`${slug}.yaml`]);
    try {
      expect(service.catalog.errors()).toEqual([]);
      const userId = `win-${randomUUID()}`;
      expect(
        (await service.call('POST', '/v1/public/users', { body: { userId, events: [{ event: 'exported' }] } })).status,
      ).toBe(201);
      expect(await eligible(userId, `team-${randomUUID()}`)).toContain(slug);
    } finally {
      await service.removeFlow(`${slug}.yaml`);
    }
  });
});

describe('the last time of a name a window also counts', () => {
  const set = { counts: [['exported', 168 * HOUR]] as Array<[string, number]>, last: ['active', 'exported'], key: 'k' };
  const columns = `SELECT ${windowColumnsSql('user', set, '$1', '$2')}`;

  it('takes one range of the index, not two: the first event after now comes with the count', async () => {
    const [row] = await service.db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${columns}`, [
      'someone',
      new Date(),
    ]);
    // Each scan of the events, whether the planner takes the index or (on a small table) the table itself.
    const ranges = JSON.stringify(row['QUERY PLAN']).match(/"Relation Name":"user_events"/g) ?? [];
    // The count of `exported` and its last time, and the last time of `active` with its first event after now.
    expect(ranges).toHaveLength(4);
  });

  it('still says when an event stamped after the read time enters the window', async () => {
    const userId = `win-${randomUUID()}`;
    await track(userId, 'exported', 'exported', 'active');
    await backdate('user', userId, 'exported', [30, -5]);
    await backdate('user', userId, 'active', [-2]);
    const now = new Date();
    const [row] = await service.db.query<Record<string, unknown>>(columns, [userId, now]);
    const windows = windowsFromRows(
      set,
      row.user_window_counts as WindowCountRow[],
      row.user_window_last as WindowLastRow[],
      now,
    );
    expect(windows.counts).toEqual([[countKey('exported', 168 * HOUR), 1]]);
    expect(windows.last.map(([event]) => event)).toEqual(['exported']);
    // The sooner of the two events after now: `active`, in 2 hours, found by its own probe.
    expect(windows.expiresAt).toBeGreaterThan(now.getTime() + 2 * HOUR - 60_000);
    expect(windows.expiresAt).toBeLessThan(now.getTime() + 2 * HOUR + 60_000);
    // Without `active`, the export in 5 hours, which came with the count.
    const [alone] = await service.db.query<Record<string, unknown>>(
      `SELECT ${windowColumnsSql('user', { ...set, last: ['exported'] }, '$1', '$2')}`,
      [userId, now],
    );
    const exportsOnly = windowsFromRows(
      set,
      alone.user_window_counts as WindowCountRow[],
      alone.user_window_last as WindowLastRow[],
      now,
    );
    expect(exportsOnly.expiresAt).toBeGreaterThan(now.getTime() + 5 * HOUR - 60_000);
    expect(exportsOnly.expiresAt).toBeLessThan(now.getTime() + 5 * HOUR + 60_000);
  });
});
