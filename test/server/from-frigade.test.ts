// Moving from Frigade: its targeting in CEL, each row of docs/frigade.md's table on a running service.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCollectionsText } from '../../server/flows/collections.js';
import { checkFlowText } from '../../server/flows/definitions.js';
import { frigadeTargetingToCel } from '../../server/flows/frigade-targeting.js';
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
  "user.property('plan') == 'pro'": { holds: [{ properties: { plan: 'pro' } }], fails: [{ properties: { plan: 'free' } }, {}] },
  "user.property('plan') != 'pro'": { holds: [{ properties: { plan: 'free' } }, {}], fails: [{ properties: { plan: 'pro' } }] },
  "user.property('seats') >= 5": { holds: [{ properties: { seats: 5 } }, { properties: { seats: 12 } }], fails: [{ properties: { seats: 4 } }, {}] },
  "user.property('bankAccountConnected') == true": { holds: [{ properties: { bankAccountConnected: true } }], fails: [{ properties: { bankAccountConnected: false } }, {}] },
  "user.property('jobTitle') != null": { holds: [{ properties: { jobTitle: 'CTO' } }], fails: [{}] },
  "user.property('jobTitle') isSet true": { holds: [{ properties: { jobTitle: 'CTO' } }], fails: [{}] },
  "user.property('email') contains 'acme'": { holds: [{ properties: { email: 'ada@ACME.com' } }], fails: [{ properties: { email: 'ada@example.com' } }, {}] },
  "user.property('email') endsWith '@acme.com'": { holds: [{ properties: { email: 'ada@acme.com' } }], fails: [{ properties: { email: 'ada@acme.com.evil' } }, {}] },
  "user.property('country') isIn 'US,CA'": { holds: [{ properties: { country: 'CA' } }], fails: [{ properties: { country: 'FR' } }, {}] },
  "user.property('signedUpAt') > '2023-03-01 00:00:00'": {
    holds: [{ properties: { signedUpAt: '2023-03-01T00:00:01Z' } }],
    fails: [{ properties: { signedUpAt: '2023-02-28T23:59:59Z' } }, {}],
  },
  "user.property('signedUpAt') within 7d": { holds: [{ properties: { signedUpAt: daysAgo(6) } }], fails: [{ properties: { signedUpAt: daysAgo(8) } }, {}] },
  "user.property('signedUpAt') !within 30d": { holds: [{ properties: { signedUpAt: daysAgo(31) } }], fails: [{ properties: { signedUpAt: daysAgo(29) } }, {}] },
  "user.property('signedUpAt') < new Date() - 86400000 * 30": { holds: [{ properties: { signedUpAt: daysAgo(31) } }], fails: [{ properties: { signedUpAt: daysAgo(29) } }, {}] },
  "user.event('login').count > 3": { holds: [{ events: ['login', 'login', 'login', 'login'] }], fails: [{ events: ['login', 'login', 'login'] }, {}] },
  "user.eventCount('login') < 3": { holds: [{}, { events: ['login', 'login'] }], fails: [{ events: ['login', 'login', 'login'] }] },
  "group.property('tier') == 'gold'": { holds: [{ group: { properties: { tier: 'gold' } } }], fails: [{ group: { properties: { tier: 'silver' } } }, {}] },
  "organization.property('tier') == 'gold'": { holds: [{ group: { properties: { tier: 'gold' } } }], fails: [{ group: {} }] },
  "group.event('connectedBank').count > 0": { holds: [{ group: { events: ['connectedBank'] } }], fails: [{ group: { events: ['other'] } }, {}] },
  "user.memberOfGroup() == 'acme'": { holds: [{ group: { id: 'acme' } }], fails: [{ group: { id: 'globex' } }, {}] },
  "user.isGuest() == false": { holds: [{}], fails: [{ guest: true }] },
  "user.flow('flow_welcome') == 'COMPLETED_FLOW'": { holds: [completedWelcome], fails: [{}, { actions: [['', 'SKIPPED_FLOW']] }] },
  "user.flow('flow_welcome') == 'SKIPPED_FLOW'": { holds: [{ actions: [['', 'SKIPPED_FLOW']] }], fails: [{}, completedWelcome] },
  "user.flow('flow_welcome') == 'NOT_STARTED_FLOW'": { holds: [{}], fails: [{ actions: [['role', 'STARTED_STEP']] }, completedWelcome] },
  "user.flow('flow_welcome') != 'COMPLETED_FLOW'": { holds: [{}, { actions: [['', 'SKIPPED_FLOW']] }], fails: [completedWelcome] },
  "user.flowStep('flow_welcome', 'role') == 'COMPLETED_STEP'": { holds: [completedWelcome], fails: [{ actions: [['role', 'STARTED_STEP']] }] },
  "user.flowStepData('flow_welcome', 'role', 'team') == 'sales'": {
    holds: [completedWelcome],
    fails: [{ actions: [['role', 'COMPLETED_STEP', { team: 'support' }]] }, {}],
  },
  "user.property('plan') == 'pro' && user.event('login').count > 3": {
    holds: [{ properties: { plan: 'pro' }, events: ['login', 'login', 'login', 'login'] }],
    fails: [{ properties: { plan: 'pro' } }, { properties: { plan: 'free' }, events: ['login', 'login', 'login', 'login'] }],
  },
  "user.property('plan') == 'pro' AND user.event('login').count > 3": {
    holds: [{ properties: { plan: 'pro' }, events: ['login', 'login', 'login', 'login'] }],
    fails: [{ properties: { plan: 'pro' } }],
  },
  "(user.property('plan') == 'pro') || (user.property('plan') == 'team')": {
    holds: [{ properties: { plan: 'pro' } }, { properties: { plan: 'team' } }],
    fails: [{ properties: { plan: 'free' } }, {}],
  },
  "user.property('email') !contains 'test'": { holds: [{ properties: { email: 'ada@acme.com' } }, {}], fails: [{ properties: { email: 'qa+TEST@acme.com' } }] },
  "user.property('country') !isIn 'US,CA'": { holds: [{ properties: { country: 'FR' } }, {}], fails: [{ properties: { country: 'US' } }] },
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
      return [cells[2]!.replace(/^`|`$/g, ''), cells[3]!.replace(/^`|`$/g, '')];
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
      'flow_welcome.yaml': 'slug: flow_welcome\nname: Welcome\ntype: CHECKLIST\ndata:\n  steps:\n    - id: role\n      title: Your role\n',
      ...targetedCards(cards),
    });
  });
  afterAll(() => service?.close());

  /** Stores `someone`, then reads which row flows they are eligible for. */
  async function eligibleRows(someone: Someone): Promise<string[]> {
    const userId = `${someone.guest ? 'guest_' : 'frigade-'}${randomUUID()}`;
    const events = (names: string[] = []) => names.map((event) => ({ event }));
    const user = await service.call('POST', '/v1/public/users', { body: { userId, properties: someone.properties ?? {}, events: events(someone.events) } });
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
      const action = await service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug: 'flow_welcome', stepId, actionType, ...(data ? { data } : {}) } });
      expect(action.status, action.text).toBeLessThan(300);
    }
    return eligibleSlugs(service, userId, groupId);
  }

  it('has a row in the docs for each form tested here, each with the CEL it is written as', () => {
    expect(rows.map(([frigade]) => frigade).sort()).toEqual(Object.keys(ROWS).sort());
    for (const [frigade, cel] of rows) expect(frigadeTargetingToCel(frigade), frigade).toEqual({ cel });
  });

  it('gives each row the answer Frigade gives, on a running service', async () => {
    for (const [index, [frigade]] of rows.entries()) {
      for (const someone of ROWS[frigade]!.holds) expect(await eligibleRows(someone), `${frigade} holds for ${JSON.stringify(someone)}`).toContain(slugOf(index));
      for (const someone of ROWS[frigade]!.fails) expect(await eligibleRows(someone), `${frigade} fails for ${JSON.stringify(someone)}`).not.toContain(slugOf(index));
    }
  });
});

describe('docs/frigade.md', () => {
  it('has a flow file and a collections.yaml that load as they are', () => {
    const blocks = [...readFileSync('docs/frigade.md', 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const flows = blocks.filter((yaml) => /^slug: /m.test(yaml));
    const collections = blocks.filter((yaml) => /^collections:/m.test(yaml));
    expect([flows.length, collections.length]).toEqual([1, 1]);
    expect(checkFlowText(flows[0]!).problems).toEqual([]);
    expect(checkCollectionsText(collections[0]!, new Set(['flow_i6kH7DjcbE6tiaQd', 'flow_whats_new'])).problems).toEqual([]);
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
      message: 'user.currentUrl() has no equivalent: the service does not know the page a user is on (startWhen.page limits where a flow opens)',
    });
    expect(problem("user.flow('flow_welcome') !within 4w")).toMatchObject({ column: 27, message: expect.stringMatching(/^!within on user\.flow\('flow_welcome'\) has no equivalent/) });
    expect(problem("user.daysSinceFlowDone('flow_welcome') > 3")).toMatchObject({ column: 1 });
    expect(problem("!(user.property('plan') == 'pro')")).toMatchObject({ column: 1, message: expect.stringContaining('no "!" before an expression') });
    expect(problem("NOT user.property('plan') == 'pro'")).toMatchObject({ column: 1, message: expect.stringContaining('"NOT" is not one of') });
    expect(problem("user.property('plan') ==")).toEqual({ column: 25, message: 'expected a value but found the end' });
    expect(problem("user.property('plan) == 'pro'")).toMatchObject({ column: 29, message: 'a string that is not closed' });
    expect(problem("user.property('signedUpAt') within 7 days")).toMatchObject({ column: 36 });
    expect(problem("user.property('plan') > 'pro'")).toMatchObject({ column: 23, message: expect.stringContaining('numbers and times only') });
  });

  it('reads an expression of one character or none as no targeting, as Frigade does', () => {
    expect(frigadeTargetingToCel('')).toEqual({ cel: '' });
    expect(frigadeTargetingToCel(' \n ')).toEqual({ cel: '' });
  });
});
