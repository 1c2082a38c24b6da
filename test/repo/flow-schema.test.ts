// The flow file schema: generated from the wire types, applied by the service and by the `onboarding-flows check` command.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain .mjs build script without types
import { SCHEMA_FILE, schemaText } from '../../scripts/flow-schema.mjs';
import Ajv from 'ajv';
import { checkCollectionsText } from '../../server/flows/collections.js';
import { checkPaths, formatReport } from '../../server/flows/cli.js';
import { COLLECTION_FILES, EXPERIMENT_FILES, checkFlowText } from '../../server/flows/definitions.js';
import { checkExperimentsText } from '../../server/flows/experiments.js';
import { pagePatternProblem, selectorProblem } from '../../server/flows/formats.js';
import { FRIGADE_FORM, FRIGADE_NPS_SURVEY } from '../support/frigade-flows.js';

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

const TOUR_WITH_BAD_TARGETS = `slug: tour
name: Tour
type: TOUR
data:
  steps:
    - id: a
      selector: "#nav >>> div["
      page: /reports/*
    - id: b
      advanceOn: { appears: "..a" }
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'onboarding-check-'));
  writeFileSync(join(dir, 'd-tour.yaml'), TOUR_WITH_BAD_TARGETS);
  writeFileSync(join(dir, 'a-good.yaml'), readFileSync('demo/flows/upgrade-banner.yaml'));
  writeFileSync(join(dir, 'b-form.yaml'), FORM_WITH_MISTAKES);
  mkdirSync(join(dir, 'frigade'));
  writeFileSync(join(dir, 'frigade', 'nps.yaml'), FRIGADE_NPS_SURVEY);
  writeFileSync(join(dir, 'frigade', 'form.yaml'), FRIGADE_FORM);
  writeFileSync(
    join(dir, 'c-image.yaml'),
    'slug: news\nname: News\ntype: ANNOUNCEMENT\ndata:\n  steps:\n    - id: a\n      title: New\n      image: /new.png\n',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('schema/flow.schema.json', () => {
  it('is what the wire types generate, so the two cannot drift (run npm run schema after changing them)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(schemaText());
  });

  it('covers every flow type, with each type its own step fields', () => {
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
    // A resource centre has no steps: blocks instead (its own test below).
    const withSteps = schema.allOf.filter((rule: any) => rule.then.properties.data.properties.steps.items);
    const stepKeys = Object.fromEntries(
      withSteps.map((rule: any) => [
        rule.if.properties.type.const ?? rule.if.properties.type.enum[0],
        Object.keys(rule.then.properties.data.properties.steps.items.properties),
      ]),
    );
    expect(Object.keys(stepKeys).sort()).toEqual([
      'ANNOUNCEMENT',
      'BANNER',
      'CARD',
      'CHECKLIST',
      'CUSTOM',
      'FORM',
      'HINT',
      'SURVEY',
      'TOOLTIP',
      'TOUR',
    ]);
    expect(stepKeys.FORM).toContain('fields');
    expect(stepKeys.TOUR).toEqual(expect.arrayContaining(['selector', 'page', 'advanceOn']));
    expect(stepKeys.HINT).toEqual(expect.arrayContaining(['selector', 'page', 'imageUri']));
    expect(stepKeys.HINT).not.toContain('advanceOn');
    expect(stepKeys.TOOLTIP).toEqual(expect.arrayContaining(['selector', 'page']));
    expect(stepKeys.SURVEY).toEqual(expect.arrayContaining(['type', 'options', 'fields']));
    expect(stepKeys.ANNOUNCEMENT).toEqual(expect.arrayContaining(['imageUri', 'videoUri']));
    // Every step takes Frigade's media keys (its banner and checklists show them), and its icon.
    for (const keys of Object.values(stepKeys) as string[][])
      expect(keys).toEqual(expect.arrayContaining(['imageUri', 'videoUri', 'iconUri']));
    expect(stepKeys.TOUR).not.toContain('fields');
    expect(schema.definitions.FormField.required).toEqual(['id', 'type']);
  });

  it('gives a RESOURCE_CENTER no steps, and each block type its own keys', () => {
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
    const centre = schema.allOf.find((rule: any) => rule.if.properties.type.const === 'RESOURCE_CENTER');
    const data = centre.then.properties.data;
    expect(data.required).toEqual(['title', 'blocks']);
    expect(data.properties.steps).toMatchObject({ type: 'array', maxItems: 0 });
    const blocks = data.properties.blocks.items;
    expect(blocks.properties.type.enum).toEqual([
      'checklist',
      'flows',
      'announcements',
      'links',
      'text',
      'search',
      'contact',
    ]);
    const keys = Object.fromEntries(
      blocks.allOf.map((rule: any) => [rule.if.properties.type.const, Object.keys(rule.then.properties)]),
    );
    expect(keys.checklist).toEqual(['id', 'title', 'visibleWhen', 'type', 'flow']);
    expect(keys.announcements).toEqual(['id', 'title', 'visibleWhen', 'type', 'flows', 'popup']);
    expect(keys.contact).toEqual(['id', 'visibleWhen', 'type', 'title', 'provider', 'url']);
    const contact = blocks.allOf.find((rule: any) => rule.if.properties.type.const === 'contact');
    expect(contact.then.required).toEqual(['id', 'type', 'title']);
  });

  it('reads NPS_SURVEY as SURVEY: the same data shape', () => {
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
    expect(schema.properties.type.enum).toContain('NPS_SURVEY');
    const survey = schema.allOf.find((rule: any) => rule.if.properties.type.enum?.includes('SURVEY'));
    expect(survey.if.properties.type.enum).toEqual(['SURVEY', 'NPS_SURVEY']);
  });

  it('offers our field types to editors and takes any other name', () => {
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
    const type = schema.definitions.FormField.properties.type;
    expect(type.anyOf[0].enum).toEqual(
      expect.arrayContaining(['text', 'textarea', 'email', 'number', 'select', 'radio', 'checkbox', 'nps']),
    );
    expect(type.anyOf[1]).toEqual({ type: 'string', minLength: 1 });
    const validate = new Ajv({ strict: false, logger: false }).compile(schema);
    const form = (field: object) => ({
      slug: 'f',
      name: 'F',
      type: 'FORM',
      data: { steps: [{ id: 'a', fields: [{ id: 'x', ...field }] }] },
    });
    expect(validate(form({ type: 'calendar' }))).toBe(true);
    expect(validate(form({ type: '' }))).toBe(false);
    expect(
      validate(form({ type: 'number', min: { value: 1, message: 'At least one' }, max: 9, required: 'Say how many' })),
    ).toBe(true);
    expect(validate(form({ type: 'number', min: { value: 1 } }))).toBe(false);
  });

  it('accepts every flow of the demo, its collections and its experiment', () => {
    const slugs = new Set<string>();
    const sideFiles = [...COLLECTION_FILES, ...EXPERIMENT_FILES];
    for (const file of readdirSync('demo/flows').filter((name) => !sideFiles.includes(name))) {
      const { problems, definition } = checkFlowText(readFileSync(join('demo/flows', file), 'utf8'));
      expect(problems, file).toEqual([]);
      slugs.add(definition!.slug);
    }
    const { problems, collections } = checkCollectionsText(readFileSync('demo/flows/collections.yaml', 'utf8'), slugs);
    expect(problems).toEqual([]);
    expect(collections.length).toBeGreaterThan(0);
    const checked = checkExperimentsText(readFileSync('demo/flows/experiments.yaml', 'utf8'), slugs);
    expect(checked.problems).toEqual([]);
    expect(checked.experiments.map((experiment) => experiment.id)).toEqual(['welcome-copy']);
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
      {
        path: 'data.steps[0].fields[1].options[0]',
        line: 16,
        column: 21,
        message: 'expected a mapping with value and label, got the string "Engineer"',
      },
      {
        path: 'data.steps[0].fields[1].options[1]',
        line: 16,
        column: 31,
        message: 'expected a mapping with value and label, got the string "Designer"',
      },
    ]);
  });

  it('keeps free-form data under props, and refuses it anywhere else', () => {
    const base =
      'slug: c\nname: C\ntype: CUSTOM\ndata:\n  props: { theme: confetti }\n  steps:\n    - id: a\n      props: { emoji: "🎉", count: 3 }\n';
    expect(checkFlowText(base).problems).toEqual([]);
    expect(checkFlowText(base.replace('  props: { theme', '  theme: confetti\n  props: { x')).problems).toEqual([
      expect.objectContaining({
        path: 'data.theme',
        line: 5,
        message: expect.stringContaining('custom data goes under props'),
      }),
    ]);
  });

  it('checks what a schema cannot: needed options, unique field ids, CEL', () => {
    const survey =
      'slug: s\nname: S\ntype: SURVEY\ndata:\n  steps:\n    - id: a\n      type: single\n      visibilityCriteria: "user."\n';
    expect(checkFlowText(survey).problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'data.steps[0].type: a "single" question needs options: a list of { value, label }',
      expect.stringMatching(/^data\.steps\[0\]\.visibilityCriteria: does not compile as CEL/),
    ]);
  });

  it('refuses an eventCount window over 100 years, with the file and the line, and takes 100 years', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onboarding-windows-'));
    try {
      const card = (slug: string, targeting: string) =>
        `slug: ${slug}\nname: ${slug}\ntype: CARD\ntargetingLogic: "${targeting}"\ndata:\n  steps:\n    - id: s\n`;
      writeFileSync(
        join(dir, 'forever.yaml'),
        card('forever', "user.eventCount('exported', duration('87600000h')) >= 1"),
      );
      writeFileSync(
        join(dir, 'century.yaml'),
        card('century', "group.eventCount('renewed', duration('876600h')) >= 1"),
      );
      const { reports, checked } = checkPaths([dir]);
      expect(checked).toBe(2);
      expect(
        reports
          .flatMap((report) => formatReport(report, 'text'))
          .map((line) => line.replace(/^.*forever\.yaml/, 'forever.yaml')),
      ).toEqual([
        'forever.yaml:4:17  targetingLogic: user.eventCount(\'exported\', …): the window is over 100 years (876600h), the longest there is; for "ever", use user.events',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("fields in Frigade's shape", () => {
  const messages = (text: string) =>
    checkFlowText(text).problems.map((p) => `${p.path} (line ${p.line}): ${p.message}`);
  /** Frigade's NPS survey with `edit` applied to its text. */
  const survey = (edit: (text: string) => string) => messages(edit(FRIGADE_NPS_SURVEY));
  const form = (fields: string) =>
    `slug: f\nname: F\ntype: FORM\ndata:\n  steps:\n    - id: a\n      title: About you\n      fields:\n${fields}`;

  it("loads Frigade's NPS survey as a SURVEY, with its fields as written", () => {
    const { definition, problems, warnings } = checkFlowText(FRIGADE_NPS_SURVEY);
    expect(problems).toEqual([]);
    expect(warnings).toEqual([]);
    expect(definition!.type).toBe('SURVEY');
    expect(definition!.data.props).toMatchObject({
      positiveLabel: 'Extremely likely',
      negativeLabel: 'Not likely at all',
    });
    expect(definition!.data.steps.map((step) => step.fields)).toEqual([
      [{ id: 'nps-score', type: 'nps', positiveLabel: 'Extremely likely', negativeLabel: 'Not likely at all' }],
      [{ id: 'nps-feedback-text', type: 'textarea', placeholder: 'Your answer goes here' }],
    ]);
  });

  it("loads a Frigade form: validation rules with messages, Frigade's step fields, a type the page draws (with a warning)", () => {
    const { definition, problems, warnings } = checkFlowText(FRIGADE_FORM);
    expect(problems).toEqual([]);
    expect(definition!.data.steps[0].fields![1]).toEqual({
      id: 'email',
      type: 'email',
      label: 'Work email',
      required: { value: true, message: 'We need your email' },
      pattern: { value: '/^[^@]+@company\\.com$/', message: 'Use your company address' },
    });
    expect(warnings).toEqual([
      {
        path: 'data.steps[0].fields[2].type',
        line: 28,
        column: 17,
        message: expect.stringContaining(
          '"calendar" is not a field type our elements draw: it is drawn by your own code through a Frigade `fieldTypes` entry or a custom element',
        ),
      },
    ]);
  });

  it('names the type a field probably meant in its warning, and nothing for a name of its own', () => {
    const warned = (type: string) =>
      checkFlowText(form(`        - { id: x, type: ${type}, label: X }\n`)).warnings.map(
        (w) => w.message.split(':')[0],
      );
    expect(warned('textara')).toEqual(['"textara" is not a field type our elements draw (did you mean "textarea"?)']);
    expect(warned('Email')).toEqual(['"Email" is not a field type our elements draw (did you mean "email"?)']);
    expect(warned('calendar')).toEqual(['"calendar" is not a field type our elements draw']);
    expect(warned('tel')).toEqual(['"tel" is not a field type our elements draw']);
  });

  it('takes nps fields in a form, and a survey step of several fields', () => {
    expect(
      messages(
        form('        - { id: score, type: nps, options: [{ value: 1, label: Bad }, { value: "5", label: Fine }] }\n'),
      ),
    ).toEqual([]);
    expect(
      survey((text) =>
        text.replace(
          '          placeholder: Your answer goes here\n',
          '          label: Why?\n        - { id: email, type: email, label: Your email }\n',
        ),
      ),
    ).toEqual([]);
  });

  it('refuses a field without id, and two fields with one id in a step', () => {
    expect(messages(form('        - { type: text, label: Name }\n'))).toEqual([
      'data.steps[0].fields[0].id (line 9): required, but missing',
    ]);
    expect(
      messages(
        form('        - { id: name, type: text, label: Name }\n        - { id: name, type: email, label: Email }\n'),
      ),
    ).toEqual(['data.steps[0].fields[1].id (line 10): duplicate field id "name" in this step (also fields[0])']);
  });

  it("refuses a field our elements draw without a label, but for nps and a titled step's only field", () => {
    const lonely = messages(form('        - { id: name, type: text }\n'));
    expect(lonely).toEqual([]);
    expect(messages(form('        - { id: name, type: text }\n').replace('      title: About you\n', ''))).toEqual([
      "data.steps[0].fields[0].label (line 8): a text field needs a label, so that screen readers can name it (only an nps field, or a step's only field, which the step's title names, may go without)",
    ]);
    expect(
      messages(form('        - { id: name, type: text, label: Name }\n        - { id: role, type: textarea }\n')),
    ).toEqual([
      expect.stringMatching(/^data\.steps\[0\]\.fields\[1\]\.label \(line 10\): a textarea field needs a label/),
    ]);
    expect(messages(form('        - { id: score, type: nps }\n        - { id: start, type: calendar }\n'))).toEqual([]);
  });

  it('refuses nps points that are not whole numbers from 0 to 10, on a field or on the survey', () => {
    expect(
      survey((text) =>
        text.replace(
          '          negativeLabel: Not likely at all\n',
          '          options: [{ value: 0, label: "0" }, { value: 1.5, label: x }, { value: "11", label: "11" }]\n',
        ),
      ),
    ).toEqual([
      "data.steps[0].fields[0].options[1].value (line 16): an nps scale's points are whole numbers from 0 to 10, got 1.5",
      'data.steps[0].fields[0].options[2].value (line 16): an nps scale\'s points are whole numbers from 0 to 10, got "11"',
    ]);
    expect(
      survey((text) => text.replace('    dismissible: true\n', '    options: [{ value: ten, label: Ten }]\n')),
    ).toEqual([
      'data.props.options[0].value (line 6): an nps scale\'s points are whole numbers from 0 to 10, got "ten"',
    ]);
  });

  it('refuses a survey step with both a type and fields', () => {
    expect(
      survey((text) =>
        text.replace(
          '      fields:\n        - id: nps-score\n',
          '      type: nps\n      fields:\n        - id: nps-score\n',
        ),
      ),
    ).toEqual([
      'data.steps[0].type (line 12): a survey step asks by `type` or by `fields`, not both: with fields, each field is a question (an nps score is `{ id, type: nps }`)',
    ]);
  });

  it("refuses a pattern that is not a regular expression, alone or in a rule, and reads Frigade's /…/ form", () => {
    expect(messages(form("        - { id: code, type: text, label: Code, pattern: '/^[A-Z]{3}$/' }\n"))).toEqual([]);
    expect(messages(form('        - { id: code, type: text, label: Code, pattern: "(a" }\n'))).toEqual([
      expect.stringMatching(/^data\.steps\[0\]\.fields\[0\]\.pattern \(line 9\): "\(a" is not a regular expression: /),
    ]);
    expect(
      messages(
        form("        - { id: code, type: text, label: Code, pattern: { value: '/\\d+\\-\\d+/', message: Digits } }\n"),
      ),
    ).toEqual([
      expect.stringMatching(
        /^data\.steps\[0\]\.fields\[0\]\.pattern\.value \(line 9\): .* is not a regular expression: Invalid escape \(patterns are read in Unicode mode/,
      ),
    ]);
  });

  it('refuses a rule without its message, and a misspelled key with what was meant', () => {
    expect(messages(form('        - { id: n, type: number, label: N, min: { value: 1 } }\n'))).toEqual([
      'data.steps[0].fields[0].min.message (line 9): required, but missing',
    ]);
    expect(
      survey((text) =>
        text.replace('          positiveLabel: Extremely likely\n', '          positivLabel: Extremely likely\n'),
      ),
    ).toEqual([
      expect.stringMatching(
        /^data\.steps\[0\]\.fields\[0\]\.positivLabel \(line 15\): unknown key \(did you mean "positiveLabel"\?\)/,
      ),
    ]);
    // Frigade's flat primaryButtonTitle is taken (its SDKs draw it); a misspelling of the object is not.
    expect(
      survey((text) =>
        text.replace('      primaryButton:\n        title: Submit\n', '      primaryButtonTitle: Submit\n'),
      ),
    ).toEqual([]);
    expect(
      survey((text) =>
        text.replace('      primaryButton:\n        title: Submit\n', '      primaryButon:\n        title: Submit\n'),
      ),
    ).toEqual([
      expect.stringMatching(
        /^data\.steps\[1\]\.primaryButon \(line 23\): unknown key \(did you mean "primaryButton"\?\)/,
      ),
    ]);
    expect(
      survey((text) =>
        text.replace(
          '      fields:\n        - id: nps-feedback-text',
          '      feilds:\n        - id: nps-feedback-text',
        ),
      ),
    ).toEqual([
      expect.stringMatching(/^data\.steps\[1\]\.feilds \(line 19\): unknown key \(did you mean "fields"\?\)/),
    ]);
  });

  it("takes a checklist's props.sequential and every Frigade step field", () => {
    const checklist = `slug: c\nname: C\ntype: CHECKLIST\ndata:\n  props: { dismissible: false, sequential: true }\n  steps:\n    - id: a\n      title: Connect\n      stepName: Connect\n      iconUri: /icons/plug.svg\n      backButtonTitle: Back\n      skippable: true\n      dismissible: true\n      autoMarkCompleted: true\n      primaryButton: { title: Go, action: step.complete, uri: /connect, target: _blank }\n      secondaryButton: { title: Later, action: step.skip }\n      completionCriteria: "true"\n      startCriteria: "true"\n      visibilityCriteria: "true"\n      props: { anything: 1 }\n`;
    expect(messages(checklist)).toEqual([]);
    expect(messages(checklist.replace('      skippable: true', '      skippable: yes please'))).toEqual([
      'data.steps[0].skippable (line 12): expected true or false, got the string "yes please"',
    ]);
  });
});

describe('target selectors and page patterns', () => {
  const tour = (step: string) => `slug: t\nname: T\ntype: TOUR\ndata:\n  steps:\n    - id: a\n${step}`;
  const messages = (text: string) =>
    checkFlowText(text).problems.map((p) => `${p.path} (line ${p.line}): ${p.message}`);

  it('takes CSS selectors joined by >>> into shadow roots and iframes', () => {
    for (const selector of [
      '#save',
      'my-app >>> .save',
      'iframe#editor >>> .toolbar >>> button',
      'button[aria-label="Save (draft)"]',
      ':is(a, b) > c:not(.off)',
      'li:nth-child(2n + 1)',
      'a:has(> img)',
      'x-y::part(label)',
      ':host(.dark) .icon',
      '[data-x=">"]',
    ]) {
      expect(selectorProblem(selector), selector).toBeUndefined();
    }
  });

  it('refuses what is not CSS, each part of a >>> selector on its own', () => {
    const cases: Array<[string, RegExp]> = [
      ['div[', /^"div\[" is not a CSS selector: expected attribute name/],
      ['..a', /^"\.\.a" is not a CSS selector: expected class name/],
      ['a >> b', /^"a >> b" is not a CSS selector: expected rule but ">" found/],
      [':not(', /^":not\(" is not a CSS selector/],
      ['a)', /^"a\)" is not a CSS selector: a "\)" closes nothing$/],
      ['a,', /is not a CSS selector/],
      ['#1a', /expected ID name/],
      ['svg|rect', /namespaces are not enabled/],
      ['my-app >>> .save[', /^"\.save\[" \(part 2 of "my-app >>> \.save\["\) is not a CSS selector/],
      ['my-app >>> ', /has an empty part: ">>>" needs a selector on each side$/],
      ['', /^expected a CSS selector, got an empty string$/],
    ];
    for (const [selector, message] of cases) expect(selectorProblem(selector), selector).toMatch(message);
  });

  it('takes page patterns: paths with :name segments and a trailing *', () => {
    for (const pattern of [
      '/',
      '/reports',
      '/reports/',
      '/reports/*',
      '/projects/:id/settings',
      '/projects/:projectId/runs/:run_id/*',
      '/docs*',
      '/caf%C3%A9',
    ]) {
      expect(pagePatternProblem(pattern), pattern).toBeUndefined();
    }
  });

  it('refuses page patterns that are not a path', () => {
    const cases: Array<[string, RegExp]> = [
      ['reports/*', /is not a path: a page pattern starts with "\/"/],
      ['https://app.example.com/reports', /is not a path/],
      ['/reports?tab=1', /holds "\?": a page pattern is a path, without query or fragment/],
      ['/reports#top', /holds "#"/],
      ['/reports/*/edit', /"\*" may only end the pattern/],
      ['/a//b', /has an empty segment/],
      ['/projects/:/settings', /a segment starting with ":" is a parameter/],
      ['/projects/:1st', /not ":1st"$/],
      ['/a/:id/b/:id', /names the parameter ":id" twice/],
      ['/my reports', /holds white space/],
    ];
    for (const [pattern, message] of cases) expect(pagePatternProblem(pattern), pattern).toMatch(message);
  });

  it('refuses a flow file with a bad selector, page or advanceOn, with the path and line', () => {
    expect(messages(TOUR_WITH_BAD_TARGETS)).toEqual([
      'data.steps[0].selector (line 7): "div[" (part 2 of "#nav >>> div[") is not a CSS selector: expected attribute name (at character 4)',
      'data.steps[1].advanceOn.appears (line 10): "..a" is not a CSS selector: expected class name (at character 2)',
    ]);
    expect(messages(tour('      selector: "#a"\n      page: reports\n      advanceOn: hover\n'))).toEqual([
      expect.stringMatching(/^data\.steps\[0\]\.page \(line 8\): "reports" is not a path/),
      'data.steps[0].advanceOn (line 9): expected "click", or a mapping with appears, got the string "hover"',
    ]);
    expect(messages(tour('      advanceOn: { appear: "#a" }\n'))).toEqual([
      'data.steps[0].advanceOn.appears (line 7): required, but missing',
      expect.stringMatching(
        /^data\.steps\[0\]\.advanceOn\.appear \(line 7\): unknown key \(did you mean "appears"\?\)/,
      ),
    ]);
    expect(
      messages(
        tour(
          '      selector: "main >>> #a"\n      page: /projects/:id/*\n      advanceOn: click\n      props: { canClickTarget: false }\n',
        ),
      ),
    ).toEqual([]);
  });

  it('takes HINT and TOOLTIP flows, whose steps need a selector; a TOOLTIP has exactly one step', () => {
    const hint =
      'slug: h\nname: H\ntype: HINT\ndata:\n  props: { placement: right, missingTarget: skip }\n  steps:\n    - id: a\n      selector: "#a"\n      page: /reports/*\n    - id: b\n      title: No target\n';
    expect(messages(hint)).toEqual(['data.steps[1].selector (line 10): required, but missing']);
    expect(
      messages(hint.replace('      title: No target\n', '      selector: ".b"\n      advanceOn: click\n')),
    ).toEqual([expect.stringMatching(/^data\.steps\[1\]\.advanceOn \(line 12\): unknown key; expected one of id, /)]);
    const tooltip =
      'slug: t\nname: T\ntype: TOOLTIP\ndata:\n  props: { trigger: beacon, targetTimeout: 0 }\n  steps:\n    - id: a\n      selector: "#a"\n';
    expect(messages(tooltip)).toEqual([]);
    expect(messages(tooltip.replace('beacon', 'click'))).toEqual([
      expect.stringMatching(/^data\.props\.trigger \(line 5\): unknown value "click"; expected one of hover, beacon$/),
    ]);
    expect(messages(`${tooltip}    - id: b\n      selector: "#b"\n`)).toEqual([
      'data.steps (line 7): expected at most 1 item, got 2',
    ]);
    expect(messages(tooltip.replace(/ {2}steps:[^]*$/, '  steps: []\n'))).toEqual([
      'data.steps (line 6): expected at least 1 item, got 0',
    ]);
  });

  it('still works for a validator that does not know the formats: it skips them and checks the rest', () => {
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
    const validate = new Ajv({ strict: false, logger: false }).compile(schema);
    const step = { id: 'a', selector: 'div[', page: 'reports' };
    expect(validate({ slug: 't', name: 'T', type: 'TOUR', data: { steps: [step] } })).toBe(true);
    expect(validate({ slug: 't', name: 'T', type: 'TOUR', data: { steps: [{ ...step, selectr: '#a' }] } })).toBe(false);
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
    expect(lines).toContainEqual(
      expect.stringMatching(/c-image\.yaml:8:7 {2}data\.steps\[0\]\.image: unknown key \(did you mean "imageUri"\?\)/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /d-tour\.yaml:7:17 {2}data\.steps\[0\]\.selector: "div\[" \(part 2 of "#nav >>> div\["\) is not a CSS selector/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /d-tour\.yaml:10:29 {2}data\.steps\[1\]\.advanceOn\.appears: "\.\.a" is not a CSS selector/,
      ),
    );
    expect(lines.at(-1)).toBe('7 problems in 3 of 4 flow files');
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

  it('finds every text of the demo flows translated into French and Arabic', async () => {
    // A missing translation is only a warning (exit 0): the demo's flows must have none, so the output is checked.
    const { stdout } = await run(process.execPath, ['dist/flows.mjs', 'check', '--locales', 'fr,ar', 'demo/flows']);
    expect(stdout).toMatch(/^\d+ flow files checked: no problems\n$/);
  });

  it('prints a warning for a field type our elements do not draw, and exits 0', async () => {
    const { stdout } = await run(process.execPath, ['dist/flows.mjs', 'check', join(dir, 'frigade')]);
    expect(stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        /form\.yaml:28:17 {2}warning: data\.steps\[0\]\.fields\[2\]\.type: "calendar" is not a field type our elements draw: it is drawn by your own code through a Frigade `fieldTypes` entry or a custom element/,
      ),
      '2 flow files checked: no problems, 1 warning',
    ]);
    const github = await run(process.execPath, [
      'dist/flows.mjs',
      'check',
      join(dir, 'frigade', 'form.yaml'),
      '--format',
      'github',
    ]);
    expect(github.stdout).toMatch(
      /^::warning file=.*form\.yaml,line=28,col=17,title=data\.steps\[0\]\.fields\[2\]\.type::"calendar" is not a field type/,
    );
  });

  it('prints GitHub annotations with --format github', async () => {
    const failure = await run(process.execPath, [
      'dist/flows.mjs',
      'check',
      join(dir, 'c-image.yaml'),
      '--format',
      'github',
    ]).catch((error: { stdout: string }) => error);
    expect(failure.stdout).toMatch(
      /^::error file=.*c-image\.yaml,line=8,col=7,title=data\.steps\[0\]\.image::unknown key/,
    );
  });
});

describe('translations', () => {
  const FORM = `slug: welcome
name: Welcome
type: FORM
data:
  title: Hello \${name}
  steps:
    - id: about
      title: About you
      primaryButton: { title: Next, uri: "https://example.com/en" }
      fields:
        - { id: role, type: select, label: Role, options: [{ value: dev, label: Developer }, { value: pm, label: Manager }] }
`;
  const withTranslations = (yaml: string) => `${FORM}translations:\n${yaml}`;
  const report = (text: string) =>
    checkFlowText(text).problems.map((p) => `${p.line}:${p.column} ${p.path}: ${p.message}`);

  it('loads a flow with translations, and keeps them beside its data', () => {
    const { problems, definition } = checkFlowText(
      withTranslations(
        '  fr:\n    title: Bonjour ${name}\n    steps:\n      about: { title: À propos, fields: { role: { options: { dev: Développeuse } } } }\n  pt-BR: {}\n  zh-Hans: {}\n  es-419: {}\n',
      ),
    );
    expect(problems).toEqual([]);
    expect(definition?.translations?.fr?.steps?.about?.title).toBe('À propos');
    expect(definition?.data).not.toHaveProperty('translations');
  });

  it('refuses a malformed locale code and an unknown key, with its line and a guess', () => {
    expect(report(withTranslations('  fr_CA: {}\n  de: { titl: Hallo }\n'))).toEqual([
      '13:3 translations.fr_CA: "fr_CA" is not a key here: expected a locale code: a language, then optionally a script and a region (fr, fr-CA, pt-BR, zh-Hans, es-419)',
      expect.stringMatching(
        /^14:9 translations\.de\.titl: unknown key \(did you mean "title"\?\); expected one of title, subtitle, props, steps, launcher, blocks$/,
      ),
    ]);
  });

  it('refuses an overlay naming a step, a field or a choice the flow does not have', () => {
    const overlay =
      '  fr:\n    steps:\n      abut: { title: A }\n      about:\n        fields:\n          rol: { label: Rôle }\n          role: { options: { qa: Testeuse } }\n';
    expect(report(withTranslations(overlay))).toEqual([
      '15:7 translations.fr.steps.abut: no step id "abut" in the flow (did you mean "about"?); expected one of about',
      '18:11 translations.fr.steps.about.fields.rol: no field id "rol" in step "about" (did you mean "role"?); expected one of role',
      '19:30 translations.fr.steps.about.fields.role.options.qa: no choice value "qa" in the flow; expected one of dev, pm',
    ]);
  });

  it('refuses a translated link our elements would not follow, as it refuses the source one', () => {
    expect(
      report(withTranslations('  fr:\n    steps:\n      about: { primaryButton: { uri: "javascript:alert(1)" } }\n')),
    ).toEqual([
      expect.stringMatching(
        /^15:38 translations\.fr\.steps\.about\.primaryButton\.uri: "javascript:alert\(1\)" is not a link the elements follow/,
      ),
    ]);
    expect(report(FORM.replace('https://example.com/en', 'javascript:alert(1)'))).toEqual([
      expect.stringMatching(/^9:42 data\.steps\[0\]\.primaryButton\.uri: "javascript:alert\(1\)" is not a link/),
    ]);
  });

  it('refuses a translation that drops a variable of its source text', () => {
    expect(report(withTranslations('  fr:\n    title: Bonjour\n'))).toEqual([
      '14:12 translations.fr.title: drops ${name} of the source text (data.title); keep every variable',
    ]);
  });
});

describe('onboarding-flows check --locales', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'onboarding-locales-'));
    const flow = `slug: hello
name: Hello
type: ANNOUNCEMENT
data:
  steps:
    - id: a
      title: Hello
      subtitle: Welcome aboard
      primaryButton: { title: Go }
translations:
  fr:
    steps:
      a: { title: Bonjour, subtitle: Bienvenue, primaryButton: { title: Allons-y } }
  de:
    steps:
      a: { title: Hallo }
`;
    writeFileSync(join(folder, 'hello.yaml'), flow);
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const cli = (...args: string[]) =>
    run(process.execPath, ['dist/flows.mjs', ...args]).then(
      (done) => ({ code: 0, out: done.stdout }),
      (failed: { code: number; stdout: string; stderr: string }) => ({
        code: failed.code,
        out: failed.stdout + failed.stderr,
      }),
    );

  it('warns at every text a listed locale lacks, with its line, and still exits 0', async () => {
    const { code, out } = await cli('check', '--locales', 'fr,de', folder);
    expect(code).toBe(0);
    const file = join(folder, 'hello.yaml');
    expect(out.trim().split('\n')).toEqual([
      `${file}:8:17  warning: data.steps[0].subtitle: no "de" translation (translations.de.steps.a.subtitle)`,
      `${file}:9:31  warning: data.steps[0].primaryButton.title: no "de" translation (translations.de.steps.a.primaryButton.title)`,
      '1 flow file checked: no problems, 2 warnings',
    ]);
  });

  it('refuses a locale code that is not one, as bad usage', async () => {
    expect((await cli('check', '--locales', 'fr_CA', folder)).code).toBe(2);
  });
});
