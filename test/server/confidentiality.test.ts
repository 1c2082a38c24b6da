// What the public key can read, as docs/security.md and docs/flows.md say: every ACTIVE flow's content, targeted or not; never a DRAFT's.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';

const launch = (status: string, slug: string, title: string) => `
slug: ${slug}
name: ${title}
type: CARD
status: ${status}
targetingLogic: "user.properties.plan == 'enterprise'"
data:
  steps:
    - id: news
      title: ${title}
translations:
  fr:
    steps:
      news:
        title: ${title} (fr)
`;

describe('targeting is not confidentiality', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({
      'active.yaml': launch('ACTIVE', 'targeted-launch', 'Codename Falcon ships'),
      'draft.yaml': launch('DRAFT', 'secret-launch', 'Codename Osprey ships'),
    });
  });
  afterAll(() => service?.close());

  it('lets the public key read an ACTIVE flow, translations included, by users it does not target', async () => {
    const listed = await service.call('GET', '/v1/public/flows');
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('Codename Falcon ships');
    const hidden = await service.call(
      'GET',
      '/v1/public/flowStates?userId=guest_outsider&targetedOut=hidden&locale=fr',
    );
    expect(hidden.status).toBe(200);
    expect(hidden.text).toContain('Codename Falcon ships (fr)');
  });

  it('never serves a DRAFT flow with the public key', async () => {
    const listed = await service.call('GET', '/v1/public/flows');
    const french = await service.call(
      'GET',
      '/v1/public/flowStates?userId=guest_outsider&targetedOut=hidden&locale=fr',
    );
    const hidden = await service.call('GET', '/v1/public/flowStates?userId=guest_outsider&targetedOut=hidden');
    for (const answer of [listed, french, hidden]) expect(answer.text).not.toContain('Osprey');
  });

  it('is said next to targetingLogic and in the security page', () => {
    const flows = readFileSync('docs/flows.md', 'utf8');
    const targeting = flows.split(/^### /m).find((part) => part.startsWith('Targeting\n')) ?? '';
    expect(targeting).toMatch(/decides who is shown a flow, not who can read it/);
    expect(targeting).toMatch(/`DRAFT`/);
    const security = readFileSync('docs/security.md', 'utf8');
    expect(security).toMatch(/## What the public key can read\n[\s\S]*not who can read it[\s\S]*`DRAFT`/);
  });
});

describe('docs/security.md', () => {
  it('lists each attack found, and what stops it now', () => {
    const security = readFileSync('docs/security.md', 'utf8');
    const section =
      security.split(/^## /m).find((part) => part.startsWith('Attacks tried, and what stops them\n')) ?? '';
    const attacks = [...section.matchAll(/^(\d+)\. \*\*(.+?)\*\*(.*(?:\n {3}.*)*)/gm)];
    expect(attacks.map((m) => Number(m[1]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const [, , title, text] of attacks) expect(text.trim().length, title).toBeGreaterThan(200);
    expect(section).not.toMatch(/\b(LOCALE_FLOOD|PREVIEW|TRANSLATIONS|TODO)\b/);
  });
});
