// Moving from Frigade: its targeting in CEL (each row of docs/frigade.md's table, on a running service) and `onboarding-flows from-frigade`.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../server/flows/cli.js';
import { checkCollectionsText } from '../../server/flows/collections.js';
import { checkFlowText } from '../../server/flows/definitions.js';
import { frigadeTargetingToCel } from '../../server/flows/frigade-targeting.js';
import { convertFrigadeFlows } from '../../server/flows/from-frigade.js';
import { eligibleSlugs, startTestService, targetedCards, type TestService } from '../support/service.js';

/** Someone to try an expression on: what is stored for them before the read. */
interface Someone {
  properties?: Record<string, unknown>;
  events?: string[];
  guest?: boolean;
  /** The group the read names (its ID, when it matters), with what is stored for it. */
  group?: { id?: string; properties?: Record<string, unknown>; events?: string[] };
  /** Actions in the flow flow_welcome: [stepId, actionType, data]. */
  actions?: Array<[string, string, unknown?]>;
}

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const completedWelcome: Someone = { actions: [['role', 'COMPLETED_STEP', { team: 'sales' }]] };

/** Every row of the docs table, by its Frigade expression: who it holds for and who it does not. */
const ROWS: Record<string, { holds: Someone[]; fails: Someone[] }> = {
  "user.property('plan') == 'pro'": {
    holds: [{ properties: { plan: 'pro' } }],
    fails: [{ properties: { plan: 'free' } }, {}],
  },
  "user.property('plan') != 'pro'": {
    holds: [{ properties: { plan: 'free' } }, {}],
    fails: [{ properties: { plan: 'pro' } }],
  },
  "user.property('seats') >= 5": {
    holds: [{ properties: { seats: 5 } }, { properties: { seats: 12 } }],
    fails: [{ properties: { seats: 4 } }, {}],
  },
  "user.property('bankAccountConnected') == true": {
    holds: [{ properties: { bankAccountConnected: true } }],
    fails: [{ properties: { bankAccountConnected: false } }, {}],
  },
  "user.property('jobTitle') != null": { holds: [{ properties: { jobTitle: 'CTO' } }], fails: [{}] },
  "user.property('jobTitle') isSet true": { holds: [{ properties: { jobTitle: 'CTO' } }], fails: [{}] },
  "user.property('email') contains 'acme'": {
    holds: [{ properties: { email: 'ada@ACME.com' } }],
    fails: [{ properties: { email: 'ada@example.com' } }, {}],
  },
  "user.property('email') endsWith '@acme.com'": {
    holds: [{ properties: { email: 'ada@acme.com' } }],
    fails: [{ properties: { email: 'ada@acme.com.evil' } }, {}],
  },
  "user.property('country') isIn 'US,CA'": {
    holds: [{ properties: { country: 'CA' } }],
    fails: [{ properties: { country: 'FR' } }, {}],
  },
  "user.property('signedUpAt') > '2023-03-01 00:00:00'": {
    holds: [{ properties: { signedUpAt: '2023-03-01T00:00:01Z' } }],
    fails: [{ properties: { signedUpAt: '2023-02-28T23:59:59Z' } }, {}],
  },
  "user.property('signedUpAt') within 7d": {
    holds: [{ properties: { signedUpAt: daysAgo(6) } }],
    fails: [{ properties: { signedUpAt: daysAgo(8) } }, {}],
  },
  "user.property('signedUpAt') !within 30d": {
    holds: [{ properties: { signedUpAt: daysAgo(31) } }],
    fails: [{ properties: { signedUpAt: daysAgo(29) } }, {}],
  },
  "user.property('signedUpAt') < new Date() - 86400000 * 30": {
    holds: [{ properties: { signedUpAt: daysAgo(31) } }],
    fails: [{ properties: { signedUpAt: daysAgo(29) } }, {}],
  },
  "user.event('login').count > 3": {
    holds: [{ events: ['login', 'login', 'login', 'login'] }],
    fails: [{ events: ['login', 'login', 'login'] }, {}],
  },
  "user.eventCount('login') < 3": {
    holds: [{}, { events: ['login', 'login'] }],
    fails: [{ events: ['login', 'login', 'login'] }],
  },
  "group.property('tier') == 'gold'": {
    holds: [{ group: { properties: { tier: 'gold' } } }],
    fails: [{ group: { properties: { tier: 'silver' } } }, {}],
  },
  "organization.property('tier') == 'gold'": {
    holds: [{ group: { properties: { tier: 'gold' } } }],
    fails: [{ group: {} }],
  },
  "group.event('connectedBank').count > 0": {
    holds: [{ group: { events: ['connectedBank'] } }],
    fails: [{ group: { events: ['other'] } }, {}],
  },
  "user.memberOfGroup() == 'acme'": { holds: [{ group: { id: 'acme' } }], fails: [{ group: { id: 'globex' } }, {}] },
  'user.isGuest() == false': { holds: [{}], fails: [{ guest: true }] },
  "user.flow('flow_welcome') == 'COMPLETED_FLOW'": {
    holds: [completedWelcome],
    fails: [{}, { actions: [['', 'SKIPPED_FLOW']] }],
  },
  "user.flow('flow_welcome') == 'SKIPPED_FLOW'": {
    holds: [{ actions: [['', 'SKIPPED_FLOW']] }],
    fails: [{}, completedWelcome],
  },
  "user.flow('flow_welcome') == 'NOT_STARTED_FLOW'": {
    holds: [{}],
    fails: [{ actions: [['role', 'STARTED_STEP']] }, completedWelcome],
  },
  // Unquoted, as Frigade's dashboard exports write the states.
  "user.flow('flow_welcome') == COMPLETED_FLOW": {
    holds: [completedWelcome],
    fails: [{}, { actions: [['', 'SKIPPED_FLOW']] }],
  },
  "user.flowStep('flow_welcome', 'role') != COMPLETED_STEP": {
    holds: [{ actions: [['role', 'STARTED_STEP']] }],
    fails: [completedWelcome],
  },
  "user.flow('flow_welcome') != 'COMPLETED_FLOW'": {
    holds: [{}, { actions: [['', 'SKIPPED_FLOW']] }],
    fails: [completedWelcome],
  },
  "user.flowStep('flow_welcome', 'role') == 'COMPLETED_STEP'": {
    holds: [completedWelcome],
    fails: [{ actions: [['role', 'STARTED_STEP']] }],
  },
  "user.flowStepData('flow_welcome', 'role', 'team') == 'sales'": {
    holds: [completedWelcome],
    fails: [{ actions: [['role', 'COMPLETED_STEP', { team: 'support' }]] }, {}],
  },
  "user.property('plan') == 'pro' && user.event('login').count > 3": {
    holds: [{ properties: { plan: 'pro' }, events: ['login', 'login', 'login', 'login'] }],
    fails: [
      { properties: { plan: 'pro' } },
      { properties: { plan: 'free' }, events: ['login', 'login', 'login', 'login'] },
    ],
  },
  "user.property('plan') == 'pro' AND user.event('login').count > 3": {
    holds: [{ properties: { plan: 'pro' }, events: ['login', 'login', 'login', 'login'] }],
    fails: [{ properties: { plan: 'pro' } }],
  },
  "(user.property('plan') == 'pro') || (user.property('plan') == 'team')": {
    holds: [{ properties: { plan: 'pro' } }, { properties: { plan: 'team' } }],
    fails: [{ properties: { plan: 'free' } }, {}],
  },
  "user.property('email') !contains 'test'": {
    holds: [{ properties: { email: 'ada@acme.com' } }, {}],
    fails: [{ properties: { email: 'qa+TEST@acme.com' } }],
  },
  "user.property('country') !isIn 'US,CA'": {
    holds: [{ properties: { country: 'FR' } }, {}],
    fails: [{ properties: { country: 'US' } }],
  },
};

/** The docs table's rows: [Frigade, CEL], with `\|` read as `|`. */
function docsRows(): Array<[string, string]> {
  const doc = readFileSync('docs/frigade.md', 'utf8');
  const section = doc.split(/^## /m).find((part) => part.startsWith("Targeting: Frigade's expressions in CEL\n"))!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && line.includes('`'))
    .map((line) => {
      const cells = line.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
      return [cells[2].replace(/^`|`$/g, ''), cells[3].replace(/^`|`$/g, '')];
    });
}

const slugOf = (index: number) => `row-${index}`;

describe("Frigade's targeting in CEL", () => {
  let service: TestService;
  const rows = docsRows();

  beforeAll(async () => {
    const cards: Record<string, string> = {};
    for (const [index, [frigade]] of rows.entries()) {
      const result = frigadeTargetingToCel(frigade);
      if ('cel' in result) cards[slugOf(index)] = result.cel;
    }
    service = await startTestService({
      'flow_welcome.yaml':
        'slug: flow_welcome\nname: Welcome\ntype: CHECKLIST\ndata:\n  steps:\n    - id: role\n      title: Your role\n',
      ...targetedCards(cards),
    });
  });
  afterAll(() => service?.close());

  /** Stores `someone`, then reads which row flows they are eligible for. */
  async function eligibleRows(someone: Someone): Promise<string[]> {
    const userId = `${someone.guest ? 'guest_' : 'frigade-'}${randomUUID()}`;
    const events = (names: string[] = []) => names.map((event) => ({ event }));
    const user = await service.call('POST', '/v1/public/users', {
      body: { userId, properties: someone.properties ?? {}, events: events(someone.events) },
    });
    expect(user.status).toBe(201);
    let groupId: string | undefined;
    if (someone.group) {
      groupId = someone.group.id ?? `group-${randomUUID()}`;
      const group = await service.call('POST', '/v1/public/groups', {
        body: { groupId, userId, properties: someone.group.properties ?? {}, events: events(someone.group.events) },
      });
      expect(group.status).toBe(201);
    }
    for (const [stepId, actionType, data] of someone.actions ?? []) {
      const action = await service.call('POST', '/v1/public/flowStates', {
        body: { userId, flowSlug: 'flow_welcome', stepId, actionType, ...(data ? { data } : {}) },
      });
      expect(action.status, action.text).toBeLessThan(300);
    }
    return eligibleSlugs(service, userId, groupId);
  }

  it('has a row in the docs for each form tested here, each with the CEL from-frigade writes', () => {
    expect(rows.map(([frigade]) => frigade).sort()).toEqual(Object.keys(ROWS).sort());
    for (const [frigade, cel] of rows) expect(frigadeTargetingToCel(frigade), frigade).toEqual({ cel });
  });

  it('gives each row the answer Frigade gives, on a running service', async () => {
    for (const [index, [frigade]] of rows.entries()) {
      for (const someone of ROWS[frigade].holds)
        expect(await eligibleRows(someone), `${frigade} holds for ${JSON.stringify(someone)}`).toContain(slugOf(index));
      for (const someone of ROWS[frigade].fails)
        expect(await eligibleRows(someone), `${frigade} fails for ${JSON.stringify(someone)}`).not.toContain(
          slugOf(index),
        );
    }
  });
});

describe('docs/frigade.md', () => {
  it('has a flow file and a collections.yaml that load as they are', () => {
    const blocks = [...readFileSync('docs/frigade.md', 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
    const flows = blocks.filter((yaml) => /^slug: /m.test(yaml));
    const collections = blocks.filter((yaml) => /^collections:/m.test(yaml));
    expect([flows.length, collections.length]).toEqual([1, 1]);
    expect(checkFlowText(flows[0]).problems).toEqual([]);
    expect(checkCollectionsText(collections[0], new Set(['flow_i6kH7DjcbE6tiaQd', 'flow_whats_new'])).problems).toEqual(
      [],
    );
  });
});

describe('Frigade forms without CEL', () => {
  it('says why, with the column of the part at fault', () => {
    const problem = (expression: string) => {
      const result = frigadeTargetingToCel(expression);
      return 'problem' in result ? result.problem : undefined;
    };
    expect(problem("user.property('plan') == 'pro' && user.currentUrl() contains '/settings'")).toEqual({
      column: 35,
      message:
        'user.currentUrl() has no equivalent: the service does not know the page a user is on (startWhen.page limits where a flow opens)',
    });
    expect(problem("user.flow('flow_welcome') !within 4w")).toMatchObject({
      column: 27,
      message: expect.stringMatching(/^!within on user\.flow\('flow_welcome'\) has no equivalent/),
    });
    expect(problem("user.daysSinceFlowDone('flow_welcome') > 3")).toMatchObject({ column: 1 });
    expect(problem("!(user.property('plan') == 'pro')")).toMatchObject({
      column: 1,
      message: expect.stringContaining('no "!" before an expression'),
    });
    expect(problem("NOT user.property('plan') == 'pro'")).toMatchObject({
      column: 1,
      message: expect.stringContaining('"NOT" is not one of'),
    });
    expect(problem("user.property('plan') ==")).toEqual({ column: 25, message: 'expected a value but found the end' });
    expect(problem("user.property('plan) == 'pro'")).toMatchObject({
      column: 29,
      message: 'a string that is not closed',
    });
    expect(problem("user.property('signedUpAt') within 7 days")).toMatchObject({ column: 36 });
    expect(problem("user.property('plan') > 'pro'")).toMatchObject({
      column: 23,
      message: expect.stringContaining('numbers and times only'),
    });
  });

  it('reads an expression of one character or none as no targeting, as Frigade does', () => {
    expect(frigadeTargetingToCel('')).toEqual({ cel: '' });
    expect(frigadeTargetingToCel(' \n ')).toEqual({ cel: '' });
  });
});

describe('onboarding-flows from-frigade', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'onboarding-frigade-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the command line, keeping what it prints. */
  function run(...argv: string[]): { code: number; out: string[]; err: string[] } {
    const out: string[] = [];
    const err: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
    const error = vi.spyOn(console, 'error').mockImplementation((line: string) => void err.push(line));
    try {
      return { code: main(argv), out, err };
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
  }

  /** What Frigade's GET /v1/public/flows answers, for two flows: data as YAML text for one, JSON text for the other. */
  const LIST = {
    data: [
      {
        id: 11,
        slug: 'flow_welcome',
        name: 'Welcome',
        type: 'ANNOUNCEMENT',
        status: 'ACTIVE',
        version: 3,
        targetingLogic: "user.property('plan') == 'pro' && user.event('login').count > 3",
        data: 'title: Welcome\nsteps:\n  - id: hello\n    title: Hello\n    primaryButton:\n      title: Next\n  - id: tour\n    title: Take the tour\n',
        createdAt: '2024-01-02T10:00:00.000Z',
        modifiedAt: '2024-02-02T10:00:00.000Z',
      },
      {
        id: 12,
        slug: 'flow_setup',
        name: 'Get set up',
        type: 'CHECKLIST',
        status: 'ACTIVE',
        version: 1,
        targetingLogic: "user.flow('flow_welcome') == 'COMPLETED_FLOW'",
        data: JSON.stringify({
          title: 'Get set up',
          steps: [
            { id: 'connect', title: 'Connect your data', completionCriteria: "user.property('connected') == true" },
            { title: 'Invite your team', id: 'invite', visibilityCriteria: "user.memberOfGroup() == 'acme'" },
          ],
        }),
      },
      // An older draft of the same flow: the ACTIVE one is written.
      {
        id: 10,
        slug: 'flow_setup',
        name: 'Old setup',
        type: 'CHECKLIST',
        status: 'DRAFT',
        version: 2,
        targetingLogic: '',
        data: 'steps: []',
      },
    ],
    offset: 0,
    limit: 100,
  };

  it('writes a list-flows answer as flow files that check passes and a service serves', async () => {
    const input = join(dir, 'list.json');
    writeFileSync(input, JSON.stringify(LIST));
    const out = join(dir, 'round-trip');
    const converted = run('from-frigade', input, '--out', out);
    expect(converted).toEqual({ code: 0, out: [`2 flow files written to ${out}: no problems`], err: [] });
    expect(readdirSync(out).sort()).toEqual(['flow_setup.yaml', 'flow_welcome.yaml']);
    const setup = readFileSync(join(out, 'flow_setup.yaml'), 'utf8');
    expect(setup).toContain('# From Frigade: flow flow_setup, version 1.');
    expect(setup).toContain("targetingLogic: flows['flow_welcome'].status == 'COMPLETED_FLOW'");
    expect(setup).toContain('- id: invite');
    expect(run('check', out)).toMatchObject({ code: 0, out: ['2 flow files checked: no problems'] });

    const files = Object.fromEntries(readdirSync(out).map((file) => [file, readFileSync(join(out, file), 'utf8')]));
    const service = await startTestService(files);
    try {
      const pro = `frigade-${randomUUID()}`;
      await service.call('POST', '/v1/public/users', {
        body: { userId: pro, properties: { plan: 'pro' }, events: Array(4).fill({ event: 'login' }) },
      });
      expect(await eligibleSlugs(service, pro)).toEqual(['flow_welcome']);
      for (const stepId of ['hello', 'tour'])
        await service.call('POST', '/v1/public/flowStates', {
          body: { userId: pro, flowSlug: 'flow_welcome', stepId, actionType: 'COMPLETED_STEP' },
        });
      expect(await eligibleSlugs(service, pro)).toEqual(['flow_setup', 'flow_welcome']);
      expect(await eligibleSlugs(service, `frigade-${randomUUID()}`)).toEqual([]);
    } finally {
      await service.close();
    }
  });

  it('writes a form without CEL as "false" under a # TODO, and prints it with file and line', () => {
    const input = join(dir, 'one.json');
    const flow = {
      slug: 'flow_settings_tour',
      name: 'Settings tour',
      type: 'TOUR',
      status: 'ACTIVE',
      targetingLogic: "user.currentUrl() contains '/settings'",
      data: "steps:\n  - id: theme\n    title: Pick a theme\n    selector: '#theme'\n    startCriteria: user.flow('flow_welcome') within 7d\n",
    };
    writeFileSync(input, JSON.stringify(flow));
    const out = join(dir, 'todo');
    const { code, out: printed } = run('from-frigade', input, '--out', out);
    expect(code).toBe(1);
    const file = join(out, 'flow_settings_tour.yaml');
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const lineOf = (start: string) => lines.findIndex((line) => line.trimStart().startsWith(start)) + 1;
    expect(printed).toEqual([
      `${file}:${lineOf('targetingLogic:')}:17  targetingLogic: no CEL for Frigade's "user.currentUrl() contains '/settings'": user.currentUrl() has no equivalent: the service does not know the page a user is on (startWhen.page limits where a flow opens) (column 1); written as "false" with a # TODO`,
      `${file}:${lineOf('startCriteria:')}:22  data.steps[0].startCriteria: no CEL for Frigade's "user.flow('flow_welcome') within 7d": within on user.flow('flow_welcome') has no equivalent: the CEL context has each flow's status, not when it was completed or skipped (column 27); written as "false" with a # TODO`,
      `1 flow file written to ${out}: 2 problems in 1 of them`,
    ]);
    expect(lines.slice(lineOf('targetingLogic:') - 4, lineOf('targetingLogic:'))).toEqual([
      "# TODO: Frigade's targeting has no CEL form here, so nobody gets this flow until it is rewritten.",
      '#   user.currentUrl() has no equivalent: the service does not know the page a user is on (startWhen.page limits where a flow opens) (column 1)',
      "#   Frigade: user.currentUrl() contains '/settings'",
      'targetingLogic: "false"',
    ]);
    expect(lines[lineOf('startCriteria:') - 2]).toBe("      #   Frigade: user.flow('flow_welcome') within 7d");
    // Written as "false", the files still load.
    expect(run('check', out).code).toBe(0);
  });

  it('prints the problems check finds in what Frigade stored, with file and line', () => {
    const input = join(dir, 'unknown-key.json');
    writeFileSync(
      input,
      JSON.stringify({
        slug: 'flow_card',
        name: 'Card',
        type: 'CARD',
        data: 'steps:\n  - id: a\n    title: A\n    colour: red\n',
      }),
    );
    const { code, out } = run('from-frigade', input, '--out', join(dir, 'unknown-key'));
    expect(code).toBe(1);
    expect(out[0]).toMatch(/flow_card\.yaml:\d+:7 {2}data\.steps\[0\]\.colour: unknown key/);
  });

  it('writes a flow Frigade turned off as a draft', () => {
    const input = join(dir, 'off.json');
    writeFileSync(
      input,
      JSON.stringify([
        { slug: 'flow_off', name: 'Off', type: 'BANNER', status: 'ACTIVE', active: false, data: 'steps:\n  - id: a\n' },
      ]),
    );
    expect(run('from-frigade', input, '--out', join(dir, 'off')).code).toBe(0);
    expect(readFileSync(join(dir, 'off', 'flow_off.yaml'), 'utf8')).toMatch(/^status: DRAFT$/m);
  });

  it("writes Frigade's EMBEDDED_TIP as a CARD, as its React kit draws it", () => {
    const input = join(dir, 'tip.json');
    writeFileSync(
      input,
      JSON.stringify([
        { slug: 'flow_tip', name: 'Tip', type: 'EMBEDDED_TIP', data: 'steps:\n  - id: a\n    title: Try filters\n' },
      ]),
    );
    expect(run('from-frigade', input, '--out', join(dir, 'tip'))).toMatchObject({ code: 0, err: [] });
    const text = readFileSync(join(dir, 'tip', 'flow_tip.yaml'), 'utf8');
    expect(text).toMatch(/^type: CARD$/m);
    expect(text).toMatch(/^# .*EMBEDDED_TIP/m);
    expect(checkFlowText(text).problems).toEqual([]);
  });

  it('replaces files already there only with --force', () => {
    const input = join(dir, 'again.json');
    writeFileSync(
      input,
      JSON.stringify({ slug: 'flow_again', name: 'Again', type: 'CARD', data: 'steps:\n  - id: a\n' }),
    );
    const out = join(dir, 'again');
    expect(run('from-frigade', input, '--out', out).code).toBe(0);
    const refused = run('from-frigade', input, '--out', out);
    expect(refused.code).toBe(2);
    expect(refused.err[0]).toMatch(
      /flow_again\.yaml already exists: choose another --out folder, or replace them with --force$/,
    );
    expect(run('from-frigade', input, '--out', out, '--force').code).toBe(0);
  });

  it('exits 2 on bad usage and on input that is not Frigade flows', () => {
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, 'slug: yaml');
    expect(run('from-frigade', notJson, '--out', join(dir, 'x'))).toMatchObject({
      code: 2,
      err: [expect.stringMatching(/not\.json: not JSON: /)],
    });
    const noSlug = join(dir, 'no-slug.json');
    writeFileSync(noSlug, JSON.stringify({ data: [{ name: 'No slug' }] }));
    expect(run('from-frigade', noSlug, '--out', join(dir, 'x'))).toMatchObject({
      code: 2,
      err: [expect.stringContaining("flow 0: no slug: expected Frigade's list of flows")],
    });
    expect(run('from-frigade', noSlug).code).toBe(2);
    expect(run('from-frigade').code).toBe(2);
    expect(run('check', dir, '--out', 'x').code).toBe(2);
  });

  it('prints the CEL of one expression with --targeting, or why there is none', () => {
    expect(
      run('from-frigade', '--targeting', "user.property('plan') == 'pro' OR user.memberOfGroup() == 'acme'"),
    ).toEqual({
      code: 0,
      out: ["(has(user.properties.plan) && user.properties.plan == 'pro') || 'acme' in user.groups"],
      err: [],
    });
    expect(run('from-frigade', '--targeting', "user.property('plan') =! 'pro'")).toEqual({
      code: 1,
      out: [],
      err: ["user.property('plan') =! 'pro'\n                      ^ column 23: unexpected \"=\""],
    });
  });

  it('is in the usage text', () => {
    const { code, out } = run('--help');
    expect(code).toBe(0);
    expect(out[0]).toContain('onboarding-flows from-frigade <flows.json | -> --out <folder> [--force]');
    expect(out[0]).toContain('onboarding-flows from-frigade --targeting "<Frigade expression>"');
  });
});

describe("Frigade's flat button keys", () => {
  // As docs.frigade.com's "Branching Forms" example and a dashboard export write a step's buttons.
  const FLAT = `slug: flow_branch
name: Branching form
type: FORM
data:
  steps:
    - id: role
      title: What is your role?
      primaryButtonTitle: Continue
      secondaryButtonTitle: Read the docs
      secondaryButtonUri: https://docs.example/roles
      secondaryButtonUriTarget: _blank
    - id: done
      title: Thanks
      primaryButton: { title: Finish }
      primaryButtonTitle: Ignored, as Frigade's SDKs ignore it
`;

  it(
    'are taken by check and served as the button objects the elements draw, the flat keys kept',
    { timeout: 60_000 },
    async () => {
      const { definition, problems } = checkFlowText(FLAT);
      expect(problems).toEqual([]);
      const [role, done] = definition!.data.steps;
      expect(role.primaryButton).toEqual({ title: 'Continue' });
      expect(role.secondaryButton).toEqual({
        title: 'Read the docs',
        action: 'step.complete',
        uri: 'https://docs.example/roles',
        target: '_blank',
      });
      expect(role.primaryButtonTitle).toBe('Continue');
      expect(done.primaryButton).toEqual({ title: 'Finish' });
      const service = await startTestService({ 'branch.yaml': FLAT });
      try {
        const answer = await service.call('GET', '/v1/public/flowStates?userId=guest_flat');
        const flow = answer.body.eligibleFlows.find((f: { flowSlug: string }) => f.flowSlug === 'flow_branch');
        expect(flow.data.steps[0].secondaryButton.uri).toBe('https://docs.example/roles');
      } finally {
        await service.close();
      }
    },
  );

  it('refuse a flat link the elements would not follow, as the object form does', () => {
    const { problems } = checkFlowText(FLAT.replace('https://docs.example/roles', 'javascript:alert(1)'));
    expect(problems.map((p) => p.path)).toEqual(['data.steps[0].secondaryButtonUri']);
  });

  it('are rewritten by from-frigade into primaryButton and secondaryButton', () => {
    const data = FLAT.slice(FLAT.indexOf('data:\n') + 'data:\n'.length).replace(/^ {2}/gm, '');
    const [converted] = convertFrigadeFlows({
      data: [{ slug: 'flow_branch', name: 'Branching form', type: 'FORM', data }],
    });
    expect(converted.problems).toEqual([]);
    expect(converted.text).not.toMatch(/ButtonTitle|ButtonUri/);
    const { definition } = checkFlowText(converted.text);
    expect(definition!.data.steps[0].secondaryButton).toEqual({
      title: 'Read the docs',
      action: 'step.complete',
      uri: 'https://docs.example/roles',
      target: '_blank',
    });
    expect(definition!.data.steps[1].primaryButton).toEqual({ title: 'Finish' });
  });
});

describe('from-frigade keeps what Frigade wrote', () => {
  const DATA = `# Asked once, after signup
title: About you
steps:
  # The only step
  - id: about
    title: Tell us about you  # shown in bold
    primaryButtonTitle: Send # the flat form
    fields:
      - id: code
        type: text
        label: Invite code
        # Frigade finds it anywhere in the value
        pattern: /INV-[0-9]+/
      - id: zip
        type: text
        label: ZIP
        pattern: { value: "^[0-9]{5}$", message: Five digits }
`;

  it('writes the comments of its YAML where the same keys are', () => {
    const [converted] = convertFrigadeFlows([{ slug: 'flow_about', name: 'About', type: 'FORM', data: DATA }]);
    expect(converted.problems).toEqual([]);
    const text = converted.text;
    for (const comment of [
      '# Asked once, after signup',
      '# The only step',
      '# shown in bold',
      '# the flat form',
      '# Frigade finds it anywhere in the value',
    ])
      expect(text).toContain(comment);
    // Each where it stood: before the title, before the step, after the title's value, before the pattern.
    expect(text).toMatch(/# Asked once, after signup\n {2}title: About you/);
    expect(text).toMatch(/title: Tell us about you #\s*shown in bold/);
    expect(text).toMatch(/# Frigade finds it anywhere in the value\n(\s*#.*\n)*\s*pattern:/);
  });

  it("rewrites a field's pattern to match anywhere, as Frigade tests it, and says so; an anchored one stays", () => {
    const [converted] = convertFrigadeFlows([{ slug: 'flow_about', name: 'About', type: 'FORM', data: DATA }]);
    const { definition } = checkFlowText(converted.text);
    const [code, zip] = definition!.data.steps[0].fields!;
    const whole = (pattern: unknown, value: string) => new RegExp(`^(?:${String(pattern)})$`, 'v').test(value);
    expect(whole(code.pattern, 'my code is INV-42, thanks')).toBe(true);
    expect(whole(code.pattern, 'no code')).toBe(false);
    expect(zip.pattern).toEqual({ value: '^[0-9]{5}$', message: 'Five digits' });
    expect(converted.text).toMatch(/Frigade tests "\/INV-\[0-9\]\+\/" anywhere in the value/);
  });
});
