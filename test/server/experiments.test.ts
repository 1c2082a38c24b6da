// Experiments over loopback HTTP on both stores: the documented assignment, the split, stickiness across login, variants
// held back on every endpoint, paused and ended, exposures and conversions at the window's edges, the report, the
// participants CSV, a flow's goal, and experiments.yaml's checks.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AnalyticsFlowResponse,
  BatchResponse,
  ExperimentReport,
  ExperimentsReportResponse,
  FlowStatesResponse,
  UserUpsertResponse,
} from '../../src/api/wire.js';
import { checkPaths, formatReport } from '../../server/flows/cli.js';
import { checkExperimentsText } from '../../server/flows/experiments.js';
import { bannerFlowYaml, checklistYaml, PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

const DAY = 86_400_000;
const START = Date.UTC(2026, 5, 1, 9);
let clock = START;
let service: TestService;

const experimentsYaml = (status = 'running', extra = '') => `experiments:
  - id: welcome-copy
    status: ${status}
    goal: { event: dashboard.created, within: 7d }
    variants:
      - { id: control, weight: 50 }
      - { id: short, flow: welcome-short, weight: 25 }
      - { id: long, flow: welcome-long, weight: 25 }
${extra}`;

const FLOWS: Record<string, string> = {
  'welcome-short.yaml': bannerFlowYaml('welcome-short', 'Hi'),
  'welcome-long.yaml': bannerFlowYaml('welcome-long', 'Hello, and welcome to the whole product'),
  'other.yaml': checklistYaml('other'),
  'goal-tour.yaml': `${checklistYaml('goal-tour')}goal: { event: report.exported, within: 2d }\n`,
  'experiments.yaml': experimentsYaml(),
};

/** The documented assignment, written out again from docs/protocol.md. */
function reference(experimentId: string, userId: string, variants: Array<[string, number]>): string {
  const digest = createHash('sha256')
    .update(Buffer.from(`${experimentId}.${userId}`, 'utf8'))
    .digest();
  const bucket = digest.readUInt32BE(0) % 10_000;
  const total = variants.reduce((sum, [, weight]) => sum + weight, 0);
  let cumulative = 0;
  for (const [id, weight] of variants) {
    cumulative += weight;
    if (bucket < Math.floor((10_000 * cumulative) / total)) return id;
  }
  return variants.at(-1)![0];
}
const WELCOME: Array<[string, number]> = [
  ['control', 50],
  ['short', 25],
  ['long', 25],
];

/** The visible flows of the experiment in an answer. */
const visibleOf = (states: FlowStatesResponse) =>
  states.eligibleFlows
    .filter((flow) => flow.flowSlug.startsWith('welcome-') && flow.$state.visible)
    .map((flow) => flow.flowSlug);

const read = async (userId: string) =>
  (await service.call('GET', `/v1/public/flowStates?userId=${encodeURIComponent(userId)}`)).body as FlowStatesResponse;

const report = async (id = 'welcome-copy') =>
  (await service.call('GET', `/v1/analytics/experiments/${id}`, { key: PRIVATE_KEY })).body as ExperimentReport;

const track = (userId: string, event: string) =>
  service.call('POST', '/v1/public/users', { body: { userId, events: [{ event }] } });

beforeAll(async () => {
  // Thousands of reads from one address in a minute: more than a visitor's limit.
  service = await startTestService(FLOWS, { now: () => new Date(clock), limits: { requestsPerMinute: 100_000 } });
});
afterAll(() => service?.close());

describe('experiments', () => {
  it('assigns by the documented function, splits within a chi-square test of the weights, and shows only the variant', async () => {
    const counts: Record<string, number> = { control: 0, short: 0, long: 0 };
    const ids = Array.from({ length: 3000 }, (_, index) => `split-${index}`);
    for (let start = 0; start < ids.length; start += 50) {
      await Promise.all(
        ids.slice(start, start + 50).map(async (id) => {
          const states = await read(id);
          const expected = reference('welcome-copy', id, WELCOME);
          counts[expected]++;
          expect(states.experiments).toEqual([
            { id: 'welcome-copy', variant: expected, exposedAt: expect.any(String) },
          ]);
          expect(visibleOf(states)).toEqual(expected === 'control' ? [] : [`welcome-${expected}`]);
        }),
      );
    }
    const chiSquare = WELCOME.reduce((sum, [id, weight]) => {
      const expected = (ids.length * weight) / 100;
      return sum + (counts[id] - expected) ** 2 / expected;
    }, 0);
    // df = 2: p = exp(-x/2).
    expect(Math.exp(-chiSquare / 2)).toBeGreaterThan(0.001);
    const csv = (
      await service.call('GET', '/v1/analytics/experiments/welcome-copy/participants.csv', { key: PRIVATE_KEY })
    ).text;
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe('user_id,variant,exposed_at,converted_at');
    const byUser = new Map(
      lines
        .slice(1)
        .map((line) => line.split(','))
        .map(([user, variant]) => [user, variant]),
    );
    for (const id of ids) expect(byUser.get(id)).toBe(reference('welcome-copy', id, WELCOME));
    const figures = await report();
    expect(figures.variants.map((variant) => variant.exposed)).toEqual([counts.control, counts.short, counts.long]);
  }, 120_000);

  it('records each exposure once, with its first time, whatever the endpoint', async () => {
    clock = START + 1000;
    const first = (
      (await service.call('POST', '/v1/public/users', { body: { userId: 'once' } })).body as UserUpsertResponse
    ).flowStates;
    clock = START + 5000;
    const again = (await service.call('POST', '/v1/public/flowStates', { body: { userId: 'once' } }))
      .body as FlowStatesResponse;
    expect(again.experiments).toEqual(first.experiments);
    expect(first.experiments?.[0]?.exposedAt).toBe(new Date(START + 1000).toISOString());
    expect(again.experiments).toEqual((await read('once')).experiments);
    // A transition's answer is an answer too: the first one exposes the user.
    const written = await service.call('POST', '/v1/public/flowStates', {
      body: { userId: 'first-a-write', flowSlug: 'other', stepId: 'one', actionType: 'STARTED_FLOW' },
    });
    expect(written.status).toBe(201);
    const variant = reference('welcome-copy', 'first-a-write', WELCOME);
    expect((written.body as FlowStatesResponse).experiments).toEqual([
      { id: 'welcome-copy', variant, exposedAt: new Date(START + 5000).toISOString() },
    ]);
    expect(visibleOf(written.body as FlowStatesResponse)).toEqual(variant === 'control' ? [] : [`welcome-${variant}`]);
    const record = await service.call('GET', '/v1/users?foreignId=once', { key: PRIVATE_KEY });
    expect(record.body.experiments).toEqual(first.experiments);
  });

  it("keeps a guest's variant for the user it is linked to", async () => {
    // A guest and a user the function puts in different variants.
    let n = 0;
    let guest = '';
    let user = '';
    while (!guest) {
      const g = `guest_sticky${n}`;
      const u = `sticky-user-${n++}`;
      if (reference('welcome-copy', g, WELCOME) !== reference('welcome-copy', u, WELCOME)) [guest, user] = [g, u];
    }
    const asGuest = (await service.call('POST', '/v1/public/users', { body: { userId: guest } }))
      .body as UserUpsertResponse;
    const variant = reference('welcome-copy', guest, WELCOME);
    expect(asGuest.flowStates.experiments?.[0]?.variant).toBe(variant);
    const linked = (await service.call('POST', '/v1/public/users', { body: { userId: user, linkGuestId: guest } }))
      .body as UserUpsertResponse;
    expect(linked.guestLinked).toBe(true);
    expect(linked.flowStates.experiments?.[0]?.variant).toBe(variant);
    expect(visibleOf(linked.flowStates)).toEqual(variant === 'control' ? [] : [`welcome-${variant}`]);
    expect((await read(user)).experiments?.[0]?.variant).toBe(variant);
    const csv = (
      await service.call('GET', '/v1/analytics/experiments/welcome-copy/participants.csv', { key: PRIVATE_KEY })
    ).text;
    expect(csv).toContain(`\r\n${user},${variant},`);
    expect(csv).not.toContain(guest);
  });

  it('holds both variant flows back from a control user on every endpoint', async () => {
    let n = 0;
    while (reference('welcome-copy', `control-${n}`, WELCOME) !== 'control') n++;
    const userId = `control-${n}`;
    const hiddenIn = (states: FlowStatesResponse) => {
      const flows = states.eligibleFlows.filter((flow) => flow.flowSlug.startsWith('welcome-'));
      expect(flows.every((flow) => flow.$state.visible === false)).toBe(true);
      expect(states.eligibleFlows.find((flow) => flow.flowSlug === 'other')?.$state.visible).toBe(true);
    };
    const upsert = (await service.call('POST', '/v1/public/users', { body: { userId } })).body as UserUpsertResponse;
    hiddenIn(upsert.flowStates);
    hiddenIn(await read(userId));
    hiddenIn((await service.call('POST', '/v1/public/flowStates', { body: { userId } })).body as FlowStatesResponse);
    hiddenIn(
      (await service.call('GET', `/v1/public/flowStates?userId=${userId}&targetedOut=hidden`))
        .body as FlowStatesResponse,
    );
    const session = await service.call('POST', '/v1/public/sessions', { body: { userId, groupId: 'acme' } });
    hiddenIn(session.body.flowStates as FlowStatesResponse);
    const batch = await service.call('POST', '/v1/public/batch', {
      body: { userId, operations: [{ type: 'track', event: 'x' }] },
    });
    if (batch.status === 200) hiddenIn((batch.body as BatchResponse).flowStates!);
    expect(upsert.flowStates.experiments?.[0]?.variant).toBe('control');
  });

  it('paused holds every variant back and assigns no one; ended gives everyone the winner, or none', async () => {
    const exposed = 'split-1';
    const variant = reference('welcome-copy', exposed, WELCOME);
    await service.writeFlow('experiments.yaml', experimentsYaml('paused'));
    const fresh = await read('after-pause');
    expect(fresh.experiments).toBeUndefined();
    expect(visibleOf(fresh)).toEqual([]);
    expect(visibleOf(await read(exposed))).toEqual([]);
    await service.writeFlow('experiments.yaml', experimentsYaml('ended', '    winner: long\n'));
    for (const id of ['after-pause', exposed, 'after-end']) expect(visibleOf(await read(id))).toEqual(['welcome-long']);
    await service.writeFlow('experiments.yaml', experimentsYaml('ended'));
    expect(visibleOf(await read('after-end'))).toEqual([]);
    await service.writeFlow('experiments.yaml', experimentsYaml('running'));
    const csv = (
      await service.call('GET', '/v1/analytics/experiments/welcome-copy/participants.csv', { key: PRIVATE_KEY })
    ).text;
    expect(csv).not.toContain('after-pause');
    expect(csv).not.toContain('after-end');
    expect(visibleOf(await read(exposed))).toEqual(variant === 'control' ? [] : [`welcome-${variant}`]);
  });

  it("counts a conversion at the exposure and at the window's last millisecond, not before the exposure or after the window", async () => {
    const before = await report();
    const users = { atStart: 'conv-a', atEnd: 'conv-b', late: 'conv-c', early: 'conv-d', never: 'conv-e' };
    // Tracked while the experiment is paused, so no answer exposes the user before the event.
    await service.writeFlow('experiments.yaml', experimentsYaml('paused'));
    clock = START + 10 * DAY;
    await track(users.early, 'dashboard.created');
    await service.writeFlow('experiments.yaml', experimentsYaml('running'));
    clock = START + 11 * DAY;
    for (const id of Object.values(users)) await read(id);
    await track(users.atStart, 'dashboard.created');
    clock = START + 18 * DAY;
    await track(users.atEnd, 'dashboard.created');
    clock = START + 18 * DAY + 1;
    await track(users.late, 'dashboard.created');
    const after = await report();
    const added = (id: string) => {
      const variant = reference('welcome-copy', id, WELCOME);
      const now = after.variants.find((v) => v.id === variant)!;
      const then = before.variants.find((v) => v.id === variant)!;
      return [now.exposed - then.exposed, now.converted - then.converted];
    };
    const total =
      after.variants.reduce((sum, v) => sum + v.converted, 0) -
      before.variants.reduce((sum, v) => sum + v.converted, 0);
    expect(total).toBe(2);
    expect(after.exposed - before.exposed).toBe(5);
    for (const id of [users.atStart, users.atEnd]) expect(added(id)[1]).toBeGreaterThanOrEqual(1);
    const csv = (
      await service.call('GET', '/v1/analytics/experiments/welcome-copy/participants.csv', { key: PRIVATE_KEY })
    ).text;
    const rows = new Map(
      csv
        .trim()
        .split('\r\n')
        .slice(1)
        .map((line) => [line.split(',')[0], line.split(',')]),
    );
    expect(rows.get(users.atStart)?.[3]).toBe(new Date(START + 11 * DAY).toISOString());
    expect(rows.get(users.atEnd)?.[3]).toBe(new Date(START + 18 * DAY).toISOString());
    for (const id of [users.late, users.early, users.never]) expect(rows.get(id)?.[3]).toBe('');
  });

  it('reports each variant with its figures and names the methods; lists every experiment', async () => {
    const figures = await report();
    expect(figures.baseline).toBe('control');
    expect(figures.methods.interval).toBe('wilson-score-95');
    expect(figures.variants[0]).toMatchObject({ id: 'control', baseline: true, difference: null, pValue: null });
    for (const variant of figures.variants.slice(1)) {
      expect(variant.rate).toBe(variant.converted / variant.exposed);
      expect(variant.interval![0]).toBeLessThanOrEqual(variant.rate!);
      expect(variant.chanceToBeatBaseline).toBeGreaterThanOrEqual(0);
    }
    expect(figures.enoughData).toBe(false);
    expect(figures.sampleRatio.mismatch).toBe(false);
    const list = (await service.call('GET', '/v1/analytics/experiments', { key: PRIVATE_KEY }))
      .body as ExperimentsReportResponse;
    expect(list.experiments.map((experiment) => experiment.id)).toEqual(['welcome-copy']);
    expect((await service.call('GET', '/v1/analytics/experiments/nope', { key: PRIVATE_KEY })).status).toBe(404);
    expect((await service.call('GET', '/v1/analytics/experiments')).status).toBe(403);
    const csv = await service.call('GET', '/v1/analytics/experiments/nope/participants.csv', { key: PRIVATE_KEY });
    expect(csv.status).toBe(404);
    expect(csv.headers.get('content-type')).toContain('application/problem+json');
  });

  it("counts a flow's goal after each user's first start, within its window", async () => {
    clock = START + 40 * DAY;
    const start = (userId: string) =>
      service.call('POST', '/v1/public/flowStates', {
        body: { userId, flowSlug: 'goal-tour', stepId: 'one', actionType: 'STARTED_FLOW' },
      });
    for (const id of ['goal-a', 'goal-b', 'goal-c']) expect((await start(id)).status).toBe(201);
    await track('goal-a', 'report.exported');
    clock = START + 42 * DAY;
    await track('goal-b', 'report.exported');
    clock = START + 42 * DAY + 1;
    await track('goal-c', 'report.exported');
    const flow = (
      await service.call(
        'GET',
        `/v1/analytics/flows/goal-tour?from=${new Date(START + 30 * DAY).toISOString().slice(0, 10)}`,
        {
          key: PRIVATE_KEY,
        },
      )
    ).body as AnalyticsFlowResponse;
    expect(flow.goal).toEqual({ event: 'report.exported', within: '2d', seen: 3, converted: 2, rate: 2 / 3 });
    const other = (await service.call('GET', '/v1/analytics/flows/other', { key: PRIVATE_KEY }))
      .body as AnalyticsFlowResponse;
    expect(other.goal).toBeUndefined();
  });

  it('refuses a bad experiments.yaml alone, keeping the last good one', async () => {
    await service.writeFlow('experiments.yaml', 'experiments:\n  - id: broken\n    status: maybe\n');
    expect(service.catalog.errors().map((error) => error.file)).toEqual(['experiments.yaml']);
    expect(service.catalog.current().experiments.map((experiment) => experiment.id)).toEqual(['welcome-copy']);
    expect(service.catalog.current().bySlug.has('welcome-short')).toBe(true);
    await service.writeFlow('experiments.yaml', experimentsYaml());
    expect(service.catalog.errors()).toEqual([]);
  });
});

describe('experiments.yaml checks', () => {
  const slugs = new Set(['a', 'b', 'c']);
  const problems = (text: string) =>
    checkExperimentsText(text, slugs).problems.map((problem) => `${problem.line} ${problem.path}: ${problem.message}`);

  it('names each problem with its line', () => {
    const text = `experiments:
  - id: one
    status: running
    goal: { event: signed.up, within: 7d }
    variants:
      - { id: control, weight: 1 }
      - { id: x, flow: nope, weight: 1 }
      - { id: x, flow: a, weight: 0 }
      - { id: y, flow: b, weight: "2" }
    winner: z
  - id: one
    status: live
    goal: { within: soon }
    variants:
      - { id: p, flow: c, weight: -1 }
      - { id: q, weight: 1 }
  - id: two
    status: running
    goal: { event: e }
    variants:
      - { id: m, flow: a, weight: 1 }
      - { id: n, weight: 1 }
`;
    expect(problems(text)).toEqual([
      '7 experiments[0].variants[1].flow: unknown flow slug "nope": no flow file in this folder defines it',
      '8 experiments[0].variants[2].id: duplicate variant id "x" in this experiment',
      '8 experiments[0].variants[2].weight: bad weight 0; expected a positive number',
      '9 experiments[0].variants[3].weight: bad weight "2"; expected a positive number',
      '10 experiments[0].winner: "z" is not one of this experiment\'s variants (control, x, x, y)',
      '11 experiments[1].id: duplicate experiment id "one" (also experiments[0])',
      '12 experiments[1].status: unknown status "live"; expected one of running, paused, ended',
      '13 experiments[1].goal.event: required, but missing: the event that counts as a conversion',
      '13 experiments[1].goal.within: bad duration "soon"; expected a whole number and a unit (s, m, h, d or w) greater than 0, such as 7d',
      '15 experiments[1].variants[0].weight: bad weight -1; expected a positive number',
      '21 experiments[2].variants[0].flow: flow "a" is already in running experiment "one"; a flow may be in one running experiment',
    ]);
  });

  it('are made by onboarding-flows check on a folder and on the file, with file and line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'experiments-check-'));
    try {
      writeFileSync(join(dir, 'a.yaml'), bannerFlowYaml('a'));
      writeFileSync(
        join(dir, 'experiments.yaml'),
        'experiments:\n  - id: e\n    status: running\n    goal: { event: done, within: 7 days }\n    variants:\n      - { id: control, weight: 1 }\n      - { id: v, flow: gone, weight: 1 }\n',
      );
      for (const path of [dir, join(dir, 'experiments.yaml')]) {
        const { reports } = checkPaths([path]);
        expect(reports.flatMap((report) => formatReport(report, 'text'))).toEqual([
          `${join(dir, 'experiments.yaml')}:4:34  experiments[0].goal.within: bad duration "7 days"; expected a whole number and a unit (s, m, h, d or w) greater than 0, such as 7d`,
          `${join(dir, 'experiments.yaml')}:7:24  experiments[0].variants[1].flow: unknown flow slug "gone": no flow file in this folder defines it`,
        ]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes a good file, with the default window', () => {
    const { experiments, problems: found } = checkExperimentsText(
      'experiments:\n  - id: e\n    status: ended\n    winner: b\n    goal: { event: done }\n    variants:\n      - { id: a, flow: a, weight: 1 }\n      - { id: b, flow: b, weight: 3 }\n',
      slugs,
    );
    expect(found).toEqual([]);
    expect(experiments[0]).toMatchObject({
      goal: { event: 'done', within: '7d', withinMs: 7 * DAY },
      ends: [2500, 10_000],
    });
  });
});
