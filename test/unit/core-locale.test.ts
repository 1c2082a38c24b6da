// Choosing the locale: init's, setLocale's, the user property's, the browser's; bad codes; reads sent in it; content cached in one locale.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FlowState } from '../../src/api/wire.js';
import { destroySdks, loadSdk } from '../support/core-sdk.js';

const TITLES: Record<string, string> = { '': 'Welcome', fr: 'Bienvenue', de: 'Willkommen' };

/** A state answer with one banner whose title is in `locale` (exact, then base language, then the source), as the service answers. */
const answer = (locale: string, known: Record<string, number>) => {
  const title = TITLES[locale] ?? TITLES[locale.split('-')[0]] ?? TITLES[''];
  const step = {
    id: 'hello',
    $state: { started: true, completed: false, skipped: false, visible: true, blocked: false, flowResponses: [] },
  };
  const state: FlowState = {
    flowSlug: 'welcome',
    flowName: 'Welcome',
    flowType: 'BANNER',
    version: 1,
    data: { steps: [known.welcome === 1 ? step : { ...step, title }] },
    $state: {
      currentStepId: 'hello',
      currentStepIndex: 0,
      started: true,
      completed: false,
      skipped: false,
      visible: true,
      flowResponses: [],
    },
  };
  return { eligibleFlows: [state], ineligibleFlows: [] };
};

/** Every request, with its `locale` query field and body; each is answered like the service would. */
let requests: Array<{ path: string; locale: string | null; body: Record<string, unknown> }>;

beforeEach(() => {
  localStorage.clear();
  requests = [];
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  vi.stubGlobal('fetch', async (input: string, init: RequestInit) => {
    const url = new URL(input);
    const body = JSON.parse(init.body as string) as Record<string, unknown>;
    const locale = url.searchParams.get('locale');
    requests.push({ path: url.pathname, locale, body });
    const known = (body.knownVersions ?? {}) as Record<string, number>;
    const states = answer(locale ?? '', known);
    const reply = url.pathname.endsWith('/batch') ? { results: [], flowStates: states } : states;
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'Content-Type': 'application/json' } });
  });
});
afterEach(() => {
  destroySdks();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const API = 'http://127.0.0.1:9';
const titleOf = (stores: { $flows: { get(): Record<string, { steps: Array<{ title?: unknown }> }> } }) =>
  stores.$flows.get().welcome?.steps[0]?.title;
const reads = () => requests.filter((request) => request.path.endsWith('/flowStates'));

describe('resolving the locale', () => {
  it("takes init's locale, in canonical form, and reads in it", async () => {
    const { sdk, stores, ready } = await loadSdk(API, 'pk_test', { locale: 'fr-ca' });
    await ready;
    expect(sdk.locale).toBe('fr-CA');
    expect(reads().at(-1)!.locale).toBe('fr-CA');
    expect(titleOf(stores as never)).toBe('Bienvenue');
  });

  it('takes the user property locale when init gave none', async () => {
    const { sdk, ready } = await loadSdk(API, 'pk_test');
    await ready;
    await sdk.identify('ada', { locale: 'de' });
    expect(sdk.locale).toBe('de');
    await vi.waitFor(() => expect(requests.at(-1)!.locale).toBe('de'));
  });

  it("puts init's locale before the user property", async () => {
    const { sdk, ready } = await loadSdk(API, 'pk_test', { locale: 'fr' });
    await ready;
    await sdk.identify('ada', { locale: 'de' });
    expect(sdk.locale).toBe('fr');
  });

  it("takes the browser's language when nothing else names one", async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('es-MX');
    const { sdk, ready } = await loadSdk(API, 'pk_test');
    await ready;
    expect(sdk.locale).toBe('es-MX');
    expect(reads()[0].locale).toBe('es-MX');
  });

  it('falls back to no locale for a malformed code or a property that is not a string, reporting bad-value once', async () => {
    const { sdk, errors, ready } = await loadSdk(API, 'pk_test', { locale: 'xx_!!' });
    await ready;
    expect(sdk.locale).toBeUndefined();
    expect(reads()[0].locale).toBeNull();
    sdk.setLocale('xx_!!');
    sdk.setLocale(undefined);
    await sdk.identify('ada', { locale: 42 });
    await sdk.identify('ada', { locale: 42, plan: 'pro' });
    expect(sdk.locale).toBeUndefined();
    expect(errors.filter((error) => error.code === 'bad-value')).toHaveLength(2);
  });
});

describe('setLocale', () => {
  it('reads the state again in the new locale, without known versions, and redraws flows in it', async () => {
    const { sdk, stores, ready } = await loadSdk(API, 'pk_test', { locale: 'fr' });
    await ready;
    expect(titleOf(stores as never)).toBe('Bienvenue');
    sdk.setLocale('de-AT');
    await vi.waitFor(() => expect(titleOf(stores as never)).toBe('Willkommen'));
    expect(reads().at(-1)).toMatchObject({ locale: 'de-AT', body: { knownVersions: {} } });
    // Back in step: the next read sends the versions it holds again.
    await sdk.refresh();
    expect(reads().at(-1)!.body.knownVersions).toEqual({ welcome: 1 });
  });

  it('keeps one locale in the cache: content cached in another is not painted nor announced as known', async () => {
    const first = await loadSdk(API, 'pk_test', { locale: 'fr' });
    await first.ready;
    first.sdk.destroy();
    expect(localStorage.getItem('onboarding:contentLocale')).toBe('fr');
    const second = await loadSdk(API, 'pk_test', { locale: 'de' });
    expect(titleOf(second.stores as never)).toBeUndefined();
    await second.ready;
    expect(reads().at(-1)).toMatchObject({ locale: 'de', body: { knownVersions: {} } });
    expect(titleOf(second.stores as never)).toBe('Willkommen');
  });

  it('paints from the cache when setLocale right after init names the locale it holds, and reads only what changed', async () => {
    const first = await loadSdk(API, 'pk_test', { locale: 'fr' });
    await first.ready;
    first.sdk.destroy();
    // The page gives no locale to init, so the browser's English is resolved first; the cached French stays.
    const second = await loadSdk(API, 'pk_test');
    expect(titleOf(second.stores as never)).toBeUndefined();
    second.sdk.setLocale('fr');
    expect(titleOf(second.stores as never)).toBe('Bienvenue');
    await second.ready;
    expect(reads().at(-1)).toMatchObject({ locale: 'fr', body: { knownVersions: { welcome: 1 } } });
    expect(titleOf(second.stores as never)).toBe('Bienvenue');
    expect(localStorage.getItem('onboarding:contentLocale')).toBe('fr');
  });
});
