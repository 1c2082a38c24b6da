// `onboarding-flows mcp` driven through the MCP SDK's own client over stdio: the built CLI on a flows folder that a
// running service watches, its tools, resources and refusals, and the service tools against that service.
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { keepComments } from '../../server/flows/keep-comments.js';
import { PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

// Each client starts the built CLI as a process: a second or two on a busy 2-core machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const CLI = fileURLToPath(new URL('../../dist/flows.mjs', import.meta.url));

const WELCOME = `# The banner every new user sees first.
slug: welcome
name: Welcome
type: BANNER
# Everyone on the pro plan.
targetingLogic: "user.properties.plan == 'pro'"
data:
  steps:
    # The only step.
    - id: hello
      title: Welcome aboard # short on purpose
`;

const SURVEY = `slug: nps
name: How are we doing?
type: SURVEY
data:
  steps:
    - id: score
      title: How likely are you to recommend us?
`;

const GOOD = `slug: release-notes
name: Release notes
type: ANNOUNCEMENT
data:
  steps:
    - id: intro
      title: Scheduled exports
`;

/** A flow with one problem on line 6: a misspelt key. */
const BAD = `slug: broken
name: Broken
type: CARD
data:
  steps:
    - id: one
      tittle: Hello
`;

let service: TestService;
let dir: string;
let client: Client;
let stderr = '';

async function connect(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const connected = new Client({ name: 'mcp-test', version: '1.0.0' });
  await connected.connect(transport);
  return connected;
}

/** One tool call's answer: structured output, text and whether it is an error result. */
async function call(name: string, args: Record<string, unknown> = {}, through = client) {
  const result = await through.callTool({ name, arguments: args });
  const text = (result.content as Array<{ type: string; text: string }>).map((part) => part.text).join('\n');
  return { structured: result.structuredContent as any, text, isError: result.isError === true };
}

beforeAll(async () => {
  service = await startTestService(
    {
      'welcome.yaml': WELCOME,
      'nps.yaml': SURVEY,
      'collections.yaml': 'collections:\n  - { id: home, type: DEFAULT, flows: [welcome, nps], coolOff: 1d }\n',
      'limits.yaml': 'limits:\n  - { id: daily, types: [BANNER, SURVEY], max: 1, per: 1d }\n',
    },
    // The service reloads its catalog as the folder changes, as `npm run server` does.
    { watchFlows: true },
  );
  dir = service.flowsDir;
  client = await connect(['--flows', dir, '--api', service.url, '--key', PRIVATE_KEY]);
});

afterAll(async () => {
  await client?.close();
  await service?.close();
});

describe('onboarding-flows mcp', () => {
  it('lists its tools, each with an input and an output schema, and the flow format as resources', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'check_flow',
      'explain_user',
      'flow_report',
      'list_flows',
      'read_flow',
      'write_flow',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
    const check = tools.find((tool) => tool.name === 'check_flow')!;
    expect(check.inputSchema.required).toEqual(['yaml']);
    expect(check.inputSchema.additionalProperties).toBe(false);

    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual([
      'onboarding-flows://docs/flows.md',
      'onboarding-flows://schema/flow.schema.json',
    ]);
    const schema = await client.readResource({ uri: 'onboarding-flows://schema/flow.schema.json' });
    const { text: schemaText } = schema.contents[0] as { text: string };
    expect(JSON.parse(schemaText)).toEqual(JSON.parse(readFileSync('schema/flow.schema.json', 'utf8')));
    const doc = await client.readResource({ uri: 'onboarding-flows://docs/flows.md' });
    expect((doc.contents[0] as { text: string }).text).toBe(readFileSync('docs/flows.md', 'utf8'));
  });

  it('lists every flow file with its slug, name, type, status, targeting and file, and the collections and limits', async () => {
    const { structured, isError } = await call('list_flows');
    expect(isError).toBe(false);
    expect(structured.flows).toEqual([
      {
        file: 'nps.yaml',
        slug: 'nps',
        name: 'How are we doing?',
        type: 'SURVEY',
        status: 'ACTIVE',
        targeting: '',
        valid: true,
        problems: [],
      },
      {
        file: 'welcome.yaml',
        slug: 'welcome',
        name: 'Welcome',
        type: 'BANNER',
        status: 'ACTIVE',
        targeting: "user.properties.plan == 'pro'",
        valid: true,
        problems: [],
      },
    ]);
    expect(structured.collections).toEqual([
      { id: 'home', type: 'DEFAULT', flows: ['welcome', 'nps'], coolOff: '1d', allowedComponents: [] },
    ]);
    expect(structured.limits).toEqual([{ id: 'daily', types: ['BANNER', 'SURVEY'], max: 1, per: '1d' }]);
    expect(structured.experiments).toBeUndefined();
    expect(structured.problems).toEqual([]);
  });

  it('reads a flow file as written, comments included, by slug', async () => {
    const { structured, text } = await call('read_flow', { slug: 'welcome' });
    expect(structured).toEqual({ slug: 'welcome', file: 'welcome.yaml', yaml: WELCOME });
    expect(text).toBe(WELCOME);

    const unknown = await call('read_flow', { slug: 'nowhere' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/no flow file in the folder has slug "nowhere"/);
    const traversal = await call('read_flow', { slug: '../../etc/passwd' });
    expect(traversal.isError).toBe(true);
    expect(traversal.text).toMatch(/a flow slug/);
  });

  it('checks a bad flow given as text: each problem with its line, column, path and "did you mean", writing nothing', async () => {
    const before = readdirSync(dir).sort();
    const { structured, text, isError } = await call('check_flow', { yaml: BAD });
    expect(isError).toBe(false);
    expect(structured.valid).toBe(false);
    expect(structured.slug).toBe('broken');
    expect(structured.file).toBe('broken.yaml');
    expect(structured.problems).toContainEqual({
      line: 7,
      column: 7,
      path: 'data.steps[0].tittle',
      message: expect.stringMatching(/^unknown key \(did you mean "title"\?\)/),
      didYouMean: 'title',
    });
    expect(text).toMatch(/^broken\.yaml:7:7 {2}data\.steps\[0\]\.tittle: unknown key/m);
    expect(readdirSync(dir).sort()).toEqual(before);

    const notYaml = await call('check_flow', { yaml: 'slug: [unclosed' });
    expect(notYaml.structured.valid).toBe(false);
    expect(notYaml.structured.problems[0].message).toMatch(/^bad YAML/);
  });

  it('checks a good flow as valid, and warns as check does', async () => {
    const { structured } = await call('check_flow', { yaml: GOOD });
    expect(structured).toEqual({
      valid: true,
      slug: 'release-notes',
      file: 'release-notes.yaml',
      problems: [],
      warnings: [],
    });
    const untranslated = await call('check_flow', { yaml: GOOD, locales: ['fr'] });
    expect(untranslated.structured.valid).toBe(true);
    expect(untranslated.structured.warnings[0]).toMatchObject({ line: 7, path: 'data.steps[0].title' });
  });

  it('checks a flow against the folder: a slug another file has, and a rename a collection would lose', async () => {
    const duplicate = await call('check_flow', { yaml: WELCOME, file: 'welcome-copy.yaml' });
    expect(duplicate.structured.valid).toBe(false);
    expect(duplicate.structured.problems[0]).toMatchObject({
      path: 'slug',
      line: 2,
      message: 'duplicate slug "welcome" (already defined in welcome.yaml)',
    });
    const renamed = await call('check_flow', {
      yaml: WELCOME.replace('slug: welcome', 'slug: hello'),
      file: 'welcome.yaml',
    });
    expect(renamed.structured.valid).toBe(false);
    expect(renamed.structured.problems.map((p: { message: string }) => p.message).join('\n')).toMatch(
      /breaks collections\.yaml:2:\d+ \(collections\[0\]\.flows\[0\]\): unknown flow slug "welcome"/,
    );
  });

  it('writes a good flow that the running service then serves', async () => {
    const { structured, text, isError } = await call('write_flow', { yaml: GOOD });
    expect(isError).toBe(false);
    expect(structured).toMatchObject({ written: true, replaced: false, file: 'release-notes.yaml', valid: true });
    expect(text).toBe('wrote release-notes.yaml');
    expect(readFileSync(join(dir, 'release-notes.yaml'), 'utf8')).toBe(GOOD);
    await expect
      .poll(
        async () =>
          ((await service.call('GET', '/v1/public/flows')).body as { data: Array<{ slug: string }> }).data.map(
            (flow) => flow.slug,
          ),
        { timeout: 10_000 },
      )
      .toContain('release-notes');
    // Nothing but the file itself is left in the folder.
    expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('keeps the comments of a file it replaces where the key paths are unchanged', async () => {
    const rewritten = `slug: welcome
name: Welcome back
type: BANNER
targetingLogic: "user.properties.plan == 'pro'"
data:
  steps:
    - id: hello
      title: Welcome aboard
      subtitle: New here
`;
    const { structured } = await call('write_flow', { yaml: rewritten });
    expect(structured).toMatchObject({ written: true, replaced: true, file: 'welcome.yaml' });
    expect(structured.commentsKept).toBe(4);
    const written = readFileSync(join(dir, 'welcome.yaml'), 'utf8');
    expect(written).toBe(`# The banner every new user sees first.
slug: welcome
name: Welcome back
type: BANNER
# Everyone on the pro plan.
targetingLogic: "user.properties.plan == 'pro'"
data:
  steps:
    # The only step.
    - id: hello
      title: Welcome aboard # short on purpose
      subtitle: New here
`);
    await expect
      .poll(
        async () =>
          (
            (await service.call('GET', '/v1/public/flows')).body as { data: Array<{ slug: string; name: string }> }
          ).data.find((flow) => flow.slug === 'welcome')?.name,
        { timeout: 10_000 },
      )
      .toBe('Welcome back');
  });

  it('refuses to write a bad flow: the problems as an error result, and nothing written', async () => {
    const before = readdirSync(dir).sort();
    const { structured, text, isError } = await call('write_flow', { yaml: BAD });
    expect(isError).toBe(true);
    expect(structured).toMatchObject({ written: false, valid: false, file: 'broken.yaml' });
    expect(structured.problems[0]).toMatchObject({ line: 7, didYouMean: 'title' });
    expect(text).toMatch(
      /broken\.yaml:7:7 {2}data\.steps\[0\]\.tittle: unknown key[^\n]*\n1 problem: nothing written$/,
    );
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('refuses a path outside the folder, whatever the file name, and writes nothing there', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'onboarding-outside-'));
    try {
      symlinkSync(join(outside, 'target.yaml'), join(dir, 'link.yaml'));
      const names = [
        '../escaped.yaml',
        join(outside, 'absolute.yaml'),
        'sub/inner.yaml',
        '..\\escaped.yaml',
        'collections.yaml',
        '.hidden.yaml',
        'notes.txt',
        'link.yaml',
      ];
      for (const file of names) {
        const { isError, text } = await call('write_flow', { yaml: GOOD.replace('release-notes', 'escape'), file });
        expect(isError, file).toBe(true);
        expect(text, file).not.toBe('');
      }
      expect(readdirSync(outside)).toEqual([]);
      expect(existsSync(join(dir, '..', 'escaped.yaml'))).toBe(false);
      expect(readFileSync(join(dir, 'collections.yaml'), 'utf8')).toMatch(/^collections:/);
      // A slug that is no file name never becomes one.
      const slug = await call('write_flow', { yaml: GOOD.replace('release-notes', '../escape') });
      expect(slug.isError).toBe(true);
      expect(slug.structured.file).toBeNull();
    } finally {
      rmSync(join(dir, 'link.yaml'), { force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('answers bad input with an error result and keeps serving', async () => {
    const wrongType = await call('check_flow', { yaml: 5 });
    expect(wrongType.isError).toBe(true);
    expect(wrongType.text).toMatch(/yaml/);
    const missing = await call('write_flow', {});
    expect(missing.isError).toBe(true);
    // A key the tool does not take is refused, not dropped: a misnamed `path` never writes anywhere.
    const unknownKey = await call('write_flow', { yaml: GOOD, path: '../escaped.yaml' });
    expect(unknownKey.isError).toBe(true);
    expect(unknownKey.text).toMatch(/path/);
    expect(existsSync(join(dir, '..', 'escaped.yaml'))).toBe(false);
    const unknownTool = await call('delete_everything');
    expect(unknownTool.isError).toBe(true);
    expect((await call('list_flows')).isError).toBe(false);
  });

  it('explains a user against the live service, for every flow or one', async () => {
    const upsert = await service.call('POST', '/v1/public/users', {
      body: { userId: 'ada', properties: { plan: 'free' } },
    });
    expect(upsert.status).toBeLessThan(300);
    const { structured, isError } = await call('explain_user', { userId: 'ada' });
    expect(isError).toBe(false);
    expect(structured).toMatchObject({ userId: 'ada', exists: true, user: { properties: { plan: 'free' } } });
    const welcome = structured.flows.find((flow: { flowSlug: string }) => flow.flowSlug === 'welcome');
    expect(welcome).toMatchObject({ shown: false, heldBy: 'targeting' });

    const one = await call('explain_user', { userId: 'ada', flowSlug: 'nps' });
    expect(one.structured.flows.map((flow: { flowSlug: string }) => flow.flowSlug)).toEqual(['nps']);
    const grouped = await call('explain_user', { userId: 'ada', flowSlug: 'nps', groupId: 'acme' });
    expect(grouped.isError, grouped.text).toBe(false);
    expect(grouped.structured.flows).toHaveLength(1);
    const unknown = await call('explain_user', { userId: 'ada', flowSlug: 'nowhere' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/^the service answered 404/);
  });

  it("reports a flow's analytics, with a survey's score", async () => {
    for (const [userId, value] of [
      ['promoter', 10],
      ['detractor', 3],
      ['passive', 8],
    ] as const) {
      for (const [actionType, stepId, data] of [
        ['STARTED_FLOW', '', undefined],
        ['COMPLETED_STEP', 'score', { value }],
      ] as const) {
        const response = await service.call('POST', '/v1/public/flowStates', {
          body: { userId, flowSlug: 'nps', stepId, actionType, ...(data ? { data } : {}) },
        });
        expect(response.status, response.text).toBe(201);
      }
    }
    const { structured, isError } = await call('flow_report', { slug: 'nps' });
    expect(isError).toBe(false);
    expect(structured.flow).toMatchObject({ slug: 'nps', type: 'SURVEY', started: 3 });
    expect(structured.steps[0]).toMatchObject({ stepId: 'score', reached: 3, completed: 3 });
    expect(structured.survey.steps[0]).toMatchObject({ kind: 'nps', responses: 3, score: 0 });
    expect(structured.score).toBe(0);
    expect(structured.days).toBeUndefined();

    const unknown = await call('flow_report', { slug: 'nowhere' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/404/);
  });

  it('offers the service tools only with --api and --key, and refuses bad usage', async () => {
    const local = await connect(['--flows', dir]);
    try {
      const { tools } = await local.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['check_flow', 'list_flows', 'read_flow', 'write_flow']);
      const { isError } = await call('explain_user', { userId: 'ada' }, local);
      expect(isError).toBe(true);
    } finally {
      await local.close();
    }
    stderr = '';
    await expect(connect(['--flows', join(dir, 'missing')])).rejects.toThrow();
    expect(stderr).toMatch(/is not a folder/);
    await expect(connect(['--flows', dir, '--api', service.url])).rejects.toThrow();
    expect(stderr).toMatch(/--api and --key go together/);
  });
});

describe('write_flow with a file of its own', () => {
  it('writes under the name given, and never over another flow that holds <slug>.yaml unasked', async () => {
    writeFileSync(join(dir, 'other.yaml'), GOOD.replace(/release-notes/g, 'not-other'));
    const taken = await call('write_flow', { yaml: GOOD.replace(/release-notes/g, 'other') });
    expect(taken.isError).toBe(true);
    expect(taken.structured.problems[0].message).toBe(
      'other.yaml holds the flow "not-other": give another file name (file) for this one',
    );
    const named = await call('write_flow', { yaml: GOOD.replace(/release-notes/g, 'other'), file: 'other-news.yml' });
    expect(named.structured).toMatchObject({ written: true, replaced: false, file: 'other-news.yml' });
    expect(readFileSync(join(dir, 'other-news.yml'), 'utf8')).toBe(GOOD.replace(/release-notes/g, 'other'));
    // Its slug now names that file: the next write of the flow replaces it.
    const again = await call('write_flow', {
      yaml: GOOD.replace(/release-notes/g, 'other').replace('Scheduled', 'Weekly'),
    });
    expect(again.structured).toMatchObject({ written: true, replaced: true, file: 'other-news.yml' });
  });
});

describe('keepComments', () => {
  const before = `steps:
  # Greets.
  - id: hello
    title: Hi # short
  # Says goodbye.
  - id: bye
    title: Bye
`;

  it('follows list items by id, so a step inserted before another leaves it its comments', () => {
    const after = `steps:\n  - id: new\n    title: New\n  - id: hello\n    title: Hello\n  - id: bye\n    title: Bye\n`;
    const { text, kept } = keepComments(before, after);
    expect(kept).toBe(3);
    expect(text).toBe(
      `steps:\n  - id: new\n    title: New\n  # Greets.\n  - id: hello\n    title: Hello # short\n  # Says goodbye.\n  - id: bye\n    title: Bye\n`,
    );
  });

  it("keeps the new text's own comments, and the text as given when there is nothing to carry over", () => {
    const own = before.replace('# short', '# mine').replace('# Says goodbye.', '# Leaves.');
    expect(keepComments(before, own)).toEqual({ text: own, kept: 0 });
    const plain = 'steps: [ { id: other, title: "Other" } ]\n';
    expect(keepComments(before, plain)).toEqual({ text: plain, kept: 0 });
    expect(keepComments('not: [yaml', plain)).toEqual({ text: plain, kept: 0 });
  });
});
