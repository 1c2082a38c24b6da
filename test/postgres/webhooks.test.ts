// Webhooks from several instances on one PostgreSQL: one outbox, each event delivered by one instance at a time, a dead instance's claim taken over.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_DELIVERY, WebhookDelivery } from '../../server/webhooks/delivery.js';
import { checklistYaml, startTestInstances, type TestService } from '../support/service.js';
import { startWebhookReceiver, verifySignature, type WebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = 'whsec_test_0123456789abcdef';
let receiver: WebhookReceiver;
let deployment: Awaited<ReturnType<typeof startTestInstances>> | undefined;

beforeEach(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await deployment?.close();
  deployment = undefined;
  await receiver.close();
});

const start = (delivery: Record<string, number>) =>
  startTestInstances(
    3,
    { 'setup.yaml': checklistYaml('setup') },
    {
      limits: { userWritesPerMinute: 100_000, maxWaitMs: 600_000 },
      webhooks: {
        endpoints: [{ url: receiver.url, secret: SECRET, events: ['step.completed'] }],
        delivery: { retryBaseMs: 50, retryMaxMs: 200, timeoutMs: 5000, ...delivery },
      },
    },
  );

describe('webhooks from several instances', () => {
  it('deliver each event once, however many instances poll the one outbox', async () => {
    // A slow receiver keeps deliveries in flight while the other instances poll.
    receiver.delay(80);
    deployment = await start({ pollMs: 20, leaseMs: 30_000, batch: 5 });
    const instances = deployment.instances;
    const writes = Array.from({ length: 30 }, (_, i) =>
      instances[i % 3].call('POST', '/v1/public/flowStates', {
        body: { userId: `user-${i}`, flowSlug: 'setup', stepId: 'one', actionType: 'COMPLETED_STEP' },
      }),
    );
    expect((await Promise.all(writes)).map((answer) => answer.status)).toEqual(Array(30).fill(201));
    await receiver.waitFor((r) => r.accepted().length >= 30);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ids = receiver.deliveries.map((delivery) => delivery.headers['onboarding-event-id']);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    expect(new Set(receiver.accepted().map((event) => event.userId)).size).toBe(30);
    expect(
      receiver.deliveries.every((d) => verifySignature(SECRET, d.headers['onboarding-signature'] as string, d.body)),
    ).toBe(true);
  });

  it('deliver an event whose instance died after claiming it, once its lease ends', async () => {
    deployment = await start({ pollMs: 50, leaseMs: 1000 });
    const [a, b] = deployment.instances as [TestService, TestService];
    // No instance may deliver while the row is written and claimed by hand, as an instance that then died would have.
    await Promise.all(deployment.instances.map((instance) => instance.webhooks.stop()));
    await a.call('POST', '/v1/public/flowStates', {
      body: { userId: 'ada', flowSlug: 'setup', stepId: 'one', actionType: 'COMPLETED_STEP' },
    });
    await a.db.query("UPDATE webhook_outbox SET attempts = 1, next_attempt_at = now() + interval '1 second'");
    const claimedAt = Date.now();
    // A fresh delivery loop on b, as a new instance would run, finds the row only when the lease has ended.
    const delivery = new WebhookDelivery(b.db, { warn: () => {}, info: () => {} }, { ...DEFAULT_DELIVERY, pollMs: 50 });
    delivery.setEndpoints([{ url: receiver.url, secret: SECRET, events: null }]);
    try {
      await receiver.waitFor((r) => r.accepted().length >= 1);
      expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(900);
      expect(receiver.deliveries[0].headers['onboarding-attempt']).toBe('2');
    } finally {
      await delivery.stop();
    }
  });
});
