// Resource centres over loopback HTTP: the file's checks with their lines, blocks sent by visibleWhen per user (group and
// event-window rules, GET and POST, content and knownVersions), user-less endpoints, translated blocks, and analytics.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AnalyticsFlowResponse, FlowState, FlowStatesResponse, ResourceCenterEvent } from '../../src/api/wire.js';
import { RESOURCE_CENTER_EVENT } from '../../src/api/wire.js';
import { checkPaths, formatReport, main } from '../../server/flows/cli.js';
import { checkFlowText } from '../../server/flows/definitions.js';
import { deriveFlowStates, renderFlowStateParts, type ReadOptions } from '../../server/state/derive.js';
import { loadUserSnapshot } from '../../server/state/snapshot.js';
import { exportTranslations, formatExport, importTranslations } from '../../server/flows/translation-round-trip.js';
import { bannerFlowYaml, checklistYaml, PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

const announcementYaml = (slug: string, title: string) => `
slug: ${slug}
name: ${title}
type: ANNOUNCEMENT
data:
  steps:
    - id: news
      title: ${title}
      subtitle: What is new
`;

const tourYaml = (slug: string) => `
slug: ${slug}
name: Tour ${slug}
type: TOUR
data:
  steps:
    - id: first
      title: First
      selector: '#first'
`;

const CENTRE = `slug: help
name: Help centre
type: RESOURCE_CENTER
data:
  title: Help
  launcher:
    placement: bottom-left
    label: Need help?
  blocks:
    - id: setup-list
      type: checklist
      flow: setup
    - id: gold-perks
      type: text
      title: Gold perks
      text: Only for gold teams
      visibleWhen: "group.properties.tier == 'gold'"
    - id: export-help
      type: links
      title: Exporting
      visibleWhen: "user.eventCount('export-failed', duration('24h')) >= 1"
      links:
        - title: Export guide
          url: https://docs.example/export
        - title: Replay the tour
          flow: tour
    - id: find
      type: search
      placeholder: Search help
    - id: news
      type: announcements
      flows: [news-one]
    - id: talk
      type: contact
      title: Talk to us
      provider: crisp
      url: mailto:help@example.com
translations:
  fr:
    title: Aide
    launcher:
      label: Besoin d'aide ?
    blocks:
      find:
        placeholder: Chercher
      gold-perks:
        title: Avantages or
        text: Seulement pour les équipes or
      export-help:
        links:
          "0": Guide d'export
`;

const FLOWS: Record<string, string> = {
  'help.yaml': CENTRE,
  'setup.yaml': checklistYaml('setup'),
  'tour.yaml': tourYaml('tour'),
  'news-one.yaml': announcementYaml('news-one', 'Dark mode'),
  'welcome.yaml': bannerFlowYaml('welcome'),
};

let service: TestService;
const warnings: string[] = [];

beforeAll(async () => {
  service = await startTestService(FLOWS, { logger: { warn: (message) => warnings.push(message), info: () => {} } });
});
afterAll(() => service?.close());

const centreOf = (answer: FlowStatesResponse): FlowState | undefined =>
  answer.eligibleFlows.find((flow) => flow.flowSlug === 'help');
const blockIds = (state: FlowState | undefined) =>
  ((state?.data as { blocks?: Array<{ id: string }> } | undefined)?.blocks ?? []).map((block) => block.id);

async function read(userId: string, query = ''): Promise<{ text: string; body: FlowStatesResponse }> {
  const response = await service.call('GET', `/v1/public/flowStates?userId=${encodeURIComponent(userId)}${query}`);
  expect(response.status, response.text).toBe(200);
  return { text: response.text, body: response.body as FlowStatesResponse };
}

async function readByPost(userId: string, body: Record<string, unknown> = {}) {
  const response = await service.call('POST', '/v1/public/flowStates', { body: { userId, ...body } });
  expect(response.status, response.text).toBe(200);
  return { text: response.text, body: response.body as FlowStatesResponse };
}

async function joinGroup(userId: string, tier: string): Promise<string> {
  const groupId = `group-${randomUUID()}`;
  const response = await service.call('POST', '/v1/public/groups', { body: { userId, groupId, properties: { tier } } });
  expect(response.status, response.text).toBe(201);
  return groupId;
}

async function track(userId: string, events: Array<{ event: string; properties?: object }>): Promise<void> {
  const response = await service.call('POST', '/v1/public/users', { body: { userId, events } });
  expect(response.status, response.text).toBe(201);
}

describe('resource centre files', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'onboarding-rc-'));
    for (const [file, yaml] of Object.entries(FLOWS)) writeFileSync(join(dir, file), yaml);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads a valid centre, served with steps: []', async () => {
    expect(checkFlowText(CENTRE).problems).toEqual([]);
    expect(checkPaths([dir]).reports).toEqual([]);
    const flow = await service.call('GET', '/v1/public/flows/help');
    expect(flow.status).toBe(200);
    expect(JSON.parse(flow.body.data as string).steps).toEqual([]);
    expect(flow.body.type).toBe('RESOURCE_CENTER');
  });

  it('refuses duplicate block ids, bad visibleWhen, a contact without title, unknown providers, bad link URLs and steps, each with its line', () => {
    const bad = `slug: bad
name: Bad
type: RESOURCE_CENTER
data:
  title: Bad
  blocks:
    - id: a
      type: text
      text: Hello
    - id: a
      type: search
      visibleWhen: "user.properties.plan =="
    - id: b
      type: text
      text: Long ago
      visibleWhen: "user.eventCount('x', duration('900000h')) > 0"
    - id: c
      type: contact
      provider: slack
    - id: d
      type: links
      links:
        - title: Bad
          url: javascript:alert(1)
        - title: Fine
          url: /docs/start
        - title: Mail
          url: mailto:team@example.com
        - title: Other site
          url: //evil.example/x
  steps:
    - id: nope
`;
    const lines = checkFlowText(bad).problems.map((p) => `${p.line} ${p.path}: ${p.message}`);
    expect(lines).toEqual([
      '10 data.blocks[1].id: duplicate block id "a" (also data.blocks[0])',
      expect.stringMatching(/^12 data\.blocks\[1\]\.visibleWhen: does not compile as CEL/),
      expect.stringMatching(/^16 data\.blocks\[2\]\.visibleWhen: .*the window is over 100 years/),
      '17 data.blocks[3].title: required, but missing',
      '19 data.blocks[3].provider: unknown value "slack"; expected one of intercom, crisp, hubspot, zendesk, helpscout',
      expect.stringMatching(/^24 data\.blocks\[4\]\.links\[0\]\.url: "javascript:alert\(1\)" is not a link/),
      expect.stringMatching(/^30 data\.blocks\[4\]\.links\[3\]\.url: "\/\/evil\.example\/x" is not a relative path/),
      '32 data.steps: expected at most 0 items, got 1',
    ]);
  });

  it('refuses blocks naming an unknown flow or one of the wrong type, in check and in the service, with lines', async () => {
    const wrong = CENTRE.replace('flow: tour\n', 'flow: gone\n')
      .replace('flow: setup', 'flow: tour')
      .replace('flows: [news-one]', 'flows: [news-one, setup]');
    writeFileSync(join(dir, 'help.yaml'), wrong);
    try {
      const [report] = checkPaths([dir]).reports;
      expect(formatReport(report, 'text').map((line) => line.replace(/^.*help\.yaml:/, ''))).toEqual([
        '12:13  data.blocks[0].flow: flow "tour" is a TOUR; a checklist block takes a CHECKLIST',
        '26:17  data.blocks[2].links[1].flow: unknown flow slug "gone": no flow file in this folder defines it',
        '32:25  data.blocks[4].flows[1]: flow "setup" is a CHECKLIST; an announcements block takes ANNOUNCEMENT flows only',
      ]);
      // The same file checked alone is checked against its folder.
      expect(checkPaths([join(dir, 'help.yaml')]).reports[0].problems.map((p) => p.line)).toEqual([12, 26, 32]);
      // `onboarding-flows check` fails on it, and the service refuses it.
      const printed: string[] = [];
      const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
      try {
        expect(main(['check', dir])).toBe(1);
      } finally {
        log.mockRestore();
      }
      expect(printed.filter((line) => line.includes('help.yaml:'))).toHaveLength(3);
      const own = await startTestService(
        Object.fromEntries(Object.entries(FLOWS).map(([file, yaml]) => [file, file === 'help.yaml' ? wrong : yaml])),
        { logger: { warn: () => {}, info: () => {} } },
      );
      try {
        expect(own.catalog.errors().map((error) => [error.file, error.problems.map((p) => p.line)])).toEqual([
          ['help.yaml', [12, 26, 32]],
        ]);
        expect((await own.call('GET', '/v1/public/flows/help')).status).toBe(404);
      } finally {
        await own.close();
      }
    } finally {
      writeFileSync(join(dir, 'help.yaml'), CENTRE);
    }
  });

  it('keeps serving the last good centre when a flow it names is removed, and refuses the file until it is fixed', async () => {
    const own = await startTestService(
      { 'help.yaml': CENTRE, ...Object.fromEntries(Object.entries(FLOWS).filter(([file]) => file !== 'help.yaml')) },
      { logger: { warn: () => {}, info: () => {} } },
    );
    try {
      await own.removeFlow('setup.yaml');
      expect(own.catalog.errors().map((error) => [error.file, error.problems[0]?.line])).toEqual([['help.yaml', 12]]);
      const answer = await own.call('GET', '/v1/public/flowStates?userId=after-removal');
      expect(answer.status).toBe(200);
      const centre = centreOf(answer.body as FlowStatesResponse);
      expect(centre?.data).toMatchObject({ title: 'Help', steps: [] });
      expect(blockIds(centre)).toContain('setup-list');
    } finally {
      await own.close();
    }
  });
});

describe('visibleWhen', () => {
  it('sends a block only to users whose group rule holds, in GET and POST reads', async () => {
    const gold = `gold-${randomUUID()}`;
    const silver = `silver-${randomUUID()}`;
    const goldGroup = await joinGroup(gold, 'gold');
    const silverGroup = await joinGroup(silver, 'silver');
    for (const [userId, groupId, shown] of [
      [gold, goldGroup, true],
      [silver, silverGroup, false],
    ] as const) {
      const byGet = await read(userId, `&groupId=${groupId}`);
      const byPost = await readByPost(userId, { groupId });
      for (const { text, body } of [byGet, byPost]) {
        expect(text.includes('gold-perks'), userId).toBe(shown);
        expect(text.includes('Only for gold teams'), userId).toBe(shown);
        expect(blockIds(centreOf(body)).includes('gold-perks')).toBe(shown);
        expect(blockIds(centreOf(body))).toContain('find');
      }
    }
    // The same user read again with the other group: the kept answer follows the rule's outcome.
    expect((await read(gold, `&groupId=${silverGroup}`)).text).not.toContain('gold-perks');
    expect((await read(gold, `&groupId=${goldGroup}`)).text).toContain('gold-perks');
  });

  it('sends a block once an event-window rule holds for the user, and not to others', async () => {
    const failed = `failed-${randomUUID()}`;
    const other = `other-${randomUUID()}`;
    await track(failed, [{ event: 'seen' }]);
    await track(other, [{ event: 'seen' }]);
    const before = await read(failed);
    expect(before.text).not.toContain('export-help');
    expect(before.text).not.toContain('https://docs.example/export');
    await track(failed, [{ event: 'export-failed' }]);
    for (const { text, body } of [await read(failed), await readByPost(failed)]) {
      expect(text).toContain('https://docs.example/export');
      expect(blockIds(centreOf(body))).toEqual(['setup-list', 'export-help', 'find', 'news', 'talk']);
    }
    expect((await read(other)).text).not.toContain('export-help');
  });

  it('sends no block content with content=none or with the version known, and the right blocks without', async () => {
    const userId = `known-${randomUUID()}`;
    const first = await readByPost(userId);
    const centre = centreOf(first.body)!;
    expect(blockIds(centre)).toEqual(['setup-list', 'find', 'news', 'talk']);
    const known = await readByPost(userId, { knownVersions: { help: centre.contentHash } });
    expect(centreOf(known.body)!.data).toEqual({ steps: [] });
    expect(known.text).not.toContain('Search help');
    expect((await read(userId, '&content=none')).text).not.toContain('Search help');
    // A touched centre (opened once) is rendered with its state, still without the hidden blocks.
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'help', stepId: '', actionType: 'STARTED_FLOW' },
    });
    const touched = await readByPost(userId, { knownVersions: { help: '0000000000000000' } });
    expect(centreOf(touched.body)!.$state.started).toBe(true);
    expect(blockIds(centreOf(touched.body))).toEqual(['setup-list', 'find', 'news', 'talk']);
    expect(touched.text).not.toContain('gold-perks');
    // The hash names the set of blocks: once the user's set changes, a client holding the old one gets the new.
    const held = centreOf(touched.body)!.contentHash;
    expect(centreOf((await readByPost(userId, { knownVersions: { help: held } })).body)!.data).toEqual({ steps: [] });
    await track(userId, [{ event: 'export-failed' }]);
    const changed = await readByPost(userId, { knownVersions: { help: held } });
    expect(blockIds(centreOf(changed.body))).toContain('export-help');
    expect(centreOf(changed.body)!.contentHash).not.toBe(held);
    // A version number cannot name a set of blocks: such a client always gets the content.
    const byNumber = await readByPost(userId, { knownVersions: { help: centre.version } });
    expect(blockIds(centreOf(byNumber.body))).toContain('export-help');
  });

  it('sends a block whose rule compares now with a time once the clock passes it, the kept answer renewed', async () => {
    let clock = Date.parse('2031-05-31T23:59:00Z');
    const launch = CENTRE.replace(
      'visibleWhen: "group.properties.tier == \'gold\'"',
      'visibleWhen: "now >= timestamp(\'2031-06-01T00:00:00Z\')"',
    );
    expect(launch).not.toBe(CENTRE);
    const own = await startTestService(
      { ...FLOWS, 'help.yaml': launch },
      { now: () => new Date(clock), logger: { warn: () => {}, info: () => {} } },
    );
    try {
      const userId = `clock-${randomUUID()}`;
      expect((await own.call('POST', '/v1/public/users', { body: { userId } })).status).toBe(201);
      const before = await own.call('GET', `/v1/public/flowStates?userId=${userId}`);
      expect(before.text).not.toContain('gold-perks');
      // The same read again is the kept answer; past the instant it is rendered again.
      expect((await own.call('GET', `/v1/public/flowStates?userId=${userId}`)).text).toBe(before.text);
      clock += 120_000;
      const after = await own.call('GET', `/v1/public/flowStates?userId=${userId}`);
      expect(blockIds(centreOf(after.body as FlowStatesResponse))).toContain('gold-perks');
    } finally {
      await own.close();
    }
  });

  it('renders the same answer as the derived objects, per user, in every mode and locale', async () => {
    const version = service.catalog.current();
    const gold = `render-${randomUUID()}`;
    const goldGroup = await joinGroup(gold, 'gold');
    await track(gold, [{ event: 'export-failed' }]);
    const plain = `render-${randomUUID()}`;
    await track(plain, [{ event: 'seen' }]);
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId: plain, flowSlug: 'help', stepId: '', actionType: 'STARTED_FLOW' },
    });
    for (const [userId, groupId] of [
      [gold, goldGroup],
      [plain, undefined],
    ] as const) {
      for (const locale of [undefined, 'fr']) {
        const snapshot = await loadUserSnapshot(service.db, userId, groupId, version, { now: new Date(), locale });
        const hash = deriveFlowStates(version, snapshot).eligibleFlows.find((f) => f.flowSlug === 'help')!.contentHash!;
        const variants: ReadOptions[] = [
          {},
          { content: 'none' },
          { knownVersions: { help: hash } },
          { knownVersions: { help: 1 } },
          { targetedOut: 'hidden' },
        ];
        for (const options of variants) {
          const text = Buffer.concat(renderFlowStateParts(version, snapshot, options)).toString();
          expect(JSON.parse(text), JSON.stringify([userId, locale, options])).toEqual(
            deriveFlowStates(version, snapshot, options),
          );
        }
      }
    }
  });

  it('leaves every block with a visibleWhen out of the user-less endpoints', async () => {
    for (const path of ['/v1/public/flows/help', '/v1/public/flows']) {
      const response = await service.call('GET', path, { key: PRIVATE_KEY });
      expect(response.status).toBe(200);
      expect(response.text).not.toContain('gold-perks');
      expect(response.text).not.toContain('export-help');
      expect(response.text).toContain('setup-list');
    }
  });
});

describe('translations of a centre', () => {
  it('lays the locale over the title, the launcher label and the blocks, the hidden blocks still left out', async () => {
    const userId = `fr-${randomUUID()}`;
    const groupId = await joinGroup(userId, 'gold');
    const { body, text } = await read(userId, `&groupId=${groupId}&locale=fr-CA`);
    const data = centreOf(body)!.data as Record<string, any>;
    expect(data.title).toBe('Aide');
    expect(data.launcher).toEqual({ placement: 'bottom-left', label: "Besoin d'aide ?" });
    const blocks = Object.fromEntries((data.blocks as Array<{ id: string }>).map((block) => [block.id, block]));
    expect(blocks.find).toMatchObject({ placeholder: 'Chercher' });
    expect(blocks['gold-perks']).toMatchObject({ title: 'Avantages or', text: 'Seulement pour les équipes or' });
    expect(blocks['talk']).toMatchObject({ title: 'Talk to us' });
    expect(text).not.toContain('export-help');
    await track(userId, [{ event: 'export-failed' }]);
    const after = centreOf((await read(userId, `&groupId=${groupId}&locale=fr`)).body)!.data as Record<string, any>;
    const links = (after.blocks as Array<{ id: string; links?: unknown }>).find((b) => b.id === 'export-help')!.links;
    expect(links).toEqual([
      { title: "Guide d'export", url: 'https://docs.example/export' },
      { title: 'Replay the tour', flow: 'tour' },
    ]);
  });

  it('refuses a translation naming a block or a link the centre lacks', () => {
    const problems = checkFlowText(
      CENTRE.replace('      find:\n', '      lost:\n').replace('"0": Guide', '"5": Guide'),
    ).problems.map((p) => `${p.path}: ${p.message}`);
    expect(problems).toEqual([
      expect.stringMatching(/^translations\.fr\.blocks\.lost: no block id "lost" in the flow/),
      expect.stringMatching(/^translations\.fr\.blocks\.export-help\.links\.5: no link 5 in block "export-help"/),
    ]);
  });

  it('exports the block texts for translators, keyed by block id, and imports them back into the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onboarding-rc-xliff-'));
    try {
      for (const [file, yaml] of Object.entries(FLOWS)) writeFileSync(join(dir, file), yaml);
      const { files, problems } = exportTranslations(dir, 'de');
      expect(problems).toEqual([]);
      const help = files.find((file) => file.original === 'help.yaml')!;
      const wanted: Record<string, string> = {
        'help/launcher/label': 'Hilfe gesucht?',
        'help/blocks/gold-perks/text': 'Nur für Gold-Teams',
        'help/blocks/find/placeholder': 'Suchen',
        'help/blocks/export-help/links/1': 'Die Tour noch einmal',
        'help/blocks/talk/title': 'Schreiben Sie uns',
      };
      expect(help.units.map((unit) => unit.key)).toEqual(expect.arrayContaining(Object.keys(wanted)));
      const units = help.units.map((unit) => ({ ...unit, target: wanted[unit.key] }));
      const xliff = formatExport([{ original: 'help.yaml', units }], {
        format: 'xliff',
        sourceLocale: 'en',
        locale: 'de',
      });
      const report = importTranslations(xliff, 'de.xlf', dir);
      expect(report.problems).toEqual([]);
      const { definition, problems: fileProblems } = checkFlowText(readFileSync(join(dir, 'help.yaml'), 'utf8'));
      expect(fileProblems).toEqual([]);
      expect(definition!.translations!.de).toEqual({
        launcher: { label: 'Hilfe gesucht?' },
        blocks: {
          'gold-perks': { text: 'Nur für Gold-Teams' },
          'export-help': { links: { '1': 'Die Tour noch einmal' } },
          find: { placeholder: 'Suchen' },
          talk: { title: 'Schreiben Sie uns' },
        },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('resource centre analytics', () => {
  const event = (properties: ResourceCenterEvent) => ({ event: RESOURCE_CENTER_EVENT, properties });

  it('answers opens, clicks per block and item, and the searches that found nothing, most users first', async () => {
    // Another test of this file opened the centre too: opens are counted from here.
    const opened = (await service.call('GET', '/v1/analytics/flows/help', { key: PRIVATE_KEY })).body.opens as number;
    const users = ['a', 'b', 'c'].map((name) => `stats-${name}-${randomUUID()}`);
    for (const userId of users.slice(0, 2)) {
      const started = await service.call('POST', '/v1/public/flowStates', {
        body: { userId, flowSlug: 'help', stepId: '', actionType: 'STARTED_FLOW' },
      });
      expect(started.status, started.text).toBe(201);
    }
    const [a, b, c] = users;
    await track(a, [
      event({ flow: 'help', action: 'click', block: 'export-help', item: 'https://docs.example/export' }),
      event({ flow: 'help', action: 'click', block: 'export-help', item: 'https://docs.example/export' }),
      event({ flow: 'help', action: 'search', block: 'find', query: '  Export   CSV ', results: 0 }),
      event({ flow: 'help', action: 'search', block: 'find', query: 'invoice', results: 0 }),
      event({ flow: 'help', action: 'search', block: 'find', query: 'tour', results: 2 }),
    ]);
    await track(b, [
      event({ flow: 'help', action: 'click', block: 'talk', item: 'contact' }),
      event({ flow: 'help', action: 'search', block: 'find', query: 'export csv', results: 0 }),
      event({ flow: 'help', action: 'search', block: 'find', query: `${'x'.repeat(150)}`, results: 0 }),
    ]);
    await track(c, [
      event({ flow: 'help', action: 'click', block: 'export-help', item: 'https://docs.example/export' }),
      event({ flow: 'help', action: 'search', block: 'find', query: 'EXPORT csv', results: 0 }),
      // Another centre's and malformed events are not counted.
      event({ flow: 'other', action: 'search', block: 'find', query: 'invoice', results: 0 }),
      {
        event: RESOURCE_CENTER_EVENT,
        properties: { flow: 'help', action: 'search', block: 'find', query: 7, results: 0 },
      },
      { event: 'onboarding:other', properties: { flow: 'help', action: 'click', block: 'talk', item: 'contact' } },
    ]);
    const response = await service.call('GET', '/v1/analytics/flows/help', { key: PRIVATE_KEY });
    expect(response.status, response.text).toBe(200);
    const report = response.body as AnalyticsFlowResponse;
    expect(report.opens).toBe(opened + 2);
    expect(report.opens).toBe(report.flow.started);
    expect(report.clicks).toEqual([
      { block: 'export-help', item: 'https://docs.example/export', clicks: 3, users: 2 },
      { block: 'talk', item: 'contact', clicks: 1, users: 1 },
    ]);
    expect(report.noResultSearches).toEqual([
      { query: 'export csv', users: 3 },
      { query: 'invoice', users: 1 },
      { query: 'x'.repeat(100), users: 1 },
    ]);
    // A window that ends before today holds none of today's events.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const earlier = await service.call('GET', `/v1/analytics/flows/help?to=${yesterday}`, { key: PRIVATE_KEY });
    expect(earlier.body).toMatchObject({ opens: 0, clicks: [], noResultSearches: [] });
    // Another flow's report has none of these fields.
    const banner = await service.call('GET', '/v1/analytics/flows/welcome', { key: PRIVATE_KEY });
    expect(banner.body).not.toHaveProperty('noResultSearches');
  });
});
