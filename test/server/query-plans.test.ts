// Every SQL statement a request runs uses an index: each one is recorded during real requests and EXPLAINed with
// sequential scans disabled, so a plan that still scans a table means no index can serve it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../server/storage/store.js';
import { checklistYaml, PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

let service: TestService;
const recorded: Array<{ sql: string; params: unknown[] }> = [];

beforeAll(async () => {
  service = await startTestService({
    'setup.yaml': checklistYaml('setup'),
    'team.yaml': checklistYaml('team', "group.properties.tier == 'gold'"),
    // Events over time: the read then counts in windows and finds last times, for the user and the group.
    'busy.yaml': checklistYaml(
      'busy',
      "user.eventCount('e', duration('168h')) >= 1 && now - group.lastEventAt('x') < duration('24h')",
    ),
    'loyal.yaml': checklistYaml(
      'loyal',
      "group.eventCount('x', duration('720h')) > 2 || user.lastEventAt('a') > timestamp('2026-01-01T00:00:00Z')",
    ),
    'tour.yaml': 'slug: tour\nname: Tour\ntype: TOUR\ndata:\n  steps:\n    - id: nav\n      selector: "#nav"\n',
    'survey.yaml':
      'slug: survey\nname: Survey\ntype: SURVEY\ndata:\n  steps:\n    - id: score\n    - id: pick\n      type: single\n      options: [{ value: a, label: A }, { value: b, label: B }]\n    - id: why\n',
  });
  // Some rows, so the tables are not trivially empty.
  for (let i = 0; i < 30; i++) {
    await service.call('POST', '/v1/public/sessions', {
      body: {
        userId: `seed-${i}`,
        groupId: `g-${i % 3}`,
        userEvents: [
          { event: 'e' },
          {
            event: 'onboarding:target-missing',
            properties: { flowSlug: 'tour', stepId: 'nav', selector: '#nav', page: '/' },
          },
        ],
        groupProperties: { tier: 'gold' },
      },
    });
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId: `seed-${i}`, flowSlug: 'setup', stepId: 'one', actionType: 'COMPLETED_STEP' },
    });
    await service.call('POST', '/v1/public/flowStates', {
      body: {
        userId: `seed-${i}`,
        flowSlug: 'survey',
        stepId: 'score',
        actionType: 'COMPLETED_STEP',
        data: { value: i % 11 },
      },
    });
  }
  // From here on, every statement the service runs is recorded.
  const db = service.db as { query: Queryable['query']; transaction: typeof service.db.transaction };
  const record = (target: Queryable): Queryable => ({
    query: (sql, params = []) => {
      recorded.push({ sql, params });
      return target.query(sql, params);
    },
  });
  const query = db.query.bind(db);
  const transaction = db.transaction.bind(db);
  db.query = (sql, params) => record({ query }).query(sql, params);
  db.transaction = (work) => transaction((tx) => work(record(tx)));
});
afterAll(() => service?.close());

/** Tables whose size grows with users and use; a scan of one of them per request would not scale. */
const GROWING = [
  'users',
  'user_events',
  'user_event_counts',
  'groups',
  'group_events',
  'group_event_counts',
  'group_members',
  'flow_states',
  'step_states',
  'flow_responses',
  'flow_latest_responses',
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

/** Every node of an EXPLAIN (FORMAT JSON) plan, the plan's own wrapper included. */
function planNodes(plan: unknown): Array<Record<string, unknown>> {
  const nodes: Array<Record<string, unknown>> = [];
  const walk = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    const entry = node as Record<string, unknown>;
    nodes.push(entry);
    for (const value of Object.values(entry)) {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') walk(value);
    }
  };
  walk(plan);
  return nodes;
}

/** The rows each table's scans in an EXPLAIN ANALYZE plan returned, summed over the plan. */
function rowsByTable(plan: unknown): Map<string, number> {
  const rows = new Map<string, number>();
  for (const node of planNodes(plan)) {
    const table = node['Relation Name'];
    if (typeof table !== 'string' || typeof node['Actual Rows'] !== 'number') continue;
    const loops = typeof node['Actual Loops'] === 'number' ? node['Actual Loops'] : 1;
    rows.set(table, (rows.get(table) ?? 0) + node['Actual Rows'] * loops);
  }
  return rows;
}

/** The tables a plan reads whole (or, with `key: 'Index Name'`, the indexes it reads). */
function scannedTables(plan: unknown, key: 'Relation Name' | 'Index Name' = 'Relation Name'): string[] {
  return planNodes(plan).flatMap((node) =>
    (key === 'Index Name' || node['Node Type'] === 'Seq Scan') && typeof node[key] === 'string' ? [node[key]] : [],
  );
}

describe('query plans', () => {
  it('use an index for every statement of reads, transitions, upserts, sessions, links, deletes and analytics reports', async () => {
    const userId = `plan-${randomUUID()}`;
    const guest = `guest_${randomUUID()}`;
    const key = { 'Idempotency-Key': randomUUID() };
    // Each read twice: the second of a cached user checks its version on PostgreSQL.
    for (const path of [
      '/v1/public/flowStates?userId=seed-1&groupId=g-1',
      '/v1/public/flowStates?userId=seed-1',
      '/v1/public/flowStates?userId=seed-1&groupId=g-1',
    ]) {
      await service.call('GET', path);
    }
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId: 'seed-2', groupId: 'g-2', knownVersions: { setup: 1 } },
    });
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId: guest, flowSlug: 'setup', stepId: 'one', actionType: 'COMPLETED_STEP', data: { a: 1 } },
    });
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId: guest, flowSlug: 'setup', stepId: 'two', actionType: 'SKIPPED_STEP' },
      headers: key,
    });
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId: guest, flowSlug: 'setup', stepId: 'two', actionType: 'SKIPPED_STEP' },
      headers: key,
    });
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId: guest, flowSlug: 'setup', actionType: 'NOT_STARTED_FLOW' },
    });
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId: guest, flowSlug: 'survey', stepId: 'why', actionType: 'COMPLETED_STEP', data: { value: 'Fine' } },
    });
    const missing = {
      event: 'onboarding:target-missing',
      properties: { flowSlug: 'tour', stepId: 'nav', selector: '#nav', page: '/' },
    };
    await service.call('POST', '/v1/public/users', { body: { userId: guest, events: [missing] } });
    await service.call('POST', '/v1/public/users', { body: { userId, events: [missing] } });
    await service.call('POST', '/v1/public/users', {
      body: {
        userId,
        linkGuestId: guest,
        properties: { plan: 'pro' },
        events: [{ event: 'a' }, { event: 'b' }],
        bootstrapFlowStates: true,
      },
    });
    await service.call('POST', '/v1/public/groups', {
      body: { groupId: 'g-1', userId, properties: { tier: 'gold' }, events: [{ event: 'renewed' }] },
    });
    await service.call('POST', '/v1/public/sessions', {
      body: { userId, groupId: 'g-2', userProperties: { a: 1 }, groupEvents: [{ event: 'x' }] },
    });
    await service.call('GET', `/v1/users?foreignId=${userId}`, { key: PRIVATE_KEY });
    await service.call('DELETE', `/v1/users?foreignId=${userId}`, { key: PRIVATE_KEY });
    for (const path of [
      '/v1/analytics/flows',
      '/v1/analytics/flows/setup?version=1',
      '/v1/analytics/flows/survey',
      '/v1/analytics/flows/tour',
    ]) {
      expect((await service.call('GET', path, { key: PRIVATE_KEY })).status).toBe(200);
    }
    const page = await service.call('GET', '/v1/analytics/flows/survey/responses?limit=2', { key: PRIVATE_KEY });
    await service.call('GET', `/v1/analytics/flows/survey/responses?limit=2&cursor=${page.body.nextCursor}`, {
      key: PRIVATE_KEY,
    });
    await service.call('GET', '/v1/analytics/flows/survey/responses', {
      key: PRIVATE_KEY,
      headers: { Accept: 'text/csv' },
    });

    const statements = [...new Map(recorded.map((entry) => [entry.sql, entry])).values()];
    expect(statements.length).toBeGreaterThan(10);
    const windowed = statements.find(
      ({ sql }) => sql.includes('user_window_times') && sql.includes('group_window_times'),
    );
    expect(windowed).toBeDefined();
    const scans: string[] = [];
    let windowIndexes: string[] = [];
    await service.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      for (const { sql, params } of statements) {
        const [row] = await tx.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
        const tables = scannedTables(row['QUERY PLAN']).filter((table) => GROWING.includes(table));
        if (tables.length) scans.push(`${tables.join(', ')} in: ${sql.replace(/\s+/g, ' ').slice(0, 160)}`);
        if (sql === windowed!.sql) windowIndexes = scannedTables(row['QUERY PLAN'], 'Index Name');
      }
    });
    expect(scans).toEqual([]);
    // The counts in windows and the last times come from the times kept beside the counts, found by their primary
    // keys: a read ranges over no event log.
    expect(windowIndexes).toEqual(expect.arrayContaining(['user_event_counts_pkey', 'group_event_counts_pkey']));
    expect(windowIndexes).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^(user|group)_events_(user|group)_event_time$/)]),
    );
  });

  it("read a user's latest response of each step, not every response the user ever sent", async () => {
    const userId = `history-${randomUUID()}`;
    // 120 transitions in two steps of one flow and the flow's own actions (the first starts it), then one in another flow.
    const actions = ['STARTED_STEP', 'COMPLETED_STEP', 'NOT_STARTED_STEP'];
    for (let i = 0; i < 120; i++) {
      const flowAction = i % 10 === 0;
      const response = await service.call('POST', '/v1/public/flowStates', {
        body: flowAction
          ? { userId, flowSlug: 'setup', actionType: 'STARTED_FLOW' }
          : { userId, flowSlug: 'setup', stepId: i % 2 ? 'one' : 'two', actionType: actions[i % 3], data: { i } },
      });
      expect([200, 201]).toContain(response.status);
    }
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'survey', stepId: 'score', actionType: 'COMPLETED_STEP', data: { value: 7 } },
    });
    recorded.length = 0;
    service.db.cache?.dropUser(userId);
    const read = await service.call('GET', `/v1/public/flowStates?userId=${userId}`);
    expect(read.status).toBe(200);
    const snapshot = recorded.find(({ sql }) => sql.includes('AS responses'));
    expect(snapshot).toBeDefined();
    const [row] = await service.db.query<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${snapshot!.sql}`,
      snapshot!.params,
    );
    const rows = rowsByTable(row['QUERY PLAN']);
    // Four latest responses (steps one and two, the flow's own actions, the survey's step), whatever the history.
    expect(rows.get('flow_responses') ?? 0).toBe(0);
    expect(rows.get('flow_latest_responses')).toBe(4);
    // The kept rows are the log's newest response per key, as the read once picked them out of the log.
    const fromLog = await service.db.query<Record<string, unknown>>(
      `SELECT DISTINCT ON (flow_slug, step_key) id, flow_slug, step_id, action_type, data
       FROM (SELECT *, CASE WHEN action_type LIKE '%FLOW' THEN NULL ELSE step_id END AS step_key
             FROM flow_responses WHERE user_id = $1) AS log
       ORDER BY flow_slug, step_key, id DESC`,
      [userId],
    );
    const kept = await service.db.query<Record<string, unknown>>(
      'SELECT response_id AS id, flow_slug, step_id, action_type, data FROM flow_latest_responses WHERE user_id = $1',
      [userId],
    );
    const byId = (a: Record<string, unknown>, b: Record<string, unknown>) => Number(a.id) - Number(b.id);
    expect(kept.sort(byId)).toEqual(fromLog.sort(byId));
    // And the answer holds each step's latest.
    const flows = read.body.eligibleFlows as Array<{
      flowSlug: string;
      data: { steps: Array<{ id: string; $state: { flowResponses: Array<{ actionType: string; data: string }> } }> };
    }>;
    const setup = flows.find((flow) => flow.flowSlug === 'setup')!;
    const latest = (stepId: string) => setup.data.steps.find((step) => step.id === stepId)!.$state.flowResponses;
    const logged = (stepId: string) =>
      fromLog
        .filter((r) => r.flow_slug === 'setup' && r.step_id === stepId && !String(r.action_type).endsWith('FLOW'))
        .map((r) => [r.action_type, JSON.parse(String(r.data))]);
    expect(logged('one')).toHaveLength(1);
    expect(latest('one').map((r) => [r.actionType, JSON.parse(r.data)])).toEqual(logged('one'));
    expect(latest('two').map((r) => [r.actionType, JSON.parse(r.data)])).toEqual(logged('two'));
  });
});
