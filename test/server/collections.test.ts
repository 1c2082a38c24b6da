// Collections over loopback HTTP: one flow at a time, cool-offs on the service's clock, computedOrder in every state answer,
// collections.yaml checks, and GET /v1/collections.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type {
  BatchResponse,
  CollectionsResponse,
  ComputedCollectionFlow,
  FlowStatesResponse,
  UserUpsertResponse,
} from '../../src/api/wire.js';
import { checkPaths, formatReport, main } from '../../server/flows/cli.js';
import { checkCollectionsText } from '../../server/flows/collections.js';
import {
  bannerFlowYaml,
  checklistYaml,
  PRIVATE_KEY,
  PUBLIC_KEY,
  startTestService,
  type TestService,
} from '../support/service.js';

const HOUR = 3_600_000;
let clock = Date.now();
let service: TestService;
const warnings: string[] = [];

const COLLECTIONS = `collections:
  - id: home
    type: DEFAULT
    coolOff: 48h
    allowedComponents: [Banner, Card]
    flows: [first, pro-only, second, third]
  - id: side
    type: CUSTOM
    coolOff: 0
    flows: [quick-a, quick-b]
`;

const FLOWS: Record<string, string> = {
  'first.yaml': bannerFlowYaml('first'),
  'pro-only.yaml': checklistYaml('pro-only', "user.properties.plan == 'pro'"),
  'second.yaml': bannerFlowYaml('second'),
  'third.yaml': bannerFlowYaml('third'),
  'quick-a.yaml': bannerFlowYaml('quick-a'),
  'quick-b.yaml': bannerFlowYaml('quick-b'),
  'solo.yaml': checklistYaml('solo'),
  'collections.yaml': COLLECTIONS,
};

beforeAll(async () => {
  service = await startTestService(FLOWS, {
    now: () => new Date(clock),
    logger: { warn: (message) => warnings.push(message), info: () => {} },
  });
});
afterAll(() => service?.close());

const newUser = () => `user-${randomUUID()}`;
const read = async (userId: string): Promise<FlowStatesResponse> =>
  (await service.call('GET', `/v1/public/flowStates?userId=${userId}`)).body;
const act = async (userId: string, flowSlug: string, actionType: string): Promise<FlowStatesResponse> => {
  const answer = await service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug, actionType } });
  expect(answer.status).toBe(201);
  return answer.body;
};
/** `$state.visible` of each eligible flow, by slug. */
const visible = (states: FlowStatesResponse) =>
  Object.fromEntries(states.eligibleFlows.map((flow) => [flow.flowSlug, flow.$state.visible]));
/** The collection's rows of computedOrder as `slug: visible`. */
const rows = (states: FlowStatesResponse, collectionId: string) =>
  Object.fromEntries(
    states
      .collections!.computedOrder.filter((row) => row.collectionId === collectionId)
      .map((row) => [row.flowId, row.visible]),
  );

describe('one flow at a time', () => {
  it('shows the first eligible unfinished flow of each collection and holds back the rest', async () => {
    const states = await read(newUser());
    expect(states.ineligibleFlows).toEqual(['pro-only']);
    expect(visible(states)).toEqual({
      first: true,
      second: false,
      third: false,
      'quick-a': true,
      'quick-b': false,
      solo: true,
    });
    const home: ComputedCollectionFlow = {
      collectionId: 'home',
      flowId: 'first',
      visible: true,
      allowedComponents: ['Banner', 'Card'],
      collectionType: 'DEFAULT',
    };
    expect(states.collections).toEqual({
      computedOrder: [
        home,
        { ...home, flowId: 'pro-only', visible: false },
        { ...home, flowId: 'second', visible: false },
        { ...home, flowId: 'third', visible: false },
        { collectionId: 'side', flowId: 'quick-a', visible: true, allowedComponents: [], collectionType: 'CUSTOM' },
        { collectionId: 'side', flowId: 'quick-b', visible: false, allowedComponents: [], collectionType: 'CUSTOM' },
      ],
    });
  });

  it('moves on at once in a collection without a cool-off', async () => {
    const userId = newUser();
    const after = await act(userId, 'quick-a', 'COMPLETED_FLOW');
    expect(rows(after, 'side')).toEqual({ 'quick-a': false, 'quick-b': true });
    expect(visible(after)['quick-b']).toBe(true);
  });

  it('leaves a flow in no collection as it was', async () => {
    const userId = newUser();
    await act(userId, 'first', 'COMPLETED_FLOW');
    const states = await act(userId, 'solo', 'STARTED_FLOW');
    const solo = states.eligibleFlows.find((flow) => flow.flowSlug === 'solo')!;
    expect(solo.$state).toMatchObject({ started: true, visible: true });
    expect(states.collections!.computedOrder.map((row) => row.flowId)).not.toContain('solo');
  });
});

describe('cool-off', () => {
  it('starts on completion: the next flow stays hidden until it has passed, skipping an ineligible one', async () => {
    const userId = newUser();
    const after = await act(userId, 'first', 'COMPLETED_FLOW');
    expect(rows(after, 'home')).toEqual({ first: false, 'pro-only': false, second: false, third: false });
    expect(visible(after)).toMatchObject({ first: false, second: false, third: false });
    clock += 47 * HOUR;
    expect(rows(await read(userId), 'home').second).toBe(false);
    clock += 2 * HOUR;
    const later = await read(userId);
    expect(rows(later, 'home')).toEqual({ first: false, 'pro-only': false, second: true, third: false });
    expect(visible(later)).toMatchObject({ second: true, third: false });
  });

  it('starts on dismissal too', async () => {
    const userId = newUser();
    await act(userId, 'first', 'SKIPPED_FLOW');
    clock += 49 * HOUR;
    const dismissed = await act(userId, 'second', 'SKIPPED_FLOW');
    expect(visible(dismissed)).toMatchObject({ second: false, third: false });
    clock += 47 * HOUR;
    expect(visible(await read(userId)).third).toBe(false);
    clock += 2 * HOUR;
    expect(visible(await read(userId)).third).toBe(true);
  });

  it('shows an eligible flow in its place once it applies', async () => {
    const userId = newUser();
    await service.call('POST', '/v1/public/users', { body: { userId, properties: { plan: 'pro' } } });
    await act(userId, 'first', 'COMPLETED_FLOW');
    clock += 49 * HOUR;
    expect(rows(await read(userId), 'home')).toEqual({ first: false, 'pro-only': true, second: false, third: false });
  });
});

describe('computedOrder in every answer that holds flow states', () => {
  it('comes with reads, writes, users and sessions upserts, and batches', async () => {
    const userId = newUser();
    const expected = { first: true, 'pro-only': false, second: false, third: false };
    const post = await service.call('POST', '/v1/public/flowStates', { body: { userId } });
    const write = await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'solo', actionType: 'STARTED_FLOW' },
    });
    const users = await service.call('POST', '/v1/public/users', { body: { userId } });
    const sessions = await service.call('POST', '/v1/public/sessions', { body: { userId } });
    const batch = await service.call('POST', '/v1/public/batch', {
      body: {
        writes: [
          {
            path: 'flowStates',
            idempotencyKey: randomUUID(),
            body: { userId, flowSlug: 'solo', actionType: 'COMPLETED_FLOW' },
          },
        ],
      },
    });
    const answers: FlowStatesResponse[] = [
      await read(userId),
      post.body,
      write.body,
      (users.body as UserUpsertResponse).flowStates,
      (sessions.body as UserUpsertResponse).flowStates,
      (batch.body as BatchResponse).flowStates!,
    ];
    for (const answer of answers) expect(rows(answer, 'home')).toEqual(expected);
  });
});

describe('collections.yaml checks', () => {
  const BAD = `collections:
  - id: home
    type: DEFAULT
    coolOff: 2 days
    flows: [first, nowhere]
  - id: other
    type: DEFAULT
    flows: [second, first]
    colour: blue
`;

  it('refuses a bad file alone with file and line, loading the flows and keeping the last good collections', async () => {
    await service.writeFlow('fourth.yaml', bannerFlowYaml('fourth'));
    await service.writeFlow('collections.yaml', BAD);
    const warning = warnings.find((w) => w.startsWith('collections file collections.yaml refused'));
    expect(warning).toMatch(/collections\[0\]\.coolOff \(line 4\): bad duration "2 days"/);
    expect(warning).toMatch(/collections\[0\]\.flows\[1\] \(line 5\): unknown flow slug "nowhere"/);
    expect(warning).toMatch(
      /collections\[1\]\.flows\[1\] \(line 8\): flow "first" is already in the DEFAULT collection at collections\[0\]/,
    );
    expect(warning).toMatch(
      /collections\[1\]\.colour \(line 9\): unknown key; expected one of id, type, flows, coolOff, allowedComponents/,
    );
    expect(warning).toMatch(/the last good collections stay/);
    expect(service.catalog.errors().map((error) => error.file)).toContain('collections.yaml');
    const flows = (await service.call('GET', '/v1/public/flows?limit=100')).body.data.map(
      (flow: { slug: string }) => flow.slug,
    );
    expect(flows).toContain('fourth');
    const states = await read(newUser());
    expect(rows(states, 'home')).toEqual({ first: true, 'pro-only': false, second: false, third: false });
    expect(visible(states).fourth).toBe(true);

    await service.writeFlow(
      'collections.yaml',
      COLLECTIONS.replace('[first, pro-only, second, third]', '[fourth, first]'),
    );
    expect(rows(await read(newUser()), 'home')).toEqual({ fourth: true, first: false });
    await service.writeFlow('collections.yaml', COLLECTIONS);
  });

  it('are printed by onboarding-flows check with file, line and column', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onboarding-collections-'));
    try {
      writeFileSync(join(dir, 'first.yaml'), bannerFlowYaml('first'));
      writeFileSync(join(dir, 'second.yaml'), bannerFlowYaml('second'));
      writeFileSync(join(dir, 'collections.yaml'), BAD);
      const { reports, checked } = checkPaths([dir]);
      expect(checked).toBe(3);
      expect(reports.map((report) => report.file)).toEqual([join(dir, 'collections.yaml')]);
      expect(
        formatReport(reports[0], 'text').map((line) => line.replace(/^.*collections\.yaml/, 'collections.yaml')),
      ).toEqual([
        'collections.yaml:4:14  collections[0].coolOff: bad duration "2 days"; expected a whole number and a unit (s, m, h, d or w), such as 48h or 2d, or 0 for none',
        'collections.yaml:5:20  collections[0].flows[1]: unknown flow slug "nowhere": no flow file in this folder defines it',
        'collections.yaml:8:21  collections[1].flows[1]: flow "first" is already in the DEFAULT collection at collections[0] (flows[0]); a flow may be in one collection of each type',
        'collections.yaml:9:5  collections[1].colour: unknown key; expected one of id, type, flows, coolOff, allowedComponents',
      ]);
      const printed: string[] = [];
      const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
      try {
        expect(main(['check', join(dir, 'collections.yaml')])).toBe(1);
        writeFileSync(
          join(dir, 'collections.yaml'),
          'collections:\n  - { id: home, type: CUSTOM, coolOff: 30s, flows: [first, second] }\n',
        );
        expect(main(['check', dir])).toBe(0);
      } finally {
        log.mockRestore();
      }
      expect(printed.filter((line) => line.includes('collections.yaml:'))).toHaveLength(4);
      expect(printed.at(-1)).toBe('3 flow files checked: no problems');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('docs/flows.md', () => {
  it('has a collections example that passes the checks', () => {
    const section = readFileSync('docs/flows.md', 'utf8')
      .split(/^## /m)
      .find((part) => part.startsWith('Collections\n'))!;
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)![1];
    const slugs = new Set(['welcome-banner', 'import-card', 'invite-card', 'shortcuts-tip', 'search-tip']);
    const { collections, problems } = checkCollectionsText(yaml, slugs);
    expect(problems).toEqual([]);
    expect(collections.map((c) => [c.id, c.type, c.coolOffMs, c.flows.length])).toEqual([
      ['home-announcements', 'DEFAULT', 48 * HOUR, 3],
      ['sidebar-tips', 'CUSTOM', 0, 2],
    ]);
  });
});

describe('GET /v1/collections', () => {
  const banner = (slug: string) => ({ slug, name: 'Welcome', type: 'BANNER', status: 'ACTIVE' });

  it('answers the collections in file order, each with its flows in priority order, to a private key', async () => {
    const answer = await service.call('GET', '/v1/collections', { key: PRIVATE_KEY });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body as CollectionsResponse).toEqual({
      collections: [
        {
          id: 'home',
          type: 'DEFAULT',
          coolOff: '48h',
          coolOffSeconds: 48 * 3600,
          allowedComponents: ['Banner', 'Card'],
          flows: [
            banner('first'),
            { slug: 'pro-only', name: 'Set up', type: 'CHECKLIST', status: 'ACTIVE' },
            banner('second'),
            banner('third'),
          ],
        },
        {
          id: 'side',
          type: 'CUSTOM',
          coolOff: '0',
          coolOffSeconds: 0,
          allowedComponents: [],
          flows: [banner('quick-a'), banner('quick-b')],
        },
      ],
    });
  });

  it('refuses a missing key, a public key and an unknown query field with a problem', async () => {
    const none = await service.call('GET', '/v1/collections', { key: null });
    expect(none.status).toBe(401);
    const pub = await service.call('GET', '/v1/collections', { key: PUBLIC_KEY });
    expect(pub.status).toBe(403);
    expect(pub.headers.get('content-type')).toContain('application/problem+json');
    const extra = await service.call('GET', '/v1/collections?page=2', { key: PRIVATE_KEY });
    expect(extra.status).toBe(400);
    expect(extra.headers.get('content-type')).toContain('application/problem+json');
  });

  it('keeps a flow whose file was removed in its place, without a name, while the last good collections stay', async () => {
    await service.removeFlow('third.yaml');
    const home = ((await service.call('GET', '/v1/collections', { key: PRIVATE_KEY })).body as CollectionsResponse)
      .collections[0];
    expect(home.flows.map((flow) => [flow.slug, flow.name])).toEqual([
      ['first', 'Welcome'],
      ['pro-only', 'Set up'],
      ['second', 'Welcome'],
      ['third', null],
    ]);
    await service.writeFlow('third.yaml', bannerFlowYaml('third'));
  });
});
