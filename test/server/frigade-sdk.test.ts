// Frigade's own JavaScript SDK (@frigade/js 0.9, 0.7 and 0.4) against this service on loopback, in Node: only the apiUrl changes.
import { createHash, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FlowState, FlowStatesResponse } from '../../src/api/wire.js';
import { FRIGADE_FLOWS } from '../support/frigade-flows.js';
import { PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';

/** The slice of the SDK these journeys use; every listed version has it. */
interface FrigadeStep {
  id: string;
  title?: string;
  $state: { completed: boolean; skipped: boolean; started: boolean };
  complete(properties?: Record<string, unknown>): Promise<void>;
}
interface FrigadeFlow {
  id: string;
  title?: string;
  isVisible: boolean;
  isCompleted: boolean;
  isSkipped: boolean;
  isStarted: boolean;
  steps: Map<string, FrigadeStep>;
  complete(): Promise<void>;
  skip(): Promise<void>;
  restart(): Promise<void>;
}
interface FrigadeSdk {
  getFlows(): Promise<FrigadeFlow[]>;
  getFlow(id: string): Promise<FrigadeFlow | undefined>;
  identify(userId: string, properties?: Record<string, unknown>): Promise<void>;
  group(groupId: string, properties?: Record<string, unknown>): Promise<void>;
  track(event: string, properties?: Record<string, unknown>): Promise<void>;
  destroy(): void;
}
type FrigadeClass = new (
  apiKey: string,
  config: { apiUrl: string; userId?: string; syncOnWindowUpdates?: boolean },
) => FrigadeSdk;

const SDKS: Record<string, () => Promise<{ Frigade: FrigadeClass }>> = {
  '0.9.12': () => import('@frigade/js'),
  '0.7.22': () => import('@frigade/js-0.7'),
  '0.4.22': () => import('@frigade/js-0.4') as never,
};

/** The slugs of the ACTIVE flows of FRIGADE_FLOWS (its draft is never sent), sorted. */
const ACTIVE_FLOWS = [
  'pro-tips',
  'react-banner',
  'react-card',
  'setup',
  'team-banner',
  'tip-one',
  'tip-two',
  'upgrade-nudge',
  'welcome',
];

let service: TestService;
let warnings: unknown[][];
beforeAll(async () => {
  service = await startTestService(FRIGADE_FLOWS);
});
afterAll(() => service?.close());
beforeEach(() => {
  warnings = [];
  // The SDK reports a failed call with console.warn and then carries on with an empty answer: any warning is a failure here.
  vi.spyOn(console, 'warn').mockImplementation((...args) => void warnings.push(args));
  vi.spyOn(console, 'debug').mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

async function storedFlow(userId: string, slug: string, groupId?: string): Promise<FlowState | undefined> {
  const query = `userId=${encodeURIComponent(userId)}${groupId ? `&groupId=${encodeURIComponent(groupId)}` : ''}&content=none`;
  const states = (await service.call('GET', `/v1/public/flowStates?${query}`)).body as FlowStatesResponse;
  return states.eligibleFlows.find((flow) => flow.flowSlug === slug);
}

/** The SDK's view of a flow and the service's stored state, in the same terms. */
function sdkView(flow: FrigadeFlow) {
  return {
    completed: flow.isCompleted,
    skipped: flow.isSkipped,
    steps: [...flow.steps.values()].map((step) => [step.id, step.$state.completed, step.$state.skipped]),
  };
}
function storedView(state: FlowState | undefined) {
  return {
    completed: state?.$state.completed,
    skipped: state?.$state.skipped,
    steps: state?.data.steps.map((step) => [step.id, step.$state.completed, step.$state.skipped]),
  };
}

describe.each(Object.keys(SDKS))('@frigade/js %s', (version) => {
  let Frigade: FrigadeClass;
  const sdks: FrigadeSdk[] = [];
  const open = (userId: string) => {
    const sdk = new Frigade(PUBLIC_KEY, { apiUrl: `${service.url}/`, userId, syncOnWindowUpdates: false });
    sdks.push(sdk);
    return sdk;
  };
  beforeAll(async () => {
    ({ Frigade } = await SDKS[version]());
  });
  afterAll(() => sdks.forEach((sdk) => sdk.destroy()));

  it('gets the eligible flows with their titles and step titles, and holds the other ACTIVE flows hidden', async () => {
    const frigade = open(`frigade-${randomUUID()}`);
    const flows = await frigade.getFlows();
    expect(
      flows
        .filter((flow) => flow.isVisible)
        .map((flow) => flow.id)
        .sort(),
    ).toEqual(['setup', 'welcome']);
    // The SDK sends its version header, so the service sends every ACTIVE flow: one that becomes eligible later is one it knows.
    expect(flows.map((flow) => flow.id).sort()).toEqual(ACTIVE_FLOWS);
    expect(flows.find((flow) => flow.id === 'pro-tips')).toMatchObject({
      title: 'Tips for pro users',
      isVisible: false,
    });
    const welcome = flows.find((flow) => flow.id === 'welcome')!;
    expect(welcome.title).toBe('Welcome aboard');
    expect([...welcome.steps.values()].map((step) => step.title)).toEqual(['Hello there', 'See you around']);
    expect(warnings).toEqual([]);
  });

  it('stores step.complete, flow.complete, flow.restart and flow.skip', async () => {
    const userId = `frigade-${randomUUID()}`;
    const frigade = open(userId);
    const setup = (await frigade.getFlow('setup'))!;
    await setup.steps.get('connect')!.complete({ source: 'csv' });
    expect((await storedFlow(userId, 'setup'))!.data.steps[0].$state.completed).toBe(true);
    const [row] = await service.db.query<{ data: unknown }>(
      "SELECT data FROM step_states WHERE user_id = $1 AND step_id = 'connect'",
      [userId],
    );
    expect(row.data).toEqual({ source: 'csv' });

    await setup.complete();
    expect((await storedFlow(userId, 'setup'))!.$state.completed).toBe(true);
    await setup.restart();
    expect((await storedFlow(userId, 'setup'))!.$state).toMatchObject({ completed: false, started: false });
    expect((await storedFlow(userId, 'setup'))!.data.steps[0].$state.completed).toBe(false);
    await setup.skip();
    expect((await storedFlow(userId, 'setup'))!.$state.skipped).toBe(true);
    expect(sdkView((await frigade.getFlow('setup'))!)).toEqual(storedView(await storedFlow(userId, 'setup')));
    expect(warnings).toEqual([]);
  });

  it('makes a property-targeted flow eligible through identify, a group-targeted one through group, an event-gated one through track', async () => {
    const userId = `frigade-${randomUUID()}`;
    const groupId = `team-${randomUUID()}`;
    const frigade = open(userId);
    const ids = async () => (await frigade.getFlows()).filter((flow) => flow.isVisible).map((flow) => flow.id);
    expect(await ids()).not.toContain('pro-tips');
    await frigade.identify(userId, { plan: 'pro' });
    expect(await ids()).toContain('pro-tips');
    expect((await frigade.getFlow('pro-tips'))!.title).toBe('Tips for pro users');
    expect(await ids()).not.toContain('team-banner');
    await frigade.group(groupId, { tier: 'gold' });
    expect(await ids()).toContain('team-banner');
    expect(await service.db.query('SELECT user_id FROM group_members WHERE group_id = $1', [groupId])).toEqual([
      { user_id: userId },
    ]);
    expect(await ids()).not.toContain('upgrade-nudge');
    await frigade.track('exported', { format: 'csv' });
    expect(await ids()).toContain('upgrade-nudge');
    expect(await service.db.query('SELECT event, properties FROM user_events WHERE user_id = $1', [userId])).toEqual([
      { event: 'exported', properties: { format: 'csv' } },
    ]);
    expect(warnings).toEqual([]);
  });

  it('agrees with the stored state after actions the state makes moot', async () => {
    const userId = `frigade-${randomUUID()}`;
    const frigade = open(userId);
    const setup = (await frigade.getFlow('setup'))!;
    await setup.complete();
    // Completing a step of a finished flow, and skipping a completed flow, change nothing on the service.
    await setup.steps.get('invite')!.complete();
    await setup.skip();
    const stored = await storedFlow(userId, 'setup');
    expect(stored!.$state).toMatchObject({ completed: true, skipped: false });
    expect(sdkView((await frigade.getFlow('setup'))!)).toEqual(storedView(stored));
    expect(warnings).toEqual([]);
  });
});

describe('an experiment, through each version of @frigade/js', () => {
  /** Two copies of a card shown to the `exp` cohort only, so the journeys above are untouched. */
  const card = (slug: string, title: string) => `slug: ${slug}
name: ${title}
type: CARD
targetingLogic: "has(user.properties.cohort) && user.properties.cohort == 'exp'"
data:
  steps:
    - id: only
      title: ${title}
`;
  const variants: Array<[string, number, string | undefined]> = [
    ['control', 50, undefined],
    ['a', 25, 'exp-a'],
    ['b', 25, 'exp-b'],
  ];
  /** The documented assignment (docs/protocol.md), written out here. */
  const variantOf = (userId: string) => {
    const bucket = createHash('sha256').update(`sdk-copy.${userId}`).digest().readUInt32BE(0) % 10_000;
    let cumulative = 0;
    return variants.find(([, weight]) => bucket < Math.floor((10_000 * (cumulative += weight)) / 100))!;
  };
  /** A user id of the given variant. */
  const userIn = (variant: string, prefix: string) => {
    for (let n = 0; ; n++)
      if (variantOf(`${prefix}-${variant}-${n}`)[0] === variant) return `${prefix}-${variant}-${n}`;
  };

  beforeAll(async () => {
    writeFileSync(join(service.flowsDir, 'exp-a.yaml'), card('exp-a', 'Copy A'));
    writeFileSync(join(service.flowsDir, 'exp-b.yaml'), card('exp-b', 'Copy B'));
    await service.writeFlow(
      'experiments.yaml',
      `experiments:\n  - id: sdk-copy\n    status: running\n    goal: { event: exported }\n    variants:\n${variants
        .map(([id, weight, flow]) => `      - { id: ${id}, weight: ${weight}${flow ? `, flow: ${flow}` : ''} }\n`)
        .join('')}`,
    );
  });
  afterAll(async () => {
    for (const file of ['experiments.yaml', 'exp-a.yaml', 'exp-b.yaml']) await service.removeFlow(file);
  });

  it.each(Object.keys(SDKS))(
    '@frigade/js %s shows a variant its own copy only, and a control user neither',
    async (version) => {
      const { Frigade } = await SDKS[version]();
      for (const variant of ['control', 'a', 'b']) {
        const userId = userIn(variant, `sdk-${version}`);
        const expected = variantOf(userId);
        expect(expected[0]).toBe(variant);
        const frigade = new Frigade(PUBLIC_KEY, { apiUrl: `${service.url}/`, userId, syncOnWindowUpdates: false });
        try {
          await frigade.identify(userId, { cohort: 'exp' });
          const visible = (await frigade.getFlows()).filter((flow) => flow.isVisible).map((flow) => flow.id);
          expect(visible.filter((id) => id.startsWith('exp-'))).toEqual(expected[2] ? [expected[2]] : []);
        } finally {
          frigade.destroy();
        }
      }
      expect(warnings).toEqual([]);
    },
  );
});

describe('a global limit and a schedule, through each version of @frigade/js', () => {
  /** Two cards for the `limited` cohort only, one a day between them; and one whose schedule has ended. */
  const card = (slug: string, extra = '') => `slug: ${slug}
name: ${slug}
type: CARD
targetingLogic: "has(user.properties.cohort) && user.properties.cohort == 'limited'"
${extra}data:
  steps:
    - id: only
      title: ${slug}
`;
  const FILES = ['limits.yaml', 'limited-a.yaml', 'limited-b.yaml', 'limited-gone.yaml'];

  beforeAll(async () => {
    writeFileSync(join(service.flowsDir, 'limited-a.yaml'), card('limited-a'));
    writeFileSync(join(service.flowsDir, 'limited-b.yaml'), card('limited-b'));
    writeFileSync(
      join(service.flowsDir, 'limited-gone.yaml'),
      card('limited-gone', 'schedule: { start: "2020-01-01T00:00:00Z", end: "2020-02-01T00:00:00Z" }\n'),
    );
    await service.writeFlow(
      'limits.yaml',
      'limits:\n  - id: one-card-a-day\n    flows: [limited-a, limited-b]\n    max: 1\n    per: 1d\n',
    );
  });
  afterAll(async () => {
    for (const file of FILES) await service.removeFlow(file);
  });

  it.each(Object.keys(SDKS))(
    '@frigade/js %s hides the card a limit holds back once the other is started, and never gets a flow past its schedule',
    async (version) => {
      const { Frigade } = await SDKS[version]();
      const userId = `sdk-limits-${version}-${randomUUID()}`;
      const frigade = new Frigade(PUBLIC_KEY, { apiUrl: `${service.url}/`, userId, syncOnWindowUpdates: false });
      try {
        await frigade.identify(userId, { cohort: 'limited' });
        const visible = async () =>
          (await frigade.getFlows())
            .filter((flow) => flow.isVisible && flow.id.startsWith('limited-'))
            .map((flow) => flow.id)
            .sort();
        expect(await visible()).toEqual(['limited-a', 'limited-b']);
        const flows = await frigade.getFlows();
        // Past its schedule, the flow is not eligible: the SDK lists it (from the flows it fetches) as not visible.
        expect(flows.find((flow) => flow.id === 'limited-gone')?.isVisible ?? false).toBe(false);
        await flows
          .find((flow) => flow.id === 'limited-a')!
          .steps.get('only')!
          .complete();
        // A fresh SDK reads the service again: limited-a is completed, limited-b waits for tomorrow.
        const again = new Frigade(PUBLIC_KEY, { apiUrl: `${service.url}/`, userId, syncOnWindowUpdates: false });
        try {
          const seen = (await again.getFlows()).filter((flow) => ['limited-a', 'limited-b'].includes(flow.id));
          expect(seen.map((flow) => [flow.id, flow.isVisible]).sort()).toEqual([
            ['limited-a', false],
            ['limited-b', false],
          ]);
        } finally {
          again.destroy();
        }
        expect((await storedFlow(userId, 'limited-b'))?.$state.visible).toBe(false);
      } finally {
        frigade.destroy();
      }
      expect(warnings).toEqual([]);
    },
  );
});
