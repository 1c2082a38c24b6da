// The state answer's two forms agree: objects (used inside the service) and the JSON text made from per-version fragments.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUserSnapshot } from '../../server/state/snapshot.js';
import { deriveFlowStates, renderFlowStateParts, type ReadOptions } from '../../server/state/derive.js';
import { checklistYaml, startTestService, type TestService } from '../support/service.js';

const RICH = `
slug: rich
name: "A \\"quoted\\" name, with unicode: é ✓"
type: FORM
data:
  title: Tell us more
  props: { layout: wide, custom: 42, nested: { list: [1, 2, { deep: true }] } }
  steps:
    - id: first
      title: "Line one\\nline two"
      fields: [{ id: name, type: text, label: Name, required: true }]
      primaryButton: { title: Next, action: step.complete }
    - id: "second step"
      title: Done
`;

let service: TestService;
beforeAll(async () => {
  service = await startTestService({
    'rich.yaml': RICH,
    'setup.yaml': checklistYaml('setup'),
    'hidden.yaml': checklistYaml('hidden', 'false'),
  });
});
afterAll(() => service?.close());

describe('rendered state answers', () => {
  it('equal the derived objects, with content, without it, with known versions, and with flows targeted out sent hidden', async () => {
    const userId = `user-${randomUUID()}`;
    await service.call('POST', '/v1/public/flowStates', {
      body: {
        userId,
        flowSlug: 'rich',
        stepId: 'first',
        actionType: 'COMPLETED_STEP',
        data: { name: 'Ada "the" Countess' },
      },
    });
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'setup', actionType: 'SKIPPED_FLOW' },
    });
    const version = service.catalog.current();
    expect(version.flows.map((flow) => flow.flow.slug)).toEqual(['hidden', 'rich', 'setup']);
    const snapshot = await loadUserSnapshot(service.db, userId, undefined, version);
    const variants: ReadOptions[] = [
      {},
      { content: 'none' },
      { knownVersions: { rich: 1 } },
      { knownVersions: { setup: 1, rich: 99 } },
      { targetedOut: 'hidden' },
      { targetedOut: 'hidden', content: 'none' },
      { targetedOut: 'hidden', knownVersions: { hidden: 1 } },
      { targetedOut: 'omit' },
    ];
    for (const options of variants) {
      const text = Buffer.concat(renderFlowStateParts(version, snapshot, options)).toString();
      expect(JSON.parse(text)).toEqual(deriveFlowStates(version, snapshot, options));
    }
    // And what a client receives is the same, with the content as written.
    const answer = await service.call('GET', `/v1/public/flowStates?userId=${userId}`);
    expect(answer.body.eligibleFlows.find((f: { flowSlug: string }) => f.flowSlug === 'rich')).toMatchObject({
      flowName: 'A "quoted" name, with unicode: é ✓',
      data: { props: { custom: 42 } },
    });
    expect(answer.body.eligibleFlows.find((f: { flowSlug: string }) => f.flowSlug === 'rich').data.steps[0].title).toBe(
      'Line one\nline two',
    );
    expect(answer.body).toEqual(deriveFlowStates(version, snapshot));
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('reuses a flow rendered for an untouched user only for users whose conditions agree with it', async () => {
    const CONDITIONAL = `
slug: conditional
name: Conditional
type: CHECKLIST
data:
  steps:
    - id: profile
      title: Fill in your profile
      completionCriteria: "has(user.properties.name)"
    - id: billing
      title: Add billing
      visibilityCriteria: "has(user.properties.plan) && user.properties.plan == 'pro'"
    - id: invite
      title: Invite a colleague
      startCriteria: "flows['setup'].status == 'COMPLETED_FLOW'"
`;
    await service.writeFlow('conditional.yaml', CONDITIONAL);
    const users = {
      bare: {},
      named: { name: 'Ada' },
      pro: { plan: 'pro' },
      namedPro: { name: 'Grace', plan: 'pro' },
    };
    const ids: string[] = [];
    for (const [label, properties] of Object.entries(users)) {
      const userId = `user-${label}-${randomUUID()}`;
      await service.call('POST', '/v1/public/users', { body: { userId, properties } });
      ids.push(userId);
    }
    // One user has touched the flow; one completed setup, which unblocks the invite step without touching this flow.
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId: ids[0], flowSlug: 'conditional', stepId: 'profile', actionType: 'STARTED_STEP' },
    });
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId: ids[1], flowSlug: 'setup', actionType: 'COMPLETED_FLOW' },
    });
    const version = service.catalog.current();
    // Twice over, in both orders: the second pass reads what the first one kept.
    for (const order of [ids, [...ids].reverse(), ids]) {
      for (const userId of order) {
        const snapshot = await loadUserSnapshot(service.db, userId, undefined, version);
        const variants: ReadOptions[] = [
          {},
          { content: 'none' },
          { targetedOut: 'hidden' },
          { targetedOut: 'hidden', content: 'none' },
        ];
        for (const options of variants) {
          expect(JSON.parse(Buffer.concat(renderFlowStateParts(version, snapshot, options)).toString())).toEqual(
            deriveFlowStates(version, snapshot, options),
          );
        }
      }
    }
    const [touched, unblocked, pro, namedPro] = await Promise.all(
      ids.map((userId) => service.call('GET', `/v1/public/flowStates?userId=${userId}`)),
    );
    const steps = (answer: {
      body: {
        eligibleFlows: Array<{
          flowSlug: string;
          data: { steps: Array<{ id: string; $state: Record<string, unknown> }> };
        }>;
      };
    }) =>
      Object.fromEntries(
        answer.body.eligibleFlows
          .find((flow) => flow.flowSlug === 'conditional')!
          .data.steps.map((step) => [step.id, step.$state]),
      );
    expect(steps(touched).profile).toMatchObject({ started: true, completed: false });
    expect(steps(unblocked)).toMatchObject({
      profile: { completed: true, started: false },
      invite: { blocked: false },
    });
    expect(steps(pro)).toMatchObject({
      profile: { completed: false },
      billing: { visible: true },
      invite: { blocked: true },
    });
    expect(steps(namedPro)).toMatchObject({
      profile: { completed: true },
      billing: { visible: true },
      invite: { blocked: true },
    });

    // A new version of the flow is rendered from its new content, not from what the old one kept.
    await service.writeFlow('conditional.yaml', CONDITIONAL.replace('Fill in your profile', 'Complete your profile'));
    const after = await service.call('GET', `/v1/public/flowStates?userId=${ids[2]}`);
    const flow = after.body.eligibleFlows.find((f: { flowSlug: string }) => f.flowSlug === 'conditional');
    expect(flow.version).toBe(2);
    expect(flow.data.steps[0].title).toBe('Complete your profile');
  });

  it('keeps an untouched flow sent hidden apart from the same flow shown, whichever is rendered first', async () => {
    await service.writeFlow(
      'gated.yaml',
      checklistYaml('gated', "has(user.properties.plan) && user.properties.plan == 'pro'"),
    );
    const free = `user-free-${randomUUID()}`;
    const pro = `user-pro-${randomUUID()}`;
    await service.call('POST', '/v1/public/users', { body: { userId: free, properties: { plan: 'free' } } });
    await service.call('POST', '/v1/public/users', { body: { userId: pro, properties: { plan: 'pro' } } });
    const gated = async (userId: string, mode: string) =>
      (
        (await service.call('GET', `/v1/public/flowStates?userId=${userId}&targetedOut=${mode}`)).body
          .eligibleFlows as Array<{ flowSlug: string; $state: { visible: boolean } }>
      ).find((state) => state.flowSlug === 'gated');
    // The hidden answer is made and kept first, then read for a user it is shown to, then left out again.
    expect((await gated(free, 'hidden'))?.$state.visible).toBe(false);
    expect((await gated(pro, 'hidden'))?.$state.visible).toBe(true);
    expect((await gated(pro, 'omit'))?.$state.visible).toBe(true);
    expect(await gated(free, 'omit')).toBeUndefined();
    expect((await gated(free, 'hidden'))?.$state.visible).toBe(false);
    const version = service.catalog.current();
    for (const userId of [free, pro, free]) {
      const snapshot = await loadUserSnapshot(service.db, userId, undefined, version);
      for (const options of [
        { targetedOut: 'hidden' },
        { targetedOut: 'omit' },
        { targetedOut: 'hidden', content: 'none' },
      ] satisfies ReadOptions[]) {
        expect(JSON.parse(Buffer.concat(renderFlowStateParts(version, snapshot, options)).toString())).toEqual(
          deriveFlowStates(version, snapshot, options),
        );
      }
    }
    await service.removeFlow('gated.yaml');
  });
});
