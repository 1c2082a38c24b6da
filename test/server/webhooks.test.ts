// Webhooks over loopback: every event reaches a real receiver that fails and then recovers, signed, filtered, retried and cut off.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FlowWebhookEvent, WebhookEvent } from '../../src/api/wire.js';
import { endpointsFromFile } from '../../server/webhooks/config.js';
import { retryDelayMs } from '../../server/webhooks/delivery.js';
import { checklistYaml, PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';
import { startWebhookReceiver, verifySignature, type WebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = 'whsec_test_0123456789abcdef';
/** Retries within the test's patience: 50 ms doubling, polled every 50 ms. */
const FAST = { retryBaseMs: 50, retryMaxMs: 400, pollMs: 50, timeoutMs: 2000, leaseMs: 5000 };

const FLOWS = {
  'setup.yaml': checklistYaml('setup'),
  'survey.yaml': 'slug: survey\nname: Survey\ntype: SURVEY\ndata:\n  steps:\n    - id: score\n    - id: why\n',
  'profile.yaml':
    'slug: profile\nname: Profile\ntype: FORM\ndata:\n  steps:\n    - id: about\n      fields: [{ id: name, type: text, label: Name }]\n',
};

let receiver: WebhookReceiver;
let service: TestService | undefined;

beforeEach(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await service?.close();
  service = undefined;
  await receiver.close();
});

async function act(userId: string, flowSlug: string, actionType: string, stepId = '', data?: unknown): Promise<void> {
  const response = await service!.call('POST', '/v1/public/flowStates', {
    body: {
      userId,
      flowSlug,
      stepId,
      actionType,
      ...(data !== undefined ? { data } : {}),
      context: { url: 'https://app.example/start' },
    },
  });
  expect(response.status, response.text).toBe(201);
}

const outbox = () =>
  service!.db.query<{ event_type: string; attempts: number; failed_at: Date | null; last_error: string | null }>(
    'SELECT event_type, attempts, failed_at, last_error FROM webhook_outbox ORDER BY id',
  );

describe('webhooks', () => {
  it('sends experiment.exposed once per user and experiment, with the variant, from the answer that exposed them', async () => {
    service = await startTestService(
      {
        ...FLOWS,
        'experiments.yaml':
          'experiments:\n  - id: setup-copy\n    status: running\n    goal: { event: done }\n    variants:\n      - { id: control, weight: 1 }\n      - { id: shown, flow: setup, weight: 1 }\n',
      },
      {
        webhooks: {
          endpoints: [{ url: receiver.url, secret: SECRET, events: ['experiment.exposed'] }],
          delivery: FAST,
        },
      },
    );
    for (const userId of ['exp-1', 'exp-2', 'exp-3']) {
      await service.call('GET', `/v1/public/flowStates?userId=${userId}`);
      await service.call('POST', '/v1/public/flowStates', { body: { userId } });
    }
    await receiver.waitFor((r) => r.accepted().length >= 3);
    // Another read records nothing new, so no fourth delivery comes.
    await service.call('GET', '/v1/public/flowStates?userId=exp-1');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const events = receiver.accepted();
    expect(events.map((event) => event.userId).sort()).toEqual(['exp-1', 'exp-2', 'exp-3']);
    const csv = (
      await service.call('GET', '/v1/analytics/experiments/setup-copy/participants.csv', { key: PRIVATE_KEY })
    ).text;
    for (const event of events) {
      expect(event).toMatchObject({ type: 'experiment.exposed', experimentId: 'setup-copy' });
      if (event.type !== 'experiment.exposed') continue;
      expect(event.flowSlug).toBe(event.variant === 'shown' ? 'setup' : null);
      expect(csv).toContain(`\r\n${event.userId},${event.variant},${event.createdAt},`);
    }
  });

  it('delivers every event, signed, once a failing receiver recovers', async () => {
    // Down at first: every delivery gets a 503 until the test lets it recover.
    receiver.answer(503);
    service = await startTestService(FLOWS, {
      webhooks: { endpoints: [{ url: receiver.url, secret: SECRET, events: null }], delivery: FAST },
    });
    await act('ada', 'setup', 'COMPLETED_STEP', 'one');
    await act('ada', 'setup', 'SKIPPED_STEP', 'two');
    await act('ada', 'setup', 'COMPLETED_STEP', 'three');
    await act('bob', 'setup', 'STARTED_FLOW');
    await act('bob', 'setup', 'SKIPPED_FLOW');
    await act('ada', 'survey', 'COMPLETED_STEP', 'score', { value: 9 });
    await act('ada', 'profile', 'COMPLETED_STEP', 'about', { name: 'Ada' });
    await act('guest_1', 'setup', 'STARTED_STEP', 'one');
    await service.call('POST', '/v1/public/users', { body: { userId: 'cid', linkGuestId: 'guest_1' } });
    await service.call('POST', '/v1/public/users', { body: { userId: 'eve' } });
    await service.call('DELETE', '/v1/users?foreignId=eve', { key: PRIVATE_KEY });
    await receiver.waitFor((r) => r.deliveries.length >= 12);
    receiver.answer(200);

    const expected = [
      'ada flow.started setup one',
      'ada step.completed setup one',
      'ada step.skipped setup two',
      'ada step.completed setup three',
      'ada flow.completed setup three',
      'ada flow.started survey score',
      'ada step.completed survey score',
      'ada survey.answered survey score',
      'ada flow.started profile about',
      'ada step.completed profile about',
      'ada form.submitted profile about',
      'ada flow.completed profile about',
      'bob flow.started setup',
      'bob flow.skipped setup',
      'guest_1 flow.started setup one',
      'cid user.linked',
      'eve user.deleted',
    ];
    const label = (e: WebhookEvent) =>
      [e.userId, e.type, ...('stepId' in e ? [e.flowSlug, e.stepId] : [])].filter(Boolean).join(' ');
    await receiver.waitFor((r) => new Set(r.accepted().map((e) => e.id)).size >= expected.length);
    const accepted = receiver.accepted();
    expect(accepted.map(label).sort()).toEqual([...expected].sort());
    expect(new Set(accepted.map((e) => e.id)).size).toBe(accepted.length);
    for (const delivery of receiver.deliveries) {
      expect(verifySignature(SECRET, delivery.headers['onboarding-signature'] as string, delivery.body)).toBe(true);
      expect(
        verifySignature(
          'another secret of some length',
          delivery.headers['onboarding-signature'] as string,
          delivery.body,
        ),
      ).toBe(false);
      const event = JSON.parse(delivery.body) as WebhookEvent;
      expect(delivery.headers).toMatchObject({
        'content-type': 'application/json',
        'onboarding-event-id': event.id,
        'onboarding-event': event.type,
      });
    }
    expect(receiver.deliveries.filter((d) => d.status === 503).length).toBeGreaterThanOrEqual(12);
    const answered = accepted.find((e) => e.type === 'survey.answered') as FlowWebhookEvent;
    expect(answered).toMatchObject({
      flowSlug: 'survey',
      flowVersion: 1,
      stepId: 'score',
      data: { value: 9 },
      url: 'https://app.example/start',
    });
    expect(accepted.find((e) => e.type === 'user.linked')).toMatchObject({ userId: 'cid', guestId: 'guest_1' });
    // Delivered rows leave the outbox.
    await expect.poll(async () => (await outbox()).length).toBe(0);
  });

  it("drops a deleted user's undelivered events and queues user.deleted, tied to no user", async () => {
    receiver.answer(503);
    // After one failed attempt the next is a minute away, so nothing is in flight when the user is deleted.
    service = await startTestService(FLOWS, {
      webhooks: {
        endpoints: [{ url: receiver.url, secret: SECRET, events: null }],
        delivery: { ...FAST, retryBaseMs: 60_000 },
      },
    });
    await act('bob', 'survey', 'COMPLETED_STEP', 'score', { value: 2 });
    await act('kim', 'setup', 'SKIPPED_FLOW');
    await receiver.waitFor((r) => r.deliveries.length >= 4);
    await expect.poll(async () => (await outbox()).every((row) => row.attempts === 1)).toBe(true);
    expect((await service.call('DELETE', '/v1/users?foreignId=bob', { key: PRIVATE_KEY })).status).toBe(204);
    const rows = await service.db.query<{ event_type: string; user_id: string | null; payload: string }>(
      'SELECT event_type, user_id, payload FROM webhook_outbox ORDER BY id',
    );
    expect(rows.map((row) => [row.event_type, row.user_id])).toEqual([
      ['flow.skipped', 'kim'],
      ['user.deleted', null],
    ]);
    expect(JSON.parse(rows[1].payload)).toMatchObject({ type: 'user.deleted', userId: 'bob' });
    expect(rows.some((row) => row.payload.includes('"value":2'))).toBe(false);
  });

  it('sends each endpoint only the events it takes', async () => {
    const other = await startWebhookReceiver();
    try {
      service = await startTestService(FLOWS, {
        webhooks: {
          endpoints: [
            { url: receiver.url, secret: SECRET, events: ['survey.answered'] },
            { url: other.url, secret: 'another-secret-0123456789', events: ['flow.completed', 'flow.skipped'] },
          ],
          delivery: FAST,
        },
      });
      await act('ada', 'survey', 'COMPLETED_STEP', 'score', { value: 3 });
      // An answer given as fields, as Frigade's survey components send it, is an answer too.
      await act('ada', 'survey', 'COMPLETED_STEP', 'why', { feedback: 'slow' });
      await receiver.waitFor((r) => r.accepted().length >= 2);
      await other.waitFor((r) => r.accepted().length >= 1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.accepted().map((e) => e.type)).toEqual(['survey.answered', 'survey.answered']);
      expect(receiver.accepted().find((e) => (e as FlowWebhookEvent).stepId === 'why')).toMatchObject({
        data: { feedback: 'slow' },
      });
      expect(other.accepted().map((e) => e.type)).toEqual(['flow.completed']);
      expect(
        verifySignature(
          'another-secret-0123456789',
          other.deliveries[0].headers['onboarding-signature'] as string,
          other.deliveries[0].body,
        ),
      ).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('gives an event up after the attempt limit, and keeps it with the last error', async () => {
    receiver.answer(500);
    service = await startTestService(FLOWS, {
      webhooks: {
        endpoints: [{ url: receiver.url, secret: SECRET, events: ['flow.skipped'] }],
        delivery: { ...FAST, maxAttempts: 3 },
      },
    });
    await act('ada', 'setup', 'SKIPPED_FLOW');
    await expect.poll(async () => (await outbox())[0]?.failed_at ?? null, { timeout: 10_000 }).not.toBeNull();
    expect(await outbox()).toMatchObject([{ event_type: 'flow.skipped', attempts: 3, last_error: 'HTTP 500' }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.deliveries).toHaveLength(3);
  });

  it('counts a receiver that does not answer in time, or redirects, as a failure', async () => {
    receiver.delay(500);
    service = await startTestService(FLOWS, {
      webhooks: {
        endpoints: [{ url: receiver.url, secret: SECRET, events: ['flow.skipped'] }],
        delivery: { ...FAST, timeoutMs: 100, maxAttempts: 1 },
      },
    });
    await act('ada', 'setup', 'SKIPPED_FLOW');
    await expect
      .poll(async () => (await outbox())[0]?.last_error ?? null, { timeout: 10_000 })
      .toBe('no answer within 100 ms');
    receiver.delay(0);
    receiver.answer(302);
    await service.db.query('UPDATE webhook_outbox SET failed_at = NULL, attempts = 0');
    service.webhooks.poke();
    await expect.poll(async () => (await outbox())[0]?.last_error ?? null, { timeout: 10_000 }).toBe('HTTP 302');
  });

  it('keeps undelivered events across a restart and delivers them after it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'onboarding-webhooks-'));
    try {
      receiver.answer(503);
      const endpoints = [{ url: receiver.url, secret: SECRET, events: null }];
      service = await startTestService(FLOWS, { database: dataDir, webhooks: { endpoints, delivery: FAST } });
      await act('ada', 'setup', 'SKIPPED_FLOW');
      await receiver.waitFor((r) => r.deliveries.length >= 2);
      await service.close();
      expect(receiver.accepted()).toEqual([]);
      receiver.answer(200);
      // The next start on the same data looks at the outbox at once.
      service = await startTestService(FLOWS, { database: dataDir, webhooks: { endpoints, delivery: FAST } });
      await receiver.waitFor((r) => r.accepted().length >= 1);
      expect(receiver.accepted().map((e) => e.type)).toEqual(['flow.skipped']);
    } finally {
      await service?.close();
      service = undefined;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('stores no event when no endpoint takes it', async () => {
    service = await startTestService(FLOWS, {
      webhooks: { endpoints: [{ url: receiver.url, secret: SECRET, events: ['user.deleted'] }], delivery: FAST },
    });
    await act('ada', 'setup', 'COMPLETED_STEP', 'one');
    expect(await outbox()).toEqual([]);
  });
});

describe('webhooks.yaml', () => {
  it('configures endpoints beside the flows, with the secret from an environment variable, and is not read as a flow', async () => {
    const yaml = `endpoints:\n  - url: ${receiver.url}\n    secretEnv: HOOK_SECRET\n    events: [step.completed]\n`;
    service = await startTestService(
      { ...FLOWS, 'webhooks.yaml': yaml },
      {
        env: { ONBOARDING_PUBLIC_KEYS: 'pk_test_public', ONBOARDING_PRIVATE_KEYS: PRIVATE_KEY, HOOK_SECRET: SECRET },
        webhooks: { delivery: FAST },
      },
    );
    expect(service.catalog.list().map((flow) => flow.flow.slug)).toEqual(['profile', 'setup', 'survey']);
    await act('ada', 'setup', 'COMPLETED_STEP', 'one');
    await receiver.waitFor((r) => r.accepted().length >= 1);
    expect(receiver.accepted().map((e) => e.type)).toEqual(['step.completed']);
    expect(
      verifySignature(
        SECRET,
        receiver.deliveries[0].headers['onboarding-signature'] as string,
        receiver.deliveries[0].body,
      ),
    ).toBe(true);
  });

  it.each([
    [
      'an unknown event',
      'endpoints:\n  - url: https://x.example\n    secret: 0123456789abcdef0\n    events: [flow.done]\n',
      'unknown event "flow.done"',
    ],
    ['a short secret', 'endpoints:\n  - url: https://x.example\n    secret: short\n', 'at least 16 characters'],
    ['a missing variable', 'endpoints:\n  - url: https://x.example\n    secretEnv: NOPE_NOT_SET\n', 'NOPE_NOT_SET'],
    [
      'a URL that is not http',
      'endpoints:\n  - url: ftp://x.example\n    secret: 0123456789abcdef0\n',
      'must be http or https',
    ],
    ['no endpoints list', 'hooks: []\n', 'must hold "endpoints:"'],
  ])('refuses a file with %s, naming the file and the problem', (_name, yaml, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'onboarding-hooks-'));
    try {
      writeFileSync(join(dir, 'webhooks.yaml'), yaml);
      expect(() => endpointsFromFile(dir, {})).toThrow(message);
      expect(() => endpointsFromFile(dir, {})).toThrow('webhooks.yaml');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps a service with a broken webhooks.yaml from starting', async () => {
    await expect(startTestService({ 'webhooks.yaml': 'endpoints: [{ url: "https://x.example" }]\n' })).rejects.toThrow(
      'webhooks.yaml endpoint 1 needs a secret',
    );
  });
});

describe('the retry schedule', () => {
  it('doubles from the base up to the cap, less up to a tenth', () => {
    const settings = { retryBaseMs: 10_000, retryMaxMs: 6 * 3600_000 };
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, settings, () => 0))).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(retryDelayMs(15, settings, () => 0)).toBe(6 * 3600_000);
    expect(retryDelayMs(1, settings, () => 0.999)).toBeGreaterThan(9000);
    // Fifteen attempts span about a day.
    const total = Array.from({ length: 14 }, (_, i) => retryDelayMs(i + 1, settings, () => 0)).reduce(
      (a, b) => a + b,
      0,
    );
    expect(total / 3600_000).toBeGreaterThan(20);
    expect(total / 3600_000).toBeLessThan(26);
  });
});
