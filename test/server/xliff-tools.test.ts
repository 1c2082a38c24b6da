// `translations import` of XLIFF as other tools write it: a translation library's 2.0 and 1.2 (no `original`, ids only), and hand-written shapes (groups, CDATA, entities, state).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createxliff12, js2xliff, jsToXliff12, xliff12ToJs, xliff2js, type XliffJs } from 'xliff';
import { parse } from 'yaml';
import { main } from '../../server/flows/cli.js';
import { unitId } from '../../server/flows/xliff.js';

const WELCOME = `slug: welcome
name: Welcome
type: CHECKLIST
data:
  title: Get set up, \${firstName|friend}
  steps:
    - id: connect
      title: Connect a data source
      subtitle: "Use <b>Settings</b> & \\"Sources\\""
    - id: invite
      title: Invite your team
`;

const NPS = `slug: nps
name: NPS survey
type: SURVEY
data:
  steps:
    - id: score
      type: nps
      title: How likely are you to recommend us?
`;

let dir: string;
let out: string[];
let errors: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'onboarding-xliff-tools-'));
  writeFileSync(join(dir, 'welcome.yaml'), WELCOME);
  writeFileSync(join(dir, 'nps.yml'), NPS);
  out = [];
  errors = [];
  vi.spyOn(console, 'log').mockImplementation((...args) => void out.push(args.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...args) => void errors.push(args.join(' ')));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const translationsOf = (name: string) => parse(readFileSync(join(dir, name), 'utf8')).translations;
function exportFr(): string {
  const file = join(dir, 'out.xlf');
  expect(main(['translations', 'export', '--locale', 'fr', dir, '--out', file])).toBe(0);
  return readFileSync(file, 'utf8');
}
/** Imports `text` as a file of the folder: the exit code. */
function importText(text: string, name = 'fr.xlf'): { code: number; file: string } {
  const file = join(dir, name);
  writeFileSync(file, text);
  return { code: main(['translations', 'import', file, dir]), file };
}
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((line) => line.includes(needle)) + 1;

/** What the flows hold once the targets below are imported, whichever way they came. */
const FRENCH = {
  'welcome/title': 'Bienvenue, ${firstName|l’ami}',
  'welcome/steps/connect/subtitle': 'Utilisez <b>Réglages</b> & « Sources »',
  'nps/steps/score/title': 'Nous recommanderiez-vous ?',
};
function expectFrench() {
  expect(translationsOf('welcome.yaml')).toEqual({
    fr: { title: FRENCH['welcome/title'], steps: { connect: { subtitle: FRENCH['welcome/steps/connect/subtitle'] } } },
  });
  expect(translationsOf('nps.yml')).toEqual({ fr: { steps: { score: { title: FRENCH['nps/steps/score/title'] } } } });
}

/** The units of a library's document by id, through its groups. */
function unitsById(js: XliffJs) {
  return Object.values(js.resources).flatMap((units) => Object.entries(units));
}
/** Sets the targets of {@link FRENCH} on a library's document, finding each unit by the id the export gives it. */
function fillFrench(js: XliffJs, options: { dropNames?: boolean } = {}) {
  const byId = new Map(Object.entries(FRENCH).map(([key, target]) => [unitId(key), target]));
  for (const [id, unit] of unitsById(js)) {
    if (byId.has(id)) unit.target = byId.get(id);
    if (options.dropNames) delete unit.additionalAttributes;
  }
  expect(unitsById(js).filter(([, unit]) => unit.target !== undefined)).toHaveLength(3);
}

describe('translations import of XLIFF a translation library wrote', () => {
  it('reads XLIFF 2.0 the library wrote back from our export: its <file>s have no original', async () => {
    const js = await xliff2js(exportFr());
    fillFrench(js);
    const text = await js2xliff(js);
    expect(text).toContain('<file id="welcome_2e_yaml">');
    expect(text).not.toContain('original=');
    expect(importText(text).code).toBe(0);
    expect(errors).toEqual([]);
    expectFrench();
    expect(out.slice(1)).toEqual([
      `${join(dir, 'nps.yml')}: 1 translation written`,
      `${join(dir, 'welcome.yaml')}: 2 translations written`,
    ]);
  });

  it('reads units the library wrote with an id and no name, by the id the export gives each key', async () => {
    const js = await xliff2js(exportFr());
    fillFrench(js, { dropNames: true });
    const text = await js2xliff(js);
    expect(text).not.toContain(' name=');
    expect(importText(text).code).toBe(0);
    expect(errors).toEqual([]);
    expectFrench();
  });

  it('reads XLIFF 1.2 the library wrote from our export (target-language, <trans-unit>, its own original)', async () => {
    const js = await xliff2js(exportFr());
    fillFrench(js, { dropNames: true });
    const text = await jsToXliff12(js);
    expect(text).toContain('version="1.2"');
    expect(text).toContain(
      '<file original="welcome_2e_yaml" datatype="plaintext" source-language="en" target-language="fr">',
    );
    // The library reads its own text back as we meant it.
    const again = await xliff12ToJs(text);
    expect(again.resources['welcome_2e_yaml']['welcome.title'].target).toBe(FRENCH['welcome/title']);
    expect(importText(text).code).toBe(0);
    expect(errors).toEqual([]);
    expectFrench();
  });

  it('reads XLIFF 1.2 the library made from keys and texts alone: one <file> for every flow, the keys as ids', async () => {
    const sources = {
      'welcome/title': 'Get set up, ${firstName|friend}',
      'welcome/steps/connect/subtitle': 'Use <b>Settings</b> & "Sources"',
      'nps/steps/score/title': 'How likely are you to recommend us?',
    };
    const text = await createxliff12('en', 'fr', sources, FRENCH, 'flows');
    expect(text.match(/<file /g)).toHaveLength(1);
    expect(text).toContain('<trans-unit id="nps/steps/score/title">');
    expect(importText(text).code).toBe(0);
    expect(errors).toEqual([]);
    expectFrench();
  });

  it('refuses a key no flow has in a file the library wrote, with its line, and writes that flow alone', async () => {
    const js = await xliff2js(exportFr());
    fillFrench(js, { dropNames: true });
    js.resources['welcome_2e_yaml']['welcome.steps.gone.title'] = { source: 'Gone', target: 'Parti' };
    const text = await js2xliff(js);
    const { code, file } = importText(text);
    expect(code).toBe(1);
    expect(errors).toEqual([
      `${file}:${lineOf(text, '"welcome.steps.gone.title"')}  welcome.steps.gone.title: no such text field in welcome.yaml`,
      `${join(dir, 'welcome.yaml')}: not written (1 refused)`,
    ]);
    expect(translationsOf('welcome.yaml')).toBeUndefined();
    expect(translationsOf('nps.yml')).toEqual({ fr: { steps: { score: { title: FRENCH['nps/steps/score/title'] } } } });
  });

  it('refuses a file the library wrote that an edit broke, with the line the parser names, and writes nothing', async () => {
    const js = await xliff2js(exportFr());
    fillFrench(js);
    const text = (await js2xliff(js)).replace('</source>\n        <target>Nous', '</sourc>\n        <target>Nous');
    const { code, file } = importText(text);
    expect(code).toBe(1);
    expect(errors).toEqual([
      `${file}:${lineOf(text, '</sourc>')}  </sourc> closes <source> (line ${lineOf(text, '</sourc>')}); nothing written`,
    ]);
    expect(translationsOf('welcome.yaml')).toBeUndefined();
    expect(translationsOf('nps.yml')).toBeUndefined();
  });
});

/** XLIFF 2.0 around `files`, as a tool writes it. */
const xliff20 = (files: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">\n${files}</xliff>\n`;
const unit20 = (key: string, target: string, segment = '') =>
  `    <unit id="${unitId(key)}">\n      <segment${segment}>\n        <source>-</source>\n        ${target}\n      </segment>\n    </unit>\n`;
/** XLIFF 1.2 around `body`, in one <file>. */
const xliff12 = (
  body: string,
  file = 'original="flows" source-language="en" target-language="fr" datatype="plaintext"',
) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">\n  <file ${file}>\n    <body>\n${body}    </body>\n  </file>\n</xliff>\n`;

describe('translations import of XLIFF in the shapes tools write', () => {
  it('reads a <file> per flow with no original, and one <file> for every flow', () => {
    const units = Object.entries(FRENCH).map(([key, target]) =>
      unit20(key, `<target>${target.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</target>`),
    );
    expect(
      importText(xliff20(`  <file id="f1">\n${units[0]}${units[1]}  </file>\n  <file id="f2">\n${units[2]}  </file>\n`))
        .code,
    ).toBe(0);
    expectFrench();
    writeFileSync(join(dir, 'welcome.yaml'), WELCOME);
    writeFileSync(join(dir, 'nps.yml'), NPS);
    expect(importText(xliff20(`  <file id="all">\n${units.join('')}  </file>\n`)).code).toBe(0);
    expect(errors).toEqual([]);
    expectFrench();
  });

  it('reads units in nested <group>s, a target in CDATA, entities and character references, and a state on the target', () => {
    const text = xliff20(
      '  <file id="all">\n    <group id="welcome">\n      <group id="steps">\n' +
        unit20(
          'welcome/steps/connect/subtitle',
          '<target><![CDATA[Utilisez <b>Réglages</b> & « Sources »]]></target>',
          ' state="final"',
        ) +
        '      </group>\n' +
        unit20('welcome/title', '<target>Bienvenue, ${firstName|l&#x2019;ami}</target>') +
        '    </group>\n' +
        unit20('nps/steps/score/title', '<target>Nous recommanderiez-vous&#160;?</target>', ' state="reviewed"') +
        '  </file>\n',
    );
    expect(importText(text).code).toBe(0);
    expect(errors).toEqual([]);
    expect(translationsOf('welcome.yaml').fr).toEqual({
      title: FRENCH['welcome/title'],
      steps: { connect: { subtitle: FRENCH['welcome/steps/connect/subtitle'] } },
    });
    expect(translationsOf('nps.yml').fr.steps.score.title).toBe('Nous recommanderiez-vous\u00a0?');
  });

  it('reads XLIFF 1.2 with resname, <target state>, groups, CDATA and entities, and skips units with no or an empty target', () => {
    const text = xliff12(
      '      <group id="g1" resname="welcome">\n' +
        '        <trans-unit id="1" resname="welcome/title">\n          <source>Get set up</source>\n          <target state="final">Bienvenue, ${firstName|l&#8217;ami}</target>\n        </trans-unit>\n' +
        '        <group id="g2">\n          <trans-unit id="welcome.steps.connect.subtitle">\n            <source>Use</source>\n            <target state="translated"><![CDATA[Utilisez <b>R]]>&#233;glages&lt;/b&gt; &amp; « Sources »</target>\n          </trans-unit>\n        </group>\n' +
        '        <trans-unit id="welcome.steps.invite.title">\n          <source>Invite your team</source>\n        </trans-unit>\n' +
        '      </group>\n' +
        '      <trans-unit id="nps.steps.score.title" translate="yes">\n        <source>How likely?</source>\n        <target state="needs-review-translation" xml:lang="fr">Nous recommanderiez-vous ?</target>\n        <alt-trans><target>Autre</target></alt-trans>\n      </trans-unit>\n' +
        '      <trans-unit id="welcome.steps.invite.title"><source>Invite your team</source><target/></trans-unit>\n',
    );
    expect(importText(text).code).toBe(0);
    expect(errors).toEqual([]);
    expectFrench();
  });

  it('leaves out a target whose state says it is not translated yet: 2.0 initial, 1.2 new and needs-translation', () => {
    const copy20 = xliff20(
      `  <file id="all">\n${unit20('welcome/title', '<target>Get set up, ${firstName|friend}</target>', ' state="initial"')}${unit20('nps/steps/score/title', '<target>Nous recommanderiez-vous ?</target>', ' state="translated"')}  </file>\n`,
    );
    expect(importText(copy20).code).toBe(0);
    expect(errors).toEqual([]);
    expect(translationsOf('welcome.yaml')?.fr?.title).toBeUndefined();
    expect(translationsOf('nps.yml').fr.steps.score.title).toBe('Nous recommanderiez-vous ?');
    const copy12 = xliff12(
      '      <trans-unit id="welcome.title"><source>Get set up</source><target state="new">Get set up</target></trans-unit>\n' +
        '      <trans-unit id="welcome.steps.connect.subtitle"><source>Use</source><target state="needs-translation">Use</target></trans-unit>\n' +
        '      <trans-unit id="welcome.steps.invite.title"><source>Invite your team</source><target state="needs-review-translation">Invitez votre équipe</target></trans-unit>\n',
    );
    expect(importText(copy12).code).toBe(0);
    expect(errors).toEqual([]);
    expect(translationsOf('welcome.yaml').fr).toEqual({ steps: { invite: { title: 'Invitez votre équipe' } } });
  });

  it('takes the flow from the key when <file original> names no flow file of the folder', () => {
    const text = xliff20(
      `  <file id="f" original="renamed.yaml">\n${unit20('nps/steps/score/title', '<target>Nous recommanderiez-vous ?</target>')}  </file>\n`,
    );
    expect(importText(text).code).toBe(0);
    expect(translationsOf('nps.yml').fr.steps.score.title).toBe('Nous recommanderiez-vous ?');
  });

  it('refuses a key no flow has, and one whose slug no flow has, with their lines, and writes the rest', () => {
    const text = xliff20(
      `  <file id="all">\n${unit20('welcome/steps/gone/title', '<target>Parti</target>')}${unit20('nope/title', '<target>Non</target>')}${unit20('nps/steps/score/title', '<target>Nous recommanderiez-vous ?</target>')}  </file>\n`,
    );
    const { code, file } = importText(text);
    expect(code).toBe(1);
    expect(errors).toEqual([
      `${file}:${lineOf(text, '"nope.title"')}  nope.title: no flow file in ${dir} has the slug "nope"`,
      `${file}:${lineOf(text, '"welcome.steps.gone.title"')}  welcome.steps.gone.title: no such text field in welcome.yaml`,
      `${join(dir, 'welcome.yaml')}: not written (1 refused)`,
    ]);
    expect(translationsOf('nps.yml').fr.steps.score.title).toBe('Nous recommanderiez-vous ?');
    expect(translationsOf('welcome.yaml')).toBeUndefined();
  });

  it('refuses a unit whose slug two flow files have, when no original names its file', () => {
    writeFileSync(join(dir, 'nps-copy.yaml'), NPS);
    const text = xliff20(`  <file id="all">\n${unit20('nps/steps/score/title', '<target>Nous ?</target>')}  </file>\n`);
    const { code, file } = importText(text);
    expect(code).toBe(1);
    expect(errors).toEqual([
      `${file}:${lineOf(text, '<unit ')}  nps.steps.score.title: nps-copy.yaml and nps.yml have the same slug; check refuses them both`,
    ]);
    expect(translationsOf('nps.yml')).toBeUndefined();
  });

  it('refuses XLIFF 1.2 with no target-language, or with two, with the line of the <file>', () => {
    const unit =
      '      <trans-unit id="nps.steps.score.title"><source>How likely?</source><target>Nous ?</target></trans-unit>\n';
    let result = importText(xliff12(unit, 'original="flows" source-language="en" datatype="plaintext"'));
    expect(result.code).toBe(1);
    expect(errors).toEqual([`${result.file}:3  <file> needs target-language; nothing written`]);
    errors.length = 0;
    const two = xliff12(unit).replace(
      '  </file>\n',
      `  </file>\n  <file original="more" source-language="en" target-language="de" datatype="plaintext">\n    <body>\n${unit}    </body>\n  </file>\n`,
    );
    result = importText(two);
    expect(result.code).toBe(1);
    expect(errors).toEqual([
      `${result.file}:${lineOf(two, 'target-language="de"')}  <file> is in target-language "de", and the first <file> (line 3) in "fr": a translations file holds one locale; nothing written`,
    ]);
    expect(translationsOf('nps.yml')).toBeUndefined();
  });

  it('refuses a 1.2 target-language that is no locale code with its line', () => {
    const text = xliff12(
      '      <trans-unit id="nps.steps.score.title"><source>How likely?</source><target>Nous ?</target></trans-unit>\n',
      'original="x" source-language="en" target-language="fr_FR"',
    );
    const { code, file } = importText(text);
    expect(code).toBe(1);
    expect(errors).toEqual([`${file}:3  target-language "fr_FR" is not a locale code (fr, fr-CA, pt-BR)`]);
  });
});
