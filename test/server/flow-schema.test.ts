// The flow file schema: generated from the wire types, applied by the service and by the `onboarding-flows check` command.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain .mjs build script without types
import { SCHEMA_FILE, schemaText } from '../../scripts/flow-schema.mjs';
import { checkFlowText } from '../../server/flows/definitions.js';

const run = promisify(execFile);
let dir: string;

const FORM_WITH_MISTAKES = `# yaml-language-server: $schema=../schema/flow.schema.json
slug: profile
name: Profile
type: FORM
data:
  steps:
    - id: about
      title: About you
      fields:
        - name: email
          type: email
          label: Email
        - id: role
          type: select
          label: Role
          options: [Engineer, Designer]
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'onboarding-check-'));
  writeFileSync(join(dir, 'a-good.yaml'), readFileSync('demo/flows/upgrade-banner.yaml'));
  writeFileSync(join(dir, 'b-form.yaml'), FORM_WITH_MISTAKES);
  writeFileSync(join(dir, 'c-image.yaml'), 'slug: news\nname: News\ntype: ANNOUNCEMENT\ndata:\n  steps:\n    - id: a\n      title: New\n      image: /new.png\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('schema/flow.schema.json', () => {
  it('is what the wire types generate, so the two cannot drift (run npm run schema after changing them)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(schemaText());
  });

  it('covers every flow type, with each type its own step fields', () => {
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
    const stepKeys = Object.fromEntries(
      schema.allOf.map((rule: any) => [rule.if.properties.type.const, Object.keys(rule.then.properties.data.properties.steps.items.properties)]),
    );
    expect(Object.keys(stepKeys).sort()).toEqual(['ANNOUNCEMENT', 'BANNER', 'CARD', 'CHECKLIST', 'CUSTOM', 'FORM', 'HINT', 'SURVEY', 'TOOLTIP', 'TOUR']);
    expect(stepKeys.HINT).toEqual(expect.arrayContaining(['selector', 'page']));
    expect(stepKeys.FORM).toContain('fields');
    expect(stepKeys.TOUR).toContain('selector');
    expect(stepKeys.SURVEY).toEqual(expect.arrayContaining(['type', 'options']));
    expect(stepKeys.ANNOUNCEMENT).toEqual(expect.arrayContaining(['imageUri', 'videoUri']));
    expect(stepKeys.BANNER).not.toContain('imageUri');
    expect(schema.definitions.FormField.required).toEqual(['id', 'type', 'label']);
  });

  it('accepts every flow of the demo', () => {
    for (const file of readdirSync('demo/flows')) {
      expect(checkFlowText(readFileSync(join('demo/flows', file), 'utf8')).problems, file).toEqual([]);
    }
  });

  it('refuses unknown keys, missing fields and wrong types with their path, line and what was expected', () => {
    const { problems, definition } = checkFlowText(FORM_WITH_MISTAKES);
    expect(definition).toBeUndefined();
    expect(problems).toEqual([
      { path: 'data.steps[0].fields[0].id', line: 10, column: 11, message: 'required, but missing' },
      {
        path: 'data.steps[0].fields[0].name',
        line: 10,
        column: 11,
        message: expect.stringMatching(/^unknown key \(did you mean "id"\?\); expected one of id, type, label, /),
      },
      { path: 'data.steps[0].fields[1].options[0]', line: 16, column: 21, message: 'expected a mapping with value and label, got the string "Engineer"' },
      { path: 'data.steps[0].fields[1].options[1]', line: 16, column: 31, message: 'expected a mapping with value and label, got the string "Designer"' },
    ]);
  });

  it('keeps free-form data under props, and refuses it anywhere else', () => {
    const base = 'slug: c\nname: C\ntype: CUSTOM\ndata:\n  props: { theme: confetti }\n  steps:\n    - id: a\n      props: { emoji: "🎉", count: 3 }\n';
    expect(checkFlowText(base).problems).toEqual([]);
    expect(checkFlowText(base.replace('  props: { theme', '  theme: confetti\n  props: { x')).problems).toEqual([
      expect.objectContaining({ path: 'data.theme', line: 5, message: expect.stringContaining('custom data goes under props') }),
    ]);
  });

  it('checks what a schema cannot: needed options, unique field ids, CEL', () => {
    const survey = 'slug: s\nname: S\ntype: SURVEY\ndata:\n  steps:\n    - id: a\n      type: single\n      visibilityCriteria: "user."\n';
    expect(checkFlowText(survey).problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'data.steps[0].type: a "single" question needs options: a list of { value, label }',
      expect.stringMatching(/^data\.steps\[0\]\.visibilityCriteria: does not compile as CEL/),
    ]);
  });
});

describe('onboarding-flows check', () => {
  it('prints every problem with file, line and path, and exits 1', async () => {
    const failure = await run(process.execPath, ['dist/flows.mjs', 'check', dir]).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).toBe(1);
    const lines = failure!.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/b-form\.yaml:10:11 {2}data\.steps\[0\]\.fields\[0\]\.id: required, but missing$/);
    expect(lines).toContainEqual(expect.stringMatching(/c-image\.yaml:8:7 {2}data\.steps\[0\]\.image: unknown key \(did you mean "imageUri"\?\)/));
    expect(lines.at(-1)).toBe('5 problems in 2 of 3 flow files');
  });

  it('exits 0 on good files, and 2 without a folder', async () => {
    const { stdout } = await run(process.execPath, ['dist/flows.mjs', 'check', 'demo/flows']);
    expect(stdout).toMatch(/^\d+ flow files checked: no problems\n$/);
    const usage = await run(process.execPath, ['dist/flows.mjs', 'check']).then(
      () => 0,
      (error: { code: number }) => error.code,
    );
    expect(usage).toBe(2);
  });

  it('prints GitHub annotations with --format github', async () => {
    const failure = await run(process.execPath, ['dist/flows.mjs', 'check', join(dir, 'c-image.yaml'), '--format', 'github']).catch((error: { stdout: string }) => error);
    expect(failure.stdout).toMatch(/^::error file=.*c-image\.yaml,line=8,col=7,title=data\.steps\[0\]\.image::unknown key/);
  });
});
