// A month of believable onboarding traffic, and three experiments with their users, written through the service's own API, for the dashboard's tests and screenshots.
import { assignVariant } from '../../src/api/experiment-assignment.js';
import type { ActionType } from '../../src/api/wire.js';
import { PRIVATE_KEY, type TestService } from './service.js';

/** A banner for the users whose property `cohort` is `cohort`. */
function cohortBanner(slug: string, title: string, cohort: string): string {
  return `
slug: ${slug}
name: ${title}
type: BANNER
targetingLogic: "has(user.properties.cohort) && user.properties.cohort == '${cohort}'"
data:
  steps:
    - { id: hello, title: ${title} }
`;
}

/** The flow files the seed writes to. */
export const SEED_FLOWS: Record<string, string> = {
  'getting-started.yaml': `
slug: getting-started
name: Getting started
type: CHECKLIST
goal: { event: report.exported, within: 7d }
data:
  steps:
    - { id: connect, title: Connect your data }
    - { id: invite, title: Invite your team }
    - { id: dashboard, title: Build a dashboard }
    - { id: share, title: Share a report }
`,
  'product-tour.yaml': `
slug: product-tour
name: Product tour
type: TOUR
data:
  steps:
    - { id: sidebar, title: Your workspace }
    - { id: search, title: Find anything }
    - { id: reports, title: Reports live here }
`,
  'whats-new.yaml': `
slug: whats-new
name: What's new in March
type: ANNOUNCEMENT
data:
  steps:
    - { id: intro, title: Scheduled exports }
    - { id: more, title: And a faster editor }
`,
  'nps.yaml': `
slug: nps
name: Quarterly NPS
type: SURVEY
data:
  steps:
    - { id: score, title: How likely are you to recommend Acme to a colleague? }
    - { id: why, title: What is the main reason for your score? }
`,
  'profile.yaml': `
slug: profile
name: Tell us about you
type: FORM
data:
  steps:
    - id: role
      title: Your role
      fields:
        - { id: role, type: select, label: Role, options: [{ value: engineer, label: Engineer }, { value: pm, label: Product manager }, { value: analyst, label: Analyst }] }
        - { id: teamSize, type: number, label: Team size }
    - id: goal
      title: Your goal
      fields:
        - { id: goal, type: textarea, label: What do you want to get done? }
`,
  // The experiments' flows, each shown only to the users of one cohort, so the seeded month stays out of them.
  'export-banner.yaml': cohortBanner('export-banner', 'Export in one click', 'export'),
  'invite-card.yaml': cohortBanner('invite-card', 'Invite your team', 'invite'),
  'quick-tour.yaml': cohortBanner('quick-tour', 'A quicker tour', 'quick'),
  'experiments.yaml': `
experiments:
  - id: export-banner
    status: running
    goal: { event: report.exported, within: 7d }
    variants:
      - { id: control, weight: 50 }
      - { id: banner, flow: export-banner, weight: 50 }
  - id: invite-card
    status: running
    goal: { event: team.invited, within: 14d }
    variants:
      - { id: control, weight: 50 }
      - { id: card, flow: invite-card, weight: 50 }
  - id: quick-tour
    status: running
    goal: { event: report.created, within: 3d }
    variants:
      - { id: control, weight: 99 }
      - { id: quick, flow: quick-tour, weight: 1 }
`,
};

/** The seeded experiments' weights, as in experiments.yaml above, for choosing users by their assignment. */
const QUICK_TOUR = {
  id: 'quick-tour',
  variants: [
    { id: 'control', weight: 99 },
    { id: 'quick', weight: 1 },
  ],
};
const EXPORT_BANNER = {
  id: 'export-banner',
  variants: [
    { id: 'control', weight: 50 },
    { id: 'banner', weight: 50 },
  ],
};

const COMMENTS = [
  'Setup took five minutes, the CSV import just worked.',
  'Love the dashboards, but exports are slow on big tables.',
  'Invite flow is confusing: my teammate never got the email.',
  'Great support team, answered within the hour.',
  'Pricing page could be clearer about seats.',
  'The editor is fast now, thanks for fixing it!',
  'Missing a Slack integration for alerts.',
];
const GOALS = [
  'Weekly revenue report for the leadership team',
  'Track activation of new accounts',
  'Replace our spreadsheets',
  'Monitor churn by plan',
];

/** Deterministic pseudo-random numbers, so every run seeds the same month. */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/**
 * Writes `users` users' progress over the last 28 days through POST /v1/public/flowStates (with a private key,
 * so no visitor limit applies), a few at a time: starts, steps, skips, survey scores and comments, form answers.
 */
export async function seedMonth(service: TestService, users = 120): Promise<void> {
  const rand = random(42);
  const today = Math.floor(Date.now() / 86_400_000) * 86_400_000;
  const plans: Array<Array<[string, ActionType, string, number, unknown?]>> = [];
  for (let i = 0; i < users; i++) {
    const userId = `user-${String(i).padStart(3, '0')}`;
    const start = today - Math.floor(rand() * 28) * 86_400_000 + (8 + rand() * 9) * 3600_000;
    let t = start;
    const later = (minutes: number) => (t += (0.2 + rand()) * minutes * 60_000);
    const steps: Array<[string, ActionType, string, number, unknown?]> = [];
    const act = (slug: string, action: ActionType, stepId = '', data?: unknown) =>
      steps.push([slug, action, stepId, later(4), data]);
    // The checklist: most connect, fewer invite, fewer still build and share.
    act('getting-started', 'STARTED_FLOW');
    for (const [stepId, p] of [
      ['connect', 0.86],
      ['invite', 0.68],
      ['dashboard', 0.8],
      ['share', 0.7],
    ] as const) {
      if (rand() < p) act('getting-started', rand() < 0.08 ? 'SKIPPED_STEP' : 'COMPLETED_STEP', stepId);
      else {
        if (rand() < 0.3) act('getting-started', 'SKIPPED_FLOW');
        break;
      }
    }
    if (rand() < 0.8) {
      act('product-tour', 'STARTED_FLOW');
      for (const stepId of ['sidebar', 'search', 'reports']) {
        if (rand() < 0.82) act('product-tour', 'COMPLETED_STEP', stepId);
        else {
          act('product-tour', 'SKIPPED_FLOW');
          break;
        }
      }
    }
    if (rand() < 0.7) {
      act('whats-new', 'STARTED_FLOW');
      act('whats-new', rand() < 0.75 ? 'COMPLETED_FLOW' : 'SKIPPED_FLOW');
    }
    if (rand() < 0.55) {
      act('nps', 'STARTED_FLOW');
      const r = rand();
      const score = r < 0.45 ? 9 + Math.round(rand()) : r < 0.75 ? 7 + Math.round(rand()) : Math.floor(rand() * 7);
      act('nps', 'COMPLETED_STEP', 'score', { value: score });
      if (rand() < 0.45) act('nps', 'COMPLETED_STEP', 'why', { value: COMMENTS[Math.floor(rand() * COMMENTS.length)] });
    }
    if (rand() < 0.45) {
      act('profile', 'STARTED_FLOW');
      act('profile', 'COMPLETED_STEP', 'role', {
        role: ['engineer', 'pm', 'analyst'][Math.floor(rand() * 3)],
        teamSize: 2 + Math.floor(rand() * 40),
      });
      if (rand() < 0.6) act('profile', 'COMPLETED_STEP', 'goal', { goal: GOALS[Math.floor(rand() * GOALS.length)] });
    }
    plans.push(
      steps
        .filter(([, , , at]) => at < Date.now())
        .map(([slug, action, stepId, at, data]) => [`${userId}|${slug}`, action, stepId, at, data]),
    );
  }
  for (let i = 0; i < plans.length; i += 8) {
    await Promise.all(
      plans.slice(i, i + 8).map(async (steps) => {
        for (const [key, actionType, stepId, at, data] of steps) {
          const [userId, flowSlug] = key.split('|') as [string, string];
          const body = {
            userId,
            flowSlug,
            stepId,
            actionType,
            createdAt: new Date(at).toISOString(),
            ...(data !== undefined ? { data } : {}),
            context: { url: `https://app.acme.example/${flowSlug}` },
          };
          let response = await service.call('POST', '/v1/public/flowStates', { key: PRIVATE_KEY, body });
          // A busy machine may shed a write (503, nothing stored); like the script, send it again after Retry-After.
          for (let tries = 1; response.status === 503 && tries < 20; tries++) {
            await new Promise((resolve) =>
              setTimeout(resolve, 1000 * Number(response.headers.get('retry-after') ?? 1)),
            );
            response = await service.call('POST', '/v1/public/flowStates', { key: PRIVATE_KEY, body });
          }
          if (response.status !== 201)
            throw new Error(`seeding ${key} ${actionType} ${stepId}: ${response.status} ${response.text}`);
        }
      }),
    );
  }
  // One user in ten found no search box on the page: the tour's second step reports its target missing.
  for (let i = 0; i < users; i += 10) {
    const userId = `user-${String(i).padStart(3, '0')}`;
    const events = [
      {
        event: 'onboarding:target-missing',
        properties: { flowSlug: 'product-tour', stepId: 'search', selector: '#search', page: '/reports' },
      },
    ];
    const response = await service.call('POST', '/v1/public/users', { key: PRIVATE_KEY, body: { userId, events } });
    if (response.status !== 201)
      throw new Error(`seeding a missing target of ${userId}: ${response.status} ${response.text}`);
  }
}

/** POST /v1/public/users with the private key (no visitor limit), retried after a shed write as the script would. */
async function upsertUser(service: TestService, body: Record<string, unknown>): Promise<void> {
  let response = await service.call('POST', '/v1/public/users', { key: PRIVATE_KEY, body });
  for (let tries = 1; response.status === 503 && tries < 20; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(response.headers.get('retry-after') ?? 1)));
    response = await service.call('POST', '/v1/public/users', { key: PRIVATE_KEY, body });
  }
  if (response.status !== 201)
    throw new Error(`seeding user ${String(body.userId)}: ${response.status} ${response.text}`);
}

/** Exposes a user: the upsert that gives them the cohort answers with their states, in the experiment's audience. */
const expose = (service: TestService, userId: string, cohort: string) =>
  upsertUser(service, { userId, properties: { cohort } });
const convert = (service: TestService, userId: string, event: string) =>
  upsertUser(service, { userId, events: [{ event }] });

/**
 * The users of the seeded experiments, exposed and converted through the public API, as a page would:
 * - export-banner: 80 users split by the assignment, 3 in 10 of the control converting and 6 in 10 of the banner's:
 *   enough data, and the split matches the weights;
 * - invite-card: 6 users, one converting: not enough data;
 * - quick-tour, weighted 99 to 1: 10 users the assignment puts in the control and 10 it puts in `quick`, half of each
 *   converting, a split the weights cannot explain: a sample ratio mismatch.
 * Then a third of the month's users export a report, the goal of the getting-started checklist.
 */
export async function seedExperiments(service: TestService, monthUsers = 120): Promise<void> {
  const seen = { control: 0, banner: 0 };
  for (let i = 0; i < 80; i++) {
    const userId = `export-${String(i).padStart(3, '0')}`;
    await expose(service, userId, 'export');
    const variant = (await assignVariant(EXPORT_BANNER, userId)) as keyof typeof seen;
    if (seen[variant]++ % 10 < (variant === 'banner' ? 6 : 3)) await convert(service, userId, 'report.exported');
  }
  for (let i = 0; i < 6; i++) {
    await expose(service, `invite-${i}`, 'invite');
    if (i === 0) await convert(service, `invite-${i}`, 'team.invited');
  }
  const chosen = { control: [] as string[], quick: [] as string[] };
  // Bounded: about one id in a hundred is in `quick`.
  for (let n = 0; n < 100_000 && (chosen.control.length < 10 || chosen.quick.length < 10); n++) {
    const userId = `quick-${n}`;
    const group = chosen[(await assignVariant(QUICK_TOUR, userId)) as keyof typeof chosen];
    if (group.length < 10) group.push(userId);
  }
  for (const group of [chosen.control, chosen.quick])
    for (const [index, userId] of group.entries()) {
      await expose(service, userId, 'quick');
      if (index % 2 === 0) await convert(service, userId, 'report.created');
    }
  for (let i = 0; i < monthUsers; i += 3)
    await convert(service, `user-${String(i).padStart(3, '0')}`, 'report.exported');
}
