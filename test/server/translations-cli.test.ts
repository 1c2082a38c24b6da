// `onboarding-flows translations`: a folder's text out as XLIFF 2.0 (or CSV), translated, and back into the flow files with their comments and order.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { checkPaths, main } from '../../server/flows/cli.js';
import { readXliff, unitId } from '../../server/flows/xliff.js';

const CHECKLIST = `# yaml-language-server: $schema=../schema/flow.schema.json
# The first thing a new user sees.
slug: welcome
name: Welcome
type: CHECKLIST
data:
  title: Get set up, \${firstName|friend}
  props:
    doneTitle: You are all set! # shown once every step is done
  steps:
    # Ticks itself once data arrives.
    - id: connect
      title: Connect a data source
      subtitle: "Use <b>Settings</b> & \\"Sources\\""
      primaryButton: { title: Connect data, action: false, uri: /connect }
    - id: invite
      title: Invite your team
      secondaryButton: { title: Skip, action: step.skip }
`;

const FORM = `slug: team-profile
name: Team profile
type: FORM
data:
  steps:
    - id: about
      title: Personalise your workspace
      fields:
        # The role decides the next step.
        - id: role
          type: radio
          label: What do you do?
          options:
            - { value: engineering, label: Engineering }
            - { value: marketing, label: Marketing }
        - id: email
          type: email
          label: Work email
          placeholder: you@company.com
          message: Use your work address.
translations:
  fr:
    steps:
      about:
        title: Personnalisez votre espace
`;

const SURVEY = `slug: nps
name: NPS survey
type: SURVEY
data:
  steps:
    - id: score
      type: nps
      title: How likely are you to recommend us?
      props: { lowLabel: Not at all likely, highLabel: Extremely likely }
    - id: reason
      type: single
      title: What matters most to you?
      options:
        - { value: speed, label: Speed }
        - { value: price, label: Price }
`;

let dir: string;
let out: string[];
let errors: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'onboarding-translations-'));
  writeFileSync(join(dir, 'welcome.yaml'), CHECKLIST);
  writeFileSync(join(dir, 'team-profile.yaml'), FORM);
  writeFileSync(join(dir, 'nps.yml'), SURVEY);
  writeFileSync(join(dir, 'collections.yaml'), 'collections: []\n');
  out = [];
  errors = [];
  vi.spyOn(console, 'log').mockImplementation((...args) => void out.push(args.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...args) => void errors.push(args.join(' ')));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const read = (name: string) => readFileSync(join(dir, name), 'utf8');
function exportFr(format?: string): string {
  const file = join(dir, `out.${format ?? 'xlf'}`);
  expect(
    main(['translations', 'export', '--locale', 'fr', dir, '--out', file, ...(format ? ['--format', format] : [])]),
  ).toBe(0);
  return readFileSync(file, 'utf8');
}
/** Fills every <target> of the exported text by key, as a translator's tool would, and writes it beside the flows. */
function translate(xliff: string, targets: Record<string, string>, name = 'fr.xlf'): string {
  let text = xliff;
  for (const [key, target] of Object.entries(targets)) {
    const unit = new RegExp(
      `(<unit id="${unitId(key).replace(/[.$]/g, '\\$&')}"[^]*?</source>)(\\s*<target>[^]*?</target>)?`,
    );
    expect(text).toMatch(unit);
    text = text.replace(unit, (_, head: string) => `${head}\n        <target>${target}</target>`);
  }
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('translations export', () => {
  it('writes every text field of every flow file, with the current translation as its target', () => {
    const xliff = exportFr();
    const document = readXliff(xliff);
    expect(document).toMatchObject({ srcLang: 'en', trgLang: 'fr' });
    expect(document.files.map((file) => file.original)).toEqual(['nps.yml', 'team-profile.yaml', 'welcome.yaml']);
    const units = Object.fromEntries(
      document.files.flatMap((file) => file.units.map((unit) => [unit.key, unit.target ?? null])),
    );
    expect(Object.keys(units)).toEqual([
      'nps/steps/score/title',
      'nps/steps/score/props/lowLabel',
      'nps/steps/score/props/highLabel',
      'nps/steps/reason/title',
      'nps/steps/reason/options/speed',
      'nps/steps/reason/options/price',
      'team-profile/steps/about/title',
      'team-profile/steps/about/fields/role/label',
      'team-profile/steps/about/fields/role/options/engineering',
      'team-profile/steps/about/fields/role/options/marketing',
      'team-profile/steps/about/fields/email/label',
      'team-profile/steps/about/fields/email/placeholder',
      'team-profile/steps/about/fields/email/message',
      'welcome/title',
      'welcome/props/doneTitle',
      'welcome/steps/connect/title',
      'welcome/steps/connect/subtitle',
      'welcome/steps/connect/primaryButton/title',
      'welcome/steps/invite/title',
      'welcome/steps/invite/secondaryButton/title',
    ]);
    expect(units['team-profile/steps/about/title']).toBe('Personnalisez votre espace');
    expect(units['welcome/title']).toBeNull();
  });

  it('escapes markup and quotes, keeps ${variables} as text, and gives every unit an NMTOKEN id', () => {
    const xliff = exportFr();
    expect(xliff).toContain('<source>Use &lt;b&gt;Settings&lt;/b&gt; &amp; &quot;Sources&quot;</source>');
    expect(xliff).toContain('<source>Get set up, ${firstName|friend}</source>');
    expect(xliff).toContain(
      '<unit id="welcome.steps.connect.primaryButton.title" name="welcome/steps/connect/primaryButton/title">',
    );
    expect(xliff).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0"/,
    );
    for (const [, id] of xliff.matchAll(/ id="([^"]*)"/g)) expect(id).toMatch(/^[\w.:-]+$/);
  });

  it('writes CSV with a stable key, the source and the target', () => {
    const csv = exportFr('csv');
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('key,source,target');
    expect(lines).toContain('team-profile/steps/about/title,Personalise your workspace,Personnalisez votre espace');
    expect(lines).toContain('welcome/steps/connect/subtitle,"Use <b>Settings</b> & ""Sources""",');
  });
});

describe('translations import', () => {
  it('writes the targets into the flow files, keeping their comments and order, and a second export shows them', () => {
    const before = { welcome: read('welcome.yaml'), form: read('team-profile.yaml'), nps: read('nps.yml') };
    const file = translate(exportFr(), {
      'welcome/title': 'Bienvenue, ${firstName|l’ami}',
      'welcome/steps/connect/subtitle': 'Utilisez &lt;b&gt;Réglages&lt;/b&gt; &amp; « Sources »',
      'welcome/steps/connect/primaryButton/title': 'Connecter',
      'team-profile/steps/about/fields/email/label': 'E-mail professionnel',
      'team-profile/steps/about/fields/role/options/engineering': 'Ingénierie',
      'nps/steps/reason/options/price': '',
    });
    expect(main(['translations', 'import', file, dir])).toBe(0);
    expect(errors).toEqual([]);

    // Nothing before the new translations changed, comments and quoting included.
    const welcome = read('welcome.yaml');
    expect(welcome.startsWith(before.welcome)).toBe(true);
    expect(parse(welcome).translations).toEqual({
      fr: {
        title: 'Bienvenue, ${firstName|l’ami}',
        steps: {
          connect: { subtitle: 'Utilisez <b>Réglages</b> & « Sources »', primaryButton: { title: 'Connecter' } },
        },
      },
    });
    const form = read('team-profile.yaml');
    expect(form.slice(0, form.indexOf('translations:'))).toBe(
      before.form.slice(0, before.form.indexOf('translations:')),
    );
    expect(form).toContain('        # The role decides the next step.\n');
    expect(parse(form).translations.fr.steps.about).toEqual({
      title: 'Personnalisez votre espace',
      fields: { email: { label: 'E-mail professionnel' }, role: { options: { engineering: 'Ingénierie' } } },
    });
    // An empty target is skipped, so the survey is untouched.
    expect(read('nps.yml')).toBe(before.nps);

    const again = readXliff(exportFr());
    const targets = Object.fromEntries(
      again.files.flatMap((f) => f.units.filter((u) => u.target !== undefined).map((u) => [u.key, u.target])),
    );
    expect(targets).toEqual({
      'team-profile/steps/about/title': 'Personnalisez votre espace',
      'team-profile/steps/about/fields/role/options/engineering': 'Ingénierie',
      'team-profile/steps/about/fields/email/label': 'E-mail professionnel',
      'welcome/title': 'Bienvenue, ${firstName|l’ami}',
      'welcome/steps/connect/subtitle': 'Utilisez <b>Réglages</b> & « Sources »',
      'welcome/steps/connect/primaryButton/title': 'Connecter',
    });

    // The files as written load as the service loads them: no problem, and only the texts `fr` lacks are named.
    const { reports } = checkPaths([dir], { locales: ['fr'] });
    expect(reports.flatMap((report) => report.problems)).toEqual([]);
    const missing = reports.flatMap((report) => report.warnings.map((warning) => warning.path));
    expect(missing.length).toBeGreaterThan(0);
    expect(missing).not.toContain('data.title');
  });

  it('refuses a key the flow does not have and a dropped ${variable}, with key and line, and leaves that file as it was', () => {
    const before = read('welcome.yaml');
    let xliff = translate(exportFr(), {
      'welcome/title': 'Bienvenue',
      'team-profile/steps/about/title': 'Votre espace',
    });
    // welcome.yaml's <file> is the last one.
    const text = readFileSync(xliff, 'utf8').replace(
      '  </file>\n</xliff>',
      '    <unit id="x" name="welcome/steps/gone/title">\n      <segment>\n        <source>Gone</source>\n        <target>Parti</target>\n      </segment>\n    </unit>\n  </file>\n</xliff>',
    );
    xliff = join(dir, 'bad.xlf');
    writeFileSync(xliff, text);
    const lines = text.split('\n');
    const lineOf = (needle: string) => lines.findIndex((line) => line.includes(needle)) + 1;

    expect(main(['translations', 'import', xliff, dir])).toBe(1);
    expect(errors).toEqual([
      `${xliff}:${lineOf('<target>Bienvenue</target>')}  welcome/title: the translation drops \${firstName} of the source`,
      `${xliff}:${lineOf('welcome/steps/gone/title')}  welcome/steps/gone/title: no such text field in welcome.yaml`,
      `${join(dir, 'welcome.yaml')}: not written (2 refused)`,
    ]);
    expect(read('welcome.yaml')).toBe(before);
    // The other file had nothing refused, and is written.
    expect(parse(read('team-profile.yaml')).translations.fr.steps.about.title).toBe('Votre espace');
  });

  it('writes a translation whose source changed since the export, with a warning that names its key and line', () => {
    const file = translate(exportFr(), { 'welcome/steps/invite/title': 'Invitez votre équipe' });
    writeFileSync(
      join(dir, 'welcome.yaml'),
      read('welcome.yaml').replace('title: Invite your team', 'title: Invite your colleagues'),
    );
    const line =
      readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('name="welcome/steps/invite/title"')) + 1;
    expect(main(['translations', 'import', file, dir])).toBe(0);
    expect(out).toContain(
      `${file}:${line}  warning: welcome/steps/invite/title: the source has changed since the export; the translation may be of the old text`,
    );
    expect(parse(read('welcome.yaml')).translations.fr.steps.invite.title).toBe('Invitez votre équipe');
  });

  it('refuses malformed XLIFF with its line, and writes nothing', () => {
    const before = read('welcome.yaml');
    const good = translate(exportFr(), { 'welcome/steps/invite/title': 'Invitez votre équipe' });
    const text = readFileSync(good, 'utf8').replace(
      '<target>Invitez votre équipe</target>',
      '<target>Invitez & votre équipe</target>',
    );
    writeFileSync(good, text);
    const line = text.split('\n').findIndex((l) => l.includes('Invitez &')) + 1;
    expect(main(['translations', 'import', good, dir])).toBe(1);
    expect(errors).toEqual([`${good}:${line}  "&" that starts no entity reference: write &amp;; nothing written`]);
    expect(read('welcome.yaml')).toBe(before);
  });

  it.each([
    ['an unclosed element', '<xliff version="2.0">\n<file>\n</xliff>', 3, '</xliff> closes <file> (line 2)'],
    [
      'a DOCTYPE',
      '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY a "b">]>\n<xliff/>',
      2,
      'a DOCTYPE: XLIFF needs none, and it is refused',
    ],
    ['an attribute without quotes', '<xliff\n version=2.0/>', 2, 'unquoted attribute value'],
    ['text after the root', '<xliff/>\nstray', 2, 'text data outside of root node'],
    ['an unknown entity', '<a>\n&nbsp;</a>', 2, 'unknown entity &nbsp;'],
    [
      'a bare "&" with a reference lines below',
      '<a>\nx & y\n\n<b>&amp;</b></a>',
      2,
      '"&" that starts no entity reference: write &amp;',
    ],
    ['a bare "&" and no ";" after it', '<a>\n\nx & y</a>', 3, '"&" that starts no entity reference: write &amp;'],
    [
      'a control character outside a target',
      '<xliff version="2.0" srcLang="en" trgLang="fr">\n<file><unit id="a"><segment><source>Hi&#1;</source></segment></unit></file></xliff>',
      2,
      'U+0001 in <source>: a character XML does not allow',
    ],
  ])('refuses %s with its line', (_, text, line, message) => {
    expect(() => readXliff(text)).toThrow(`line ${line}: ${message}`);
  });

  it('reads a unit a tool split into segments as one text, translated only when every segment is', () => {
    const split = (second: string) =>
      readXliff(
        `<xliff version="2.0" srcLang="en" trgLang="fr"><file original="a.yaml"><unit id="a"><segment><source>One.</source><target>Un.</target></segment><ignorable><source> </source></ignorable><segment><source>Two.</source>${second}</segment></unit></file></xliff>`,
      ).files[0].units[0];
    expect(split('<target>Deux.</target>')).toMatchObject({ key: 'a', source: 'One. Two.', target: 'Un. Deux.' });
    expect(split('').target).toBeUndefined();
  });

  it('refuses an XLIFF version other than 2.0 and 1.2, and inline codes in a target', () => {
    expect(() => readXliff('<xliff version="1.1" srcLang="en" trgLang="fr"/>')).toThrow(
      'line 1: XLIFF version 1.1: 2.0 and 1.2 are read',
    );
    const inline =
      '<xliff version="2.0" srcLang="en" trgLang="fr"><file original="welcome.yaml"><unit id="a">\n<segment><source>Hi</source>\n<target>Salut <ph id="1"/></target></segment></unit></file></xliff>';
    expect(() => readXliff(inline)).toThrow('line 3: <ph> inside <target>');
  });
});

const run = promisify(execFile);

/**
 * `translations import` of `xliff` into the test's folder by the built CLI, in a process held to a 64 MB heap (one past
 * it dies): its exit code, its output, and how long it took.
 */
async function importByCli(
  xliff: string,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  const args = ['--max-old-space-size=64', 'dist/flows.mjs', 'translations', 'import', xliff, dir];
  const result = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number | null; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
  return { ...result, ms: performance.now() - started };
}

describe('translations import of a file made to break it (the built CLI)', () => {
  const HEAD =
    '<?xml version="1.0" encoding="UTF-8"?>\n<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">\n  <file original="welcome.yaml">\n';
  const TAIL = '  </file>\n</xliff>\n';
  const FLOWS = ['welcome.yaml', 'team-profile.yaml', 'nps.yml'];
  const bytes = () => FLOWS.map((name) => readFileSync(join(dir, name)));

  /** Imports `text`, and expects exit 1, `stderr` alone on standard error (no stack trace), every flow file as it was, and a bounded run. */
  async function expectRefused(text: string, stderr: (file: string) => string[]) {
    const file = join(dir, 'hostile.xlf');
    writeFileSync(file, text);
    const before = bytes();
    const result = await importByCli(file);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stderr.trimEnd().split('\n')).toEqual(stderr(file));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.ms).toBeLessThan(10_000);
    expect(bytes()).toEqual(before);
  }

  it('refuses 200,000 nested elements in one line with the file and line, and writes nothing', async () => {
    await expectRefused(`${HEAD}${'<x>'.repeat(200_000)}${'</x>'.repeat(200_000)}\n${TAIL}`, (file) => [
      `${file}:4  <x> is nested 33 deep, deeper than the 32 levels a translations file may have; nothing written`,
    ]);
  });

  it('refuses 300,000 units as the export writes them (65 MB) by their size, before reading them', async () => {
    const units = Array.from(
      { length: 300_000 },
      (_, i) =>
        `    <unit id="welcome.steps.s${i}.title" name="welcome/steps/s${i}/title">\n      <segment state="translated">\n        <source>Step ${i}</source>\n        <target>Étape ${i}</target>\n      </segment>\n    </unit>\n`,
    );
    const text = HEAD + units.join('') + TAIL;
    const size = Buffer.byteLength(text).toLocaleString('en');
    await expectRefused(text, (file) => [
      `${file}: ${size} bytes, more than the 4 MiB a translations file may have; nothing written`,
    ]);
  });

  it('refuses 150,000 units in 2 MB at the element past the limit, with its line', async () => {
    // The <xliff> and <file> elements are the first two, on lines 2 and 3: element 100,001 is unit 99,999, on line 100,002.
    await expectRefused(HEAD + '<unit id="a"/>\n'.repeat(150_000) + TAIL, (file) => [
      `${file}:100002  <unit> is element 100,001, more than the 100,000 a translations file may have; nothing written`,
    ]);
  });

  it.each([
    ['an unpaired high surrogate', 'Invitez &#xD800;'],
    ['an unpaired low surrogate', '&#xDC00; Invitez'],
    ['a NUL character', 'Invitez\u0000'],
  ])(
    'refuses a target holding %s as check does, with its key and line, and leaves that file byte for byte',
    async (_, target) => {
      const welcome = readFileSync(join(dir, 'welcome.yaml'));
      const file = translate(exportFr(), {
        'welcome/steps/invite/title': target,
        'team-profile/steps/about/fields/email/label': 'E-mail professionnel',
      });
      const line =
        readFileSync(file, 'utf8')
          .split('\n')
          .findIndex((l) => l.includes(`<target>${target}</target>`)) + 1;
      const result = await importByCli(file);
      expect(result.stderr.trimEnd().split('\n')).toEqual([
        `${file}:${line}  welcome/steps/invite/title: holds a NUL character (\\0) or an unpaired surrogate (such as \\uD800), which cannot be stored`,
        `${join(dir, 'welcome.yaml')}: not written (1 refused)`,
      ]);
      expect(result.code).toBe(1);
      expect(readFileSync(join(dir, 'welcome.yaml'))).toEqual(welcome);
      // The file with nothing refused is written, and what is written loads.
      expect(result.stdout).toBe(`${join(dir, 'team-profile.yaml')}: 1 translation written\n`);
      expect(checkPaths([dir]).reports.flatMap((report) => report.problems)).toEqual([]);
    },
  );

  it('leaves a flow file that does not load as it is as it was, with its problems and no stack trace', async () => {
    // A string where the locale's step overlay (a mapping) goes: the file is refused by check already, and a target for that step has nowhere to go.
    writeFileSync(join(dir, 'welcome.yaml'), `${CHECKLIST}translations:\n  fr:\n    steps:\n      invite: Invitez\n`);
    const line = read('welcome.yaml').split('\n').indexOf('      invite: Invitez') + 1;
    const file = translate(exportFr(), { 'welcome/steps/invite/title': 'Invitez votre équipe' });
    await expectRefused(readFileSync(file, 'utf8'), () => [
      `${join(dir, 'welcome.yaml')}:${line}:15  translations.fr.steps.invite: expected a mapping, got the string "Invitez"`,
      `${join(dir, 'welcome.yaml')}: not written (it does not load as it is: fix it first)`,
    ]);
  });
});
