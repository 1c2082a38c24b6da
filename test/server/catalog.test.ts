// Flow definitions over loopback HTTP: invalid files refused while others load, versions on change with state kept, CEL runtime errors logged once, Frigade's shapes served as written.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Flow, FlowsResponse, FlowStatesResponse } from '../../src/api/wire.js';
import { FRIGADE_FORM, FRIGADE_NPS_SURVEY } from '../support/frigade-flows.js';
import { bannerFlowYaml, startTestService, type TestService } from '../support/service.js';

let service: TestService;
const warnings: string[] = [];

const checklist = (slug: string, steps: string[], extra = '') =>
  `slug: ${slug}\nname: ${slug}\ntype: CHECKLIST\n${extra}data:\n  steps:\n${steps.map((id) => `    - id: ${id}\n      title: ${id}\n`).join('')}`;

const INVALID: Record<string, string> = {
  'bad-yaml.yaml': 'slug: [unclosed\nname: x',
  'unknown-type.yaml': 'slug: typo\nname: Typo\ntype: POPUP\ndata:\n  steps: []\n',
  'dup-slug.yaml': bannerFlowYaml('welcome'),
  'dup-step.yaml': checklist('twice', ['a', 'a']),
  'bad-cel.yaml': checklist('bad-cel', ['a'], 'targetingLogic: "user.properties.plan == "\n'),
  'bad-step-cel.yaml':
    'slug: bad-step-cel\nname: x\ntype: CARD\ndata:\n  steps:\n    - id: a\n      startCriteria: "(("\n',
  'bad-action.yaml':
    'slug: bad-action\nname: x\ntype: CARD\ndata:\n  steps:\n    - id: a\n      primaryButton: { title: Go, action: step.finish }\n',
  // YAML escapes that PostgreSQL cannot store: once, either of these stopped the whole service at start.
  'nul.yaml': 'slug: nul\nname: x\ntype: CARD\ndata:\n  steps:\n    - id: a\n      title: "a\\0b"\n',
  'surrogate.yaml': 'slug: surrogate\nname: "\\uD800"\ntype: CARD\ndata:\n  steps:\n    - id: a\n',
  // What the flow schema refuses: an unknown key, a missing field, a wrong type.
  'unknown-key.yaml':
    'slug: unknown-key\nname: x\ntype: FORM\ndata:\n  steps:\n    - id: a\n      fields:\n        - id: email\n          name: email\n          type: email\n          label: Email\n',
  'missing.yaml': 'slug: missing\ntype: CARD\ndata:\n  steps:\n    - id: a\n',
  'wrong-type.yaml':
    'slug: wrong-type\nname: x\ntype: FORM\ndata:\n  steps:\n    - id: a\n      fields:\n        - { id: role, type: select, label: Role, options: [Engineer] }\n',
};

beforeAll(async () => {
  service = await startTestService(
    {
      'a-welcome.yaml': bannerFlowYaml('welcome'),
      'tasks.yaml': checklist('tasks', ['a', 'b']),
      'fragile.yaml': checklist('fragile', ['a'], 'targetingLogic: "user.properties.plan == \'pro\'"\n'),
      ...INVALID,
    },
    { logger: { warn: (message) => warnings.push(message), info: () => {} } },
  );
});
afterAll(() => service?.close());

const listFlows = async (): Promise<Flow[]> =>
  ((await service.call('GET', '/v1/public/flows')).body as FlowsResponse).data;
const readStates = async (userId: string): Promise<FlowStatesResponse> =>
  (await service.call('GET', `/v1/public/flowStates?userId=${userId}`)).body;

describe('invalid flow files', () => {
  it('refuses each with a message naming the file and the problem, and loads the others', async () => {
    const problems: Record<string, RegExp> = {
      'bad-yaml.yaml': /line 2: bad YAML/,
      'unknown-type.yaml': /: type \(line 3\): unknown value "POPUP"; expected one of ANNOUNCEMENT, BANNER/,
      'dup-slug.yaml': /slug \(line 2\): duplicate slug "welcome".*a-welcome\.yaml/,
      'dup-step.yaml': /data\.steps\[1\]\.id \(line 8\): duplicate step id "a" \(also data\.steps\[0\]\)/,
      'bad-cel.yaml': /: targetingLogic \(line 4\): does not compile as CEL/,
      'bad-step-cel.yaml': /data\.steps\[0\]\.startCriteria \(line 7\): does not compile as CEL/,
      'bad-action.yaml': /data\.steps\[0\]\.primaryButton\.action \(line 7\): unknown value "step\.finish"/,
      'nul.yaml': /data\.steps\[0\]\.title \(line 7\): holds a NUL character/,
      'surrogate.yaml': /: name \(line 2\): holds a NUL character \(\\0\) or an unpaired surrogate/,
      'unknown-key.yaml':
        /data\.steps\[0\]\.fields\[0\]\.name \(line 9\): unknown key \(did you mean "id"\?\); expected one of id, type, label/,
      'missing.yaml': /: name \(line 1\): required, but missing/,
      'wrong-type.yaml':
        /data\.steps\[0\]\.fields\[0\]\.options\[0\] \(line 8\): expected a mapping with value and label, got the string "Engineer"/,
    };
    for (const [file, problem] of Object.entries(problems)) {
      const warning = warnings.find((w) => w.includes(`flow file ${file} refused`));
      expect(warning, file).toMatch(problem);
    }
    expect((await listFlows()).map((f) => f.slug)).toEqual(['welcome', 'fragile', 'tasks']);
  });

  it('keeps serving the last good version when a loaded file breaks', async () => {
    await service.writeFlow('fragile.yaml', 'slug: fragile\nname: [broken');
    expect((await listFlows()).find((f) => f.slug === 'fragile')).toMatchObject({ version: 1 });
    expect(warnings.some((w) => w.includes('flow fragile keeps version 1 until fragile.yaml is fixed'))).toBe(true);
    await service.writeFlow(
      'fragile.yaml',
      checklist('fragile', ['a'], 'targetingLogic: "user.properties.plan == \'pro\'"\n'),
    );
    expect((await listFlows()).find((f) => f.slug === 'fragile')).toMatchObject({ version: 1 });
  });

  it('drops a flow whose file is removed', async () => {
    await service.writeFlow('gone.yaml', checklist('gone', ['a']));
    expect((await listFlows()).map((f) => f.slug)).toContain('gone');
    rmSync(join(service.flowsDir, 'gone.yaml'));
    await service.catalog.load();
    expect((await listFlows()).map((f) => f.slug)).not.toContain('gone');
  });
});

describe('versions', () => {
  it('records a new version with a new id when a file changes, keeping slug, snippet, creation time and user state', async () => {
    const userId = `user-${randomUUID()}`;
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'tasks', stepId: 'a', actionType: 'COMPLETED_STEP' },
    });
    const v1 = (await listFlows()).find((f) => f.slug === 'tasks')!;
    expect(v1.version).toBe(1);

    await service.writeFlow('tasks.yaml', checklist('tasks', ['a', 'b', 'c']));
    const v2 = (await listFlows()).find((f) => f.slug === 'tasks')!;
    expect(v2).toMatchObject({ version: 2, slug: 'tasks', codeSnippet: v1.codeSnippet, createdAt: v1.createdAt });
    expect(v2.id).not.toBe(v1.id);
    expect(Date.parse(v2.modifiedAt)).toBeGreaterThanOrEqual(Date.parse(v1.modifiedAt));
    expect(JSON.parse(v2.data).steps.map((s: { id: string }) => s.id)).toEqual(['a', 'b', 'c']);

    const tasks = (await readStates(userId)).eligibleFlows.find((f) => f.flowSlug === 'tasks')!;
    expect(tasks.version).toBe(2);
    expect(tasks.data.steps.map((s) => [s.id, s.$state.completed])).toEqual([
      ['a', true],
      ['b', false],
      ['c', false],
    ]);
    expect(tasks.$state.currentStepId).toBe('b');
    const versions = await service.db.query('SELECT version FROM flows WHERE slug = $1 ORDER BY version', ['tasks']);
    expect(versions).toEqual([{ version: 1 }, { version: 2 }]);
  });

  it('keeps the version when a file is rewritten unchanged', async () => {
    const before = (await listFlows()).find((f) => f.slug === 'welcome')!;
    await service.writeFlow('a-welcome.yaml', bannerFlowYaml('welcome'));
    expect((await listFlows()).find((f) => f.slug === 'welcome')).toEqual(before);
  });

  it('lets bootstrapFlowStates complete the steps a flow gained since the user finished it', async () => {
    const userId = `user-${randomUUID()}`;
    await service.call('POST', '/v1/public/users', { body: { userId, properties: { setUp: true } } });
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'welcome', stepId: 'hello', actionType: 'COMPLETED_STEP' },
    });
    await service.writeFlow(
      'grown.yaml',
      'slug: grown\nname: Grown\ntype: CHECKLIST\ndata:\n  steps:\n    - id: old\n      completionCriteria: "has(user.properties.setUp)"\n    - id: new\n      completionCriteria: "has(user.properties.setUp)"\n',
    );
    const body = (await service.call('POST', '/v1/public/users', { body: { userId, bootstrapFlowStates: true } })).body;
    const grown = (body.flowStates as FlowStatesResponse).eligibleFlows.find((f) => f.flowSlug === 'grown')!;
    expect(grown.$state.completed).toBe(true);
    expect(
      await service.db.query('SELECT step_id FROM step_states WHERE user_id = $1 AND flow_slug = $2 ORDER BY step_id', [
        userId,
        'grown',
      ]),
    ).toEqual([{ step_id: 'new' }, { step_id: 'old' }]);
  });
});

describe('CEL runtime errors', () => {
  it('count as false and are logged once per flow version', async () => {
    const runtime = () => warnings.filter((w) => w.startsWith('flow fragile v') && w.includes('counts as false'));
    for (let i = 0; i < 3; i++) {
      expect((await readStates(`user-${randomUUID()}`)).ineligibleFlows).toContain('fragile');
    }
    // Earlier reads in this file failed the same way; still one line for version 1.
    expect(runtime().filter((w) => w.includes('flow fragile v1'))).toHaveLength(1);
    expect(runtime()[0]).toContain('No such key: plan');
    const pro = `user-${randomUUID()}`;
    await service.call('POST', '/v1/public/users', { body: { userId: pro, properties: { plan: 'pro' } } });
    expect((await readStates(pro)).eligibleFlows.map((f) => f.flowSlug)).toContain('fragile');

    await service.writeFlow(
      'fragile.yaml',
      checklist('fragile', ['a', 'b'], 'targetingLogic: "user.properties.plan == \'pro\'"\n'),
    );
    await readStates(`user-${randomUUID()}`);
    await readStates(`user-${randomUUID()}`);
    expect(runtime().filter((w) => w.includes('flow fragile v2'))).toHaveLength(1);
  });
});

describe("flows in Frigade's shapes", () => {
  let frigade: TestService;
  const logged: string[] = [];

  beforeAll(async () => {
    frigade = await startTestService(
      { 'form.yaml': FRIGADE_FORM, 'nps.yaml': FRIGADE_NPS_SURVEY },
      { logger: { warn: (message) => logged.push(message), info: () => {} } },
    );
  });
  afterAll(() => frigade?.close());

  const statesOf = async (userId: string) =>
    (await frigade.call('GET', `/v1/public/flowStates?userId=${userId}`)).body as FlowStatesResponse;

  it('serves an NPS_SURVEY as a SURVEY, its fields as written', async () => {
    const nps = (await statesOf(`user-${randomUUID()}`)).eligibleFlows.find((f) => f.flowSlug === 'nps-survey')!;
    expect(nps.flowType).toBe('SURVEY');
    expect(nps.data.props).toMatchObject({ positiveLabel: 'Extremely likely', negativeLabel: 'Not likely at all' });
    expect(nps.data.steps.map((step) => step.fields)).toEqual([
      [{ id: 'nps-score', type: 'nps', positiveLabel: 'Extremely likely', negativeLabel: 'Not likely at all' }],
      [{ id: 'nps-feedback-text', type: 'textarea', placeholder: 'Your answer goes here' }],
    ]);
    const listed = ((await frigade.call('GET', '/v1/public/flows')).body as FlowsResponse).data.find(
      (f) => f.slug === 'nps-survey',
    )!;
    expect(listed.type).toBe('SURVEY');
    expect(JSON.parse(listed.data).steps[0].fields[0]).toEqual({
      id: 'nps-score',
      type: 'nps',
      positiveLabel: 'Extremely likely',
      negativeLabel: 'Not likely at all',
    });
  });

  it("loads a form with a field type of the page's own, logging the warning once, and serves its fields as written", async () => {
    const form = (await statesOf(`user-${randomUUID()}`)).eligibleFlows.find((f) => f.flowSlug === 'waitlist')!;
    const step = form.data.steps[0];
    expect(step).toMatchObject({
      stepName: 'Waitlist',
      iconUri: '/icons/list.svg',
      backButtonTitle: 'Previous',
      skippable: true,
      dismissible: false,
      autoMarkCompleted: true,
    });
    expect(step.fields!.map((field) => field.type)).toEqual(['text', 'email', 'calendar', 'select']);
    expect(step.fields![0]).toEqual({
      id: 'name',
      type: 'text',
      label: 'Name',
      required: 'Your name, please',
      minLength: { value: 2, message: 'At least two letters' },
    });
    expect(step.fields![3]).toMatchObject({ multiple: true, value: 'pro' });
    await frigade.catalog.load();
    expect(
      logged.filter((line) =>
        line.startsWith(
          'flow file form.yaml loaded with warnings: data.steps[0].fields[2].type (line 28): "calendar" is not a field type our elements draw',
        ),
      ),
    ).toHaveLength(1);
    expect(logged.filter((line) => line.includes('refused'))).toEqual([]);
  });

  it("stores the answer of a field of the page's own like any other", async () => {
    const userId = `user-${randomUUID()}`;
    const data = { name: 'Ada', email: 'ada@company.com', start: '2026-03-02', plans: ['pro', 'team'] };
    const answer = await frigade.call('POST', '/v1/public/flowStates', {
      body: { userId, flowSlug: 'waitlist', stepId: 'waitlist-page', actionType: 'COMPLETED_STEP', data },
    });
    expect(answer.status).toBe(201);
    const step = (await statesOf(userId)).eligibleFlows.find((f) => f.flowSlug === 'waitlist')!.data.steps[0];
    expect(step.$state.completed).toBe(true);
    expect(JSON.parse(step.$state.flowResponses.at(-1)!.data)).toEqual(data);
  });
});
