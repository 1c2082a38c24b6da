// A month of believable onboarding traffic, written through the service's own API, for the dashboard's tests and screenshots.
import type { ActionType } from '../../src/api/wire.js';
import { PRIVATE_KEY, type TestService } from './service.js';

/** The flow files the seed writes to. */
export const SEED_FLOWS: Record<string, string> = {
  'getting-started.yaml': `
slug: getting-started
name: Getting started
type: CHECKLIST
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
