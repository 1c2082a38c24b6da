// `onboarding-flows explain` against a real service on loopback: the table, --json as the endpoint answers it, --flow, --group,
// an unknown user, and bad usage, a refused key and an unreachable service with their exit codes.
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ExplainResponse } from '../../src/api/wire.js';
import { main } from '../../server/flows/cli.js';
import {
  bannerFlowYaml,
  PRIVATE_KEY,
  PRO_BANNER_YAML,
  PUBLIC_KEY,
  startTestService,
  type TestService,
} from '../support/service.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    'welcome.yaml': bannerFlowYaml('welcome'),
    'pro-banner.yaml': PRO_BANNER_YAML,
    'draft.yaml': bannerFlowYaml('draft').replace('status: ACTIVE', 'status: DRAFT'),
  });
  const upsert = await service.call('POST', '/v1/public/users', {
    body: { userId: 'ada', properties: { plan: 'free' }, events: [{ event: 'report.exported' }] },
  });
  expect(upsert.status).toBe(201);
}, 60_000);
afterAll(() => service?.close());

/** Runs `onboarding-flows explain` with these arguments, keeping what it prints. */
async function explain(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
  const error = vi.spyOn(console, 'error').mockImplementation((line: string) => void err.push(line));
  try {
    return { code: await main(['explain', ...argv]), out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

const endpoint = async (userId: string, query = '') =>
  (await service.call('GET', `/v1/users/${encodeURIComponent(userId)}/explain${query}`, { key: PRIVATE_KEY }))
    .body as ExplainResponse;

describe('onboarding-flows explain', () => {
  it('prints one row per flow, those not shown first, then each flow not shown with its failed rules first', async () => {
    const { code, out, err } = await explain('ada', '--api', service.url, '--key', PRIVATE_KEY);
    expect(err).toBe('');
    expect(code).toBe(0);
    const answer = await endpoint('ada');
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^ada at \S+: 1 of 3 flows shown$/);
    expect(lines[2]).toMatch(/^FLOW\s+SHOWN\s+STATE\s+HELD BY\s+DETAIL$/);
    const rows = lines.slice(3, 6).map((line) => line.split(/\s{2,}/));
    // The catalog's order, those not shown first.
    expect(rows.map((row) => row[0])).toEqual([
      ...answer.flows.filter((flow) => !flow.shown).map((flow) => flow.flowSlug),
      ...answer.flows.filter((flow) => flow.shown).map((flow) => flow.flowSlug),
    ]);
    expect(rows.at(-1)![0]).toBe('welcome');
    const row = (slug: string) => rows.find((cells) => cells[0] === slug);
    const failed = (slug: string) => answer.flows.find((f) => f.flowSlug === slug)!.reasons.find((r) => !r.passed)!;
    expect(row('pro-banner')).toEqual(['pro-banner', 'no', 'not started', 'targeting', failed('pro-banner').detail]);
    expect(row('draft')).toEqual(['draft', 'no', 'not started', 'status', failed('draft').detail]);
    expect(row('welcome')).toEqual(['welcome', 'yes', 'not started', '-', '-']);
    // Each flow not shown: a heading, then every rule the service applied, the failed ones first.
    const section = out.slice(out.indexOf('\npro-banner (Pro banner): not shown\n'));
    const ruleLines = section
      .split('\n')
      .slice(2)
      .filter((line) => /^ {2}(FAILED|passed) /.test(line));
    const reasons = answer.flows.find((f) => f.flowSlug === 'pro-banner')!.reasons;
    expect(ruleLines).toHaveLength(reasons.length);
    expect(ruleLines[0]).toMatch(/^ {2}FAILED {2}targeting /);
    expect(ruleLines.slice(1).every((line) => line.startsWith('  passed'))).toBe(true);
    // The targeting's clauses, with their values, under the failed rule.
    const targeting = reasons.find((reason) => reason.rule === 'targeting')!;
    if (targeting.rule !== 'targeting') throw new Error('no targeting reason');
    const failing = targeting.clauses.find((clause) => clause.value !== true)!;
    expect(failing.expression).toContain("user.properties.plan == 'pro'");
    expect(section).toContain(`${failing.expression}  is ${JSON.stringify(failing.value)}`);
    // Under it, the user's side of the comparison; the literal the rule wrote says nothing new.
    expect(section).toContain('\n                        user.properties.plan = "free"\n');
    expect(section).not.toContain("'pro' = ");
    expect(out).toContain('\ndraft (Welcome): not shown\n  FAILED  status');
    expect(out).not.toContain('welcome (Welcome): not shown');
  });

  it('prints the JSON answer with --json, as the endpoint answers it', async () => {
    const { code, out } = await explain('ada', '--json', '--api', service.url, '--key', PRIVATE_KEY);
    expect(code).toBe(0);
    const printed = JSON.parse(out) as ExplainResponse;
    const answer = await endpoint('ada');
    expect({ ...printed, at: answer.at }).toEqual(answer);
    expect(printed.user.properties).toEqual({ plan: 'free' });
    expect(printed.user.recentEvents.map((e) => e.event)).toEqual(['report.exported']);
  });

  it('explains one flow with --flow, and says plainly when the user is unknown', async () => {
    const one = await explain('nobody-yet', '--api', `${service.url}/`, '--key', PRIVATE_KEY, '--flow', 'welcome');
    expect(one.code).toBe(0);
    const lines = one.out.split('\n');
    expect(lines[0]).toMatch(
      /^nobody-yet \(unknown to the service: explained as a new user\) at \S+: 1 of 1 flow shown$/,
    );
    expect(lines.slice(3)).toHaveLength(1);
    expect(lines[3]).toMatch(/^welcome\s+yes\s+not started\s+-\s+-$/);

    const json = await explain(
      'nobody-yet',
      '--api',
      service.url,
      '--key',
      PRIVATE_KEY,
      '--flow',
      'pro-banner',
      '--json',
    );
    const printed = JSON.parse(json.out) as ExplainResponse;
    expect(printed.exists).toBe(false);
    expect(printed.flows.map((flow) => flow.flowSlug)).toEqual(['pro-banner']);
  });

  it('explains the read the page makes with a group, with --group', async () => {
    await service.writeFlow(
      'team-card.yaml',
      'slug: team-card\nname: Team card\ntype: CARD\ntargetingLogic: "group.properties.tier == \'gold\'"\ndata:\n  steps:\n    - id: s\n',
    );
    try {
      const joined = await service.call('POST', '/v1/public/groups', {
        body: { groupId: 'acme', userId: 'ada', properties: { tier: 'gold' } },
      });
      expect(joined.status).toBe(201);
      const args = ['ada', '--api', service.url, '--key', PRIVATE_KEY, '--flow', 'team-card'];
      const alone = await explain(...args);
      expect(alone.out.split('\n')[3]).toMatch(/^team-card\s+no\s+not started\s+targeting\s/);
      const withGroup = await explain(...args, '--group', 'acme');
      expect(withGroup.code).toBe(0);
      expect(withGroup.out.split('\n')[3]).toMatch(/^team-card\s+yes\s+not started\s+-\s+-$/);
      const json = JSON.parse((await explain(...args, '--group', 'acme', '--json')).out) as ExplainResponse;
      const answer = await endpoint('ada', '?flowSlug=team-card&groupId=acme');
      expect({ ...json, at: answer.at }).toEqual(answer);
      expect(answer.user.groups).toEqual(['acme']);
    } finally {
      await service.removeFlow('team-card.yaml');
    }
  });

  it("prints the service's problem on standard error and exits 1 for an unknown flow, a refused key, or no service", async () => {
    const unknownFlow = await explain('ada', '--api', service.url, '--key', PRIVATE_KEY, '--flow', 'no-such-flow');
    expect(unknownFlow.code).toBe(1);
    expect(unknownFlow.out).toBe('');
    const notFound = await service.call('GET', '/v1/users/ada/explain?flowSlug=no-such-flow', { key: PRIVATE_KEY });
    expect(notFound.status).toBe(404);
    expect(unknownFlow.err).toBe(notFound.body.detail);

    const publicKey = await explain('ada', '--api', service.url, '--key', PUBLIC_KEY);
    expect(publicKey.code).toBe(1);
    expect(publicKey.out).toBe('');
    const refusal = await service.call('GET', '/v1/users/ada/explain', { key: PUBLIC_KEY });
    expect(refusal.status).toBeGreaterThanOrEqual(401);
    expect(publicKey.err).toBe(refusal.body.detail);

    // A port nothing listens on any more.
    const closed = createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await explain('ada', '--api', `http://127.0.0.1:${port}`, '--key', PRIVATE_KEY);
    expect(unreachable.code).toBe(1);
    expect(unreachable.err).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port} could not be reached: .*ECONNREFUSED`));
  });

  it.each([
    ['no user', ['--api', 'http://127.0.0.1:9', '--key', PRIVATE_KEY]],
    ['no --api', ['ada', '--key', PRIVATE_KEY]],
    ['no --key', ['ada', '--api', 'http://127.0.0.1:9']],
    ['two users', ['ada', 'bob', '--api', 'http://127.0.0.1:9', '--key', PRIVATE_KEY]],
    ['an unknown option', ['ada', '--api', 'http://127.0.0.1:9', '--key', PRIVATE_KEY, '--verbose']],
    ['an --api that is not http', ['ada', '--api', 'ftp://example.com', '--key', PRIVATE_KEY]],
    ['an empty --flow', ['ada', '--api', 'http://127.0.0.1:9', '--key', PRIVATE_KEY, '--flow', '']],
    ['an empty --group', ['ada', '--api', 'http://127.0.0.1:9', '--key', PRIVATE_KEY, '--group', '']],
  ])('prints its usage and exits 2 on %s', async (_, argv) => {
    const { code, out, err } = await explain(...argv);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain('Usage: onboarding-flows explain <userId> --api <url> --key <private key>');
  });
});
