// Start rules (startWhen) on the service: checked with file and line like the rest of a flow file, and served in the flow's content.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowData, FlowsResponse } from '../../src/api/wire.js';
import { checkPaths, formatReport } from '../../server/flows/cli.js';
import { checkFlowText } from '../../server/flows/definitions.js';
import { bannerFlowYaml, PUBLIC_KEY, startTestService, type TestService } from '../support/service.js';

const BAD = `startWhen:
  page: [/reports/*, "reports", "!/a/*/b", "!/ok/:id"]
  element: "div["
  click: "#take >>> "
  delay: soon
  onLoad: true
${bannerFlowYaml('bad')}`;

const GOOD = `startWhen:
  page: ["/reports/*", "!/reports/archive"]
  element: "my-app >>> .chart"
  click: "#take-tour"
  delay: 500ms
${bannerFlowYaml('ruled')}`;

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ 'ruled.yaml': GOOD, 'bad.yaml': BAD, 'plain.yaml': bannerFlowYaml('plain') });
});
afterAll(() => service?.close());

describe('startWhen on the service', () => {
  it('refuses bad page patterns (a "!" one quoted as written), selectors, a bad delay and an unknown rule, each with its line', () => {
    const { problems } = checkFlowText(BAD);
    expect(problems.map((p) => `${p.path} ${p.line}: ${p.message}`)).toEqual([
      'startWhen.page[1] 2: "reports" is not a path: a page pattern starts with "/" (such as /reports/* or /projects/:id/settings)',
      'startWhen.page[2] 2: "!/a/*/b": "*" may only end the pattern (it matches the rest of the path)',
      'startWhen.element 3: "div[" is not a CSS selector: expected attribute name (at character 4)',
      'startWhen.click 4: "#take >>> " has an empty part: ">>>" needs a selector on each side',
      'startWhen.delay 5: bad duration "soon"; expected a whole number and a unit (ms, s, m, h, d or w), such as 500ms or 3s',
      'startWhen.onLoad 6: unknown key; expected one of page, element, click, delay',
    ]);
    expect(checkFlowText(`startWhen:\n  page: reports\n${bannerFlowYaml('one')}`).problems.map((p) => p.path)).toEqual([
      'startWhen.page',
    ]);
    expect(checkFlowText(`startWhen: { page: "!/settings/*", delay: "0" }\n${bannerFlowYaml('ok')}`).problems).toEqual(
      [],
    );
  });

  it('refuses a segment with two ":name"s, or one and the final "*", which earlier scripts took seconds to match; ":" alone is text', () => {
    const refused = ['/x:a:b:c:d:e:f:g:h:i:j:k', '/v:a*', '!/p/x:a-:b/y'];
    const file = `startWhen:\n  page: ${JSON.stringify(refused)}\n${bannerFlowYaml('slow')}`;
    const { problems } = checkFlowText(file);
    const why = (pattern: string, segment: string) =>
      `${JSON.stringify(pattern)}: ":" inside a segment is text, and a parameter is a whole segment (such as /x/:id); "${segment}" is refused: earlier versions of the script read a ":name" in it as a parameter, beside another or the "*", and such a pattern can take seconds to match`;
    expect(problems.map((p) => `${p.path} ${p.line}: ${p.message}`)).toEqual([
      `startWhen.page[0] 2: ${why(refused[0], 'x:a:b:c:d:e:f:g:h:i:j:k')}`,
      `startWhen.page[1] 2: ${why(refused[1], 'v:a*')}`,
      `startWhen.page[2] 2: ${why(refused[2], 'x:a-:b')}`,
    ]);
    // A step's page is the same format, refused by the schema with its path.
    const tour = `slug: t\nname: T\ntype: TOUR\nstatus: ACTIVE\ndata:\n  steps:\n    - id: one\n      title: One\n      page: /a:b:c\n`;
    expect(checkFlowText(tour).problems.map((p) => `${p.path} ${p.line}`)).toEqual(['data.steps[0].page 9']);
    // One ":name" inside a segment, or a ":" before no name, is text; a whole-segment parameter beside "*" is fine.
    const fine = ['/wiki/Special:Search', '/at/10:30', '/x:a/*', '/:id/*', '/a:/b'];
    expect(checkFlowText(`startWhen:\n  page: ${JSON.stringify(fine)}\n${bannerFlowYaml('fine')}`).problems).toEqual(
      [],
    );
    // onboarding-flows check, which shares this code, prints the file and line.
    const dir = mkdtempSync(join(tmpdir(), 'onboarding-start-rules-'));
    try {
      writeFileSync(join(dir, 'slow.yaml'), file);
      const { reports } = checkPaths([dir]);
      const lines = formatReport(reports[0], 'text').map((line) => line.replace(/^.*slow\.yaml/, 'slow.yaml'));
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(
        /^slow\.yaml:2:10 {2}startWhen\.page\[0\]: "\/x:a:b:c:d:e:f:g:h:i:j:k": ":" inside a segment is text/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints them with onboarding-flows check, file and line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onboarding-start-rules-'));
    try {
      writeFileSync(join(dir, 'bad.yaml'), BAD);
      writeFileSync(join(dir, 'ruled.yaml'), GOOD);
      const { reports, checked } = checkPaths([dir]);
      expect(checked).toBe(2);
      expect(reports.map((report) => report.file)).toEqual([join(dir, 'bad.yaml')]);
      const lines = formatReport(reports[0], 'text').map((line) => line.replace(/^.*bad\.yaml/, 'bad.yaml'));
      expect(lines.map((line) => line.split('  ')[0])).toEqual([
        'bad.yaml:2:22',
        'bad.yaml:2:33',
        'bad.yaml:3:12',
        'bad.yaml:4:10',
        'bad.yaml:5:10',
        'bad.yaml:6:3',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves the rules in the flow content; a bad file is left out alone', async () => {
    const response = await fetch(`${service.url}/v1/public/flows?publicKey=${PUBLIC_KEY}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as FlowsResponse;
    const data = (slug: string) => JSON.parse(body.data.find((flow) => flow.slug === slug)!.data) as FlowData;
    expect(data('ruled').startWhen).toEqual({
      page: ['/reports/*', '!/reports/archive'],
      element: 'my-app >>> .chart',
      click: '#take-tour',
      delay: '500ms',
    });
    expect(data('plain').startWhen).toBeUndefined();
    expect(body.data.map((flow) => flow.slug)).not.toContain('bad');
  });
});
