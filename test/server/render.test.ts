// The state answer's two forms agree: objects (used inside the service) and the JSON text made from per-version fragments.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUserSnapshot } from '../../server/state/context.js';
import { deriveFlowStates, renderFlowStates, type ReadOptions } from '../../server/state/derive.js';
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
  service = await startTestService({ 'rich.yaml': RICH, 'setup.yaml': checklistYaml('setup'), 'hidden.yaml': checklistYaml('hidden', 'false') });
});
afterAll(() => service?.close());

describe('rendered state answers', () => {
  it('equal the derived objects, with content, without it, and with known versions', async () => {
    const userId = `user-${randomUUID()}`;
    await service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug: 'rich', stepId: 'first', actionType: 'COMPLETED_STEP', data: { name: 'Ada "the" Countess' } } });
    await service.call('POST', '/v1/public/flowStates', { body: { userId, flowSlug: 'setup', actionType: 'SKIPPED_FLOW' } });
    const version = service.catalog.current();
    expect(version.flows.map((flow) => flow.flow.slug)).toEqual(['hidden', 'rich', 'setup']);
    const snapshot = await loadUserSnapshot(service.db, userId, undefined, version);
    const variants: ReadOptions[] = [{}, { content: 'none' }, { knownVersions: { rich: 1 } }, { knownVersions: { setup: 1, rich: 99 } }];
    for (const options of variants) {
      const text = renderFlowStates(version.flows, snapshot, options);
      expect(JSON.parse(text)).toEqual(deriveFlowStates(version.flows, snapshot, options));
    }
    // And what a client receives is the same, with the content as written.
    const answer = await service.call('GET', `/v1/public/flowStates?userId=${userId}`);
    expect(answer.body.eligibleFlows.find((f: { flowSlug: string }) => f.flowSlug === 'rich')).toMatchObject({ flowName: 'A "quoted" name, with unicode: é ✓', data: { props: { custom: 42 } } });
    expect(answer.body.eligibleFlows.find((f: { flowSlug: string }) => f.flowSlug === 'rich').data.steps[0].title).toBe('Line one\nline two');
    expect(answer.body).toEqual(deriveFlowStates(version.flows, snapshot));
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  });
});
