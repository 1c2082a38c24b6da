// Flows in the user's locale: a state answer carries one locale's text, field by field the exact translation, else the base language's, else the source.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowState } from '../../src/api/wire.js';
import { startTestService, targetedCards, type TestService } from '../support/service.js';

const WELCOME = `slug: welcome
name: Welcome
type: FORM
data:
  title: Hello
  steps:
    - id: about
      title: About you
      subtitle: Tell us who you are
      primaryButton: { title: Next, uri: "https://example.com/en" }
      fields:
        - { id: role, type: select, label: Role, options: [{ value: dev, label: Developer }, { value: pm, label: Manager }] }
translations:
  fr:
    title: Bonjour
    steps:
      about:
        title: À propos de vous
        subtitle: Dites-nous qui vous êtes
        primaryButton: { title: Suivant, uri: "https://example.com/fr" }
        fields: { role: { label: Rôle, options: { dev: Développeuse } } }
  fr-CA:
    steps:
      about: { title: Parlez-nous de vous }
  de:
    steps:
      about: { title: Über Sie }
`;

let service: TestService;
beforeAll(async () => {
  service = await startTestService({
    'welcome.yaml': WELCOME,
    ...targetedCards({
      'in-french': "user.locale.startsWith('fr')",
      'in-canada': "user.locale == 'fr-CA'",
      'no-locale': "user.locale == ''",
    }),
  });
});
afterAll(() => service?.close());

const user = () => `user-${randomUUID()}`;
const welcome = (body: { eligibleFlows: FlowState[] }) =>
  body.eligibleFlows.find((flow) => flow.flowSlug === 'welcome')!;
const read = async (locale?: string, userId = user()) =>
  welcome(
    (
      await service.call(
        'GET',
        `/v1/public/flowStates?userId=${userId}${locale === undefined ? '' : `&locale=${encodeURIComponent(locale)}`}`,
      )
    ).body,
  );
/** The text the answer shows, in the order of the file. */
const text = (flow: FlowState) => {
  const data = flow.data as unknown as {
    title: string;
    steps: Array<{
      title: string;
      subtitle: string;
      primaryButton: { title: string; uri: string };
      fields: Array<{ label: string; options: Array<{ label: string }> }>;
    }>;
  };
  const step = data.steps[0];
  return [
    data.title,
    step.title,
    step.subtitle,
    step.primaryButton.title,
    step.primaryButton.uri,
    step.fields[0].label,
    ...step.fields[0].options.map((o) => o.label),
  ];
};
const SOURCE = [
  'Hello',
  'About you',
  'Tell us who you are',
  'Next',
  'https://example.com/en',
  'Role',
  'Developer',
  'Manager',
];
const FRENCH = [
  'Bonjour',
  'À propos de vous',
  'Dites-nous qui vous êtes',
  'Suivant',
  'https://example.com/fr',
  'Rôle',
  'Développeuse',
  'Manager',
];

describe('a state answer in a locale', () => {
  it('shows the source text without a locale, and the exact translation with one', async () => {
    expect(text(await read())).toEqual(SOURCE);
    expect(text(await read('fr'))).toEqual(FRENCH);
  });

  it("falls back field by field: fr-CA's own text, else fr's, else the source", async () => {
    expect(text(await read('fr-CA'))).toEqual(['Bonjour', 'Parlez-nous de vous', ...FRENCH.slice(2)]);
    // A region the flow has no translation for reads as its language.
    expect(text(await read('fr-BE'))).toEqual(FRENCH);
    // German has only the step title; the rest is the source.
    expect(text(await read('de-AT'))).toEqual(['Hello', 'Über Sie', ...SOURCE.slice(2)]);
  });

  it('forgives case and "_", and reads a code that is no locale as none: the source text, not an error', async () => {
    expect(text(await read('FR_ca'))).toEqual(['Bonjour', 'Parlez-nous de vous', ...FRENCH.slice(2)]);
    for (const bad of ['xx_!!', 'français', '', 'f']) {
      const response = await service.call(
        'GET',
        `/v1/public/flowStates?userId=${user()}&locale=${encodeURIComponent(bad)}`,
      );
      expect(response.status, bad).toBe(200);
      expect(text(welcome(response.body)), bad).toEqual(SOURCE);
    }
    // Not a string, or past any code's length: a bad request.
    const long = await service.call('GET', `/v1/public/flowStates?userId=${user()}&locale=${'a'.repeat(1025)}`);
    expect([long.status, long.body.field]).toEqual([400, 'locale']);
    const number = await service.call('POST', '/v1/public/flowStates', { body: { userId: user(), locale: 42 } });
    expect([number.status, number.body.field]).toEqual([400, 'locale']);
  });

  it('carries one locale only: no translations in the answer, nor in GET /v1/public/flows', async () => {
    const response = await service.call('GET', `/v1/public/flowStates?userId=${user()}&locale=fr`);
    expect(response.text).not.toContain('translations');
    expect(response.text).not.toContain('Über Sie');
    expect(response.text).not.toContain('Parlez-nous');
    expect(response.text).not.toContain('About you');
    const flows = await service.call('GET', '/v1/public/flows');
    expect(flows.text).not.toContain('translations');
    expect(flows.text).not.toContain('Bonjour');
  });

  it('is, in a locale, the answer of the same flow written in that language alone: byte for byte, but the version and its hash', async () => {
    const inFrench = JSON.stringify({ ...(await read('fr')), version: 0, contentHash: '' });
    const written = WELCOME.slice(0, WELCOME.indexOf('translations:'))
      .replace('title: Hello', 'title: Bonjour')
      .replace('title: About you', 'title: À propos de vous')
      .replace('subtitle: Tell us who you are', 'subtitle: Dites-nous qui vous êtes')
      .replace('{ title: Next, uri: "https://example.com/en" }', '{ title: Suivant, uri: "https://example.com/fr" }')
      .replace('label: Role', 'label: Rôle')
      .replace('label: Developer', 'label: Développeuse');
    await service.writeFlow('welcome.yaml', written);
    try {
      const alone = JSON.stringify({ ...(await read()), version: 0, contentHash: '' });
      expect(text(JSON.parse(alone))).toEqual(FRENCH);
      expect(Buffer.byteLength(inFrench)).toBe(Buffer.byteLength(alone));
      expect(inFrench).toBe(alone);
    } finally {
      await service.writeFlow('welcome.yaml', WELCOME);
    }
  });

  it('answers in the locale on every endpoint that answers states: POST read (body or query), transition, users, sessions, batch', async () => {
    const userId = user();
    const post = (path: string, body: unknown) => service.call('POST', path, { body });
    expect(text(welcome((await post('/v1/public/flowStates', { userId, locale: 'fr' })).body))).toEqual(FRENCH);
    // The body's locale wins over the query's.
    expect(text(welcome((await post('/v1/public/flowStates?locale=de', { userId, locale: 'fr' })).body))).toEqual(
      FRENCH,
    );
    expect(
      text(
        welcome(
          (
            await post('/v1/public/flowStates?locale=fr', {
              userId,
              flowSlug: 'welcome',
              stepId: 'about',
              actionType: 'STARTED_STEP',
            })
          ).body,
        ),
      ),
    ).toEqual(FRENCH);
    expect(text(welcome((await post('/v1/public/users?locale=fr', { userId })).body.flowStates))).toEqual(FRENCH);
    expect(text(welcome((await post('/v1/public/sessions?locale=fr', { userId })).body.flowStates))).toEqual(FRENCH);
    const batch = await post('/v1/public/batch?locale=fr', {
      writes: [{ path: 'users', idempotencyKey: randomUUID(), body: { userId } }],
    });
    expect(batch.status).toBe(200);
    expect(text(welcome(batch.body.flowStates))).toEqual(FRENCH);
  });

  it('never mixes locales in its cached answers, for users who have stored nothing or something', async () => {
    const touched = user();
    await service.call('POST', '/v1/public/flowStates', {
      body: { userId: touched, flowSlug: 'welcome', stepId: 'about', actionType: 'STARTED_STEP' },
    });
    for (let round = 0; round < 3; round++) {
      for (const userId of [user(), touched]) {
        expect(text(await read('fr', userId))).toEqual(FRENCH);
        expect(text(await read('de', userId))[1]).toBe('Über Sie');
        expect(text(await read(undefined, userId))).toEqual(SOURCE);
        expect(text(await read('fr-CA', userId))[1]).toBe('Parlez-nous de vous');
      }
    }
    // Each version's content is made once per locale the read resolved to, whatever code asked for it.
    await read('fr-BE');
    await read('de-AT');
    expect([...service.catalog.current().bySlug.get('welcome')!.localized.keys()].sort()).toEqual([
      'de',
      'fr',
      'fr+fr-CA',
    ]);
  });

  it('leaves out the content of a version the client holds, in any locale, and sends it again when the client drops knownVersions', async () => {
    const userId = user();
    const first = welcome(
      (await service.call('POST', '/v1/public/flowStates', { body: { userId, locale: 'fr' } })).body,
    );
    const known = { welcome: first.version };
    const again = welcome(
      (await service.call('POST', '/v1/public/flowStates', { body: { userId, locale: 'de', knownVersions: known } }))
        .body,
    );
    expect(again.data).not.toHaveProperty('title');
    const switched = welcome(
      (await service.call('POST', '/v1/public/flowStates', { body: { userId, locale: 'de' } })).body,
    );
    expect(text(switched)[1]).toBe('Über Sie');
  });
});

describe('CEL user.locale', () => {
  const cards = async (query: string, userId = user()) =>
    (
      (await service.call('GET', `/v1/public/flowStates?userId=${userId}${query}`)).body as {
        eligibleFlows: FlowState[];
      }
    ).eligibleFlows
      .map((flow) => flow.flowSlug)
      .filter((slug) => slug !== 'welcome')
      .sort();
  const withProperty = async (locale: unknown) => {
    const userId = user();
    await service.call('POST', '/v1/public/users', { body: { userId, properties: { locale } } });
    return userId;
  };

  it("is the read's locale as a canonical code, '' without one", async () => {
    expect(await cards('&locale=fr_ca')).toEqual(['in-canada', 'in-french']);
    expect(await cards('&locale=fr')).toEqual(['in-french']);
    expect(await cards('')).toEqual(['no-locale']);
    expect(await cards('&locale=xx_!!')).toEqual(['no-locale']);
  });

  it('is the user property locale when the read has none, and the read wins over it', async () => {
    expect(await cards('', await withProperty('fr-CA'))).toEqual(['in-canada', 'in-french']);
    expect(await cards('&locale=de', await withProperty('fr-CA'))).toEqual([]);
    expect(await cards('', await withProperty(42))).toEqual(['no-locale']);
    // The content follows the same locale.
    const userId = await withProperty('fr');
    expect(text(await read(undefined, userId))).toEqual(FRENCH);
  });

  it("holds for a transition's targeting as for its answer", async () => {
    const userId = user();
    const start = (query: string) =>
      service.call('POST', `/v1/public/flowStates${query}`, {
        body: { userId, flowSlug: 'in-french', stepId: 's', actionType: 'STARTED_STEP' },
      });
    expect((await start('')).status).toBe(409);
    const started = await start('?locale=fr');
    expect(started.status).toBe(201);
    expect(started.body.eligibleFlows.map((flow: FlowState) => flow.flowSlug)).toContain('in-french');
  });
});
