// Moving from PostHog: `onboarding-flows from-posthog` writes PostHog's product tours as flow files that check passes and a service serves.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../server/flows/cli.js';
import { checkFlowText } from '../../server/flows/definitions.js';
import { convertPostHogTours, postHogFiltersToCel } from '../../server/flows/from-posthog.js';
import { KEPT_TAGS, postHogContent, tipTapToHtml } from '../../server/flows/posthog-html.js';
import { eligibleSlugs, startTestService } from '../support/service.js';

// The tours below are written from posthog-js's published types (posthog-product-tours-types.ts): ProductTour,
// ProductTourStep (element, modal, survey and banner steps), ProductTourConditions, ProductTourAppearance,
// ProductTourStepButtons and ProductTourStepButton (each ProductTourButtonAction), ProductTourSurveyQuestion,
// ProductTourBannerConfig, ProductTourStepTranslation and ProductTourDisplayFrequency; and, for the management
// API's list, from PostHog's PaginatedProductTourListApi and ProductTourApi (`content`, `archived`).

/** A step of every kind a tour has, each with its buttons: what converts cleanly. */
const WELCOME_TOUR = {
  id: '019a0c1e-0000-7000-8000-000000000001',
  name: 'Welcome tour',
  description: 'The first visit.',
  tour_type: 'tour',
  auto_launch: true,
  start_date: '2025-12-01T09:00:00.000000+01:00',
  end_date: '2099-01-01T00:00:00Z',
  display_frequency: 'until_interacted',
  current_iteration: 1,
  internal_targeting_flag_key: 'product-tour-targeting-welcome-tour-1a2b3c4d',
  conditions: { url: '/reports', urlMatchType: 'exact', autoShowDelaySeconds: 2 },
  appearance: { backgroundColor: '#ffffff', textColor: '#1d1f27', borderRadius: 8, showOverlay: true },
  steps: [
    {
      id: 'intro',
      type: 'modal',
      progressionTrigger: 'button',
      content: null,
      contentHtml: '<h2>Welcome to <em>Lumen</em></h2><p>Dashboards your whole team reads.</p>',
      buttons: {
        primary: { text: 'Show me around', action: 'next_step' },
        secondary: { text: 'Not now', action: 'dismiss' },
      },
      translations: {
        fr: {
          contentHtml: '<h2>Bienvenue sur <em>Lumen</em></h2><p>Des tableaux pour toute l’équipe.</p>',
          buttons: { primary: { text: 'Visite guidée' }, secondary: { text: 'Plus tard' } },
        },
        'pt-br': { contentHtml: '<h2>Bem-vindo</h2>' },
      },
    },
    {
      id: 'filters',
      type: 'element',
      selector: '#report-filters',
      useManualSelector: true,
      progressionTrigger: 'click',
      content: null,
      contentHtml: '<p>Filter by <strong>team</strong>, then click the filters.</p>',
      maxWidth: 320,
    },
    {
      id: 'share',
      type: 'element',
      selector: '.share-button',
      useManualSelector: true,
      progressionTrigger: 'button',
      // Older tours carry the editor's JSON and no contentHtml.
      content: {
        type: 'doc',
        content: [
          {
            type: 'paragraph',
            content: [
              { type: 'text', text: 'Share it, or read ' },
              {
                type: 'text',
                text: 'the guide',
                marks: [{ type: 'link', attrs: { href: 'https://example.com/guide' } }],
              },
            ],
          },
        ],
      },
      buttons: {
        primary: { text: 'Next', action: 'next_step' },
        secondary: { text: 'Back', action: 'previous_step' },
      },
    },
    {
      id: 'score',
      type: 'survey',
      progressionTrigger: 'button',
      content: null,
      survey: {
        type: 'rating',
        questionText: 'How likely are you to recommend Lumen?',
        display: 'number',
        scale: 10,
        lowerBoundLabel: 'Not likely',
        upperBoundLabel: 'Very likely',
        submitButtonText: 'Send',
      },
      linkedSurveyId: '019a0c1e-0000-7000-8000-0000000000aa',
      translations: {
        fr: { survey: { questionText: 'Recommanderiez-vous Lumen ?', lowerBoundLabel: 'Peu probable' } },
      },
    },
    {
      id: 'more',
      type: 'modal',
      progressionTrigger: 'button',
      content: null,
      contentHtml: '<p>That is all. There is more in the billing tour.</p>',
      buttons: {
        primary: { text: 'Read the docs', action: 'link', link: 'https://example.com/docs' },
        secondary: { text: 'Billing tour', action: 'trigger_tour', tourId: 'tour-billing' },
      },
    },
  ],
};

/** Started only by the welcome tour's button or a click on its trigger; an open question at the end. */
const BILLING_TOUR = {
  id: 'tour-billing',
  name: 'Billing tour',
  tour_type: 'tour',
  auto_launch: false,
  start_date: '2025-12-01T00:00:00Z',
  end_date: null,
  conditions: { selector: '#billing-help', url: 'https://app.example.com/billing', urlMatchType: 'icontains' },
  steps: [
    {
      id: 'plans',
      type: 'modal',
      progressionTrigger: 'button',
      content: null,
      contentHtml: '<p>Plans and invoices live here.</p>',
    },
    {
      id: 'why',
      type: 'survey',
      progressionTrigger: 'button',
      content: null,
      survey: { type: 'open', questionText: 'What brought you to billing?' },
    },
  ],
};

const WHATS_NEW = {
  id: 'tour-news',
  name: "What's new",
  tour_type: 'announcement',
  auto_launch: true,
  start_date: '2025-11-01',
  end_date: null,
  display_frequency: 'show_once',
  conditions: { url: '/settings', urlMatchType: 'is_not' },
  steps: [
    {
      id: 'dark',
      type: 'modal',
      progressionTrigger: 'button',
      content: null,
      contentHtml:
        '<h1>Dark mode</h1><p>It follows your system.</p><img src="https://cdn.example.com/dark.png" alt="Dark">',
      buttons: { primary: { text: 'Got it', action: 'dismiss' } },
    },
  ],
};

const SALE_BANNER = {
  id: 'tour-sale',
  name: 'Sale banner',
  tour_type: 'banner',
  auto_launch: true,
  start_date: '2025-11-01T00:00:00Z',
  end_date: null,
  display_frequency: 'always',
  steps: [
    {
      id: 'sale',
      type: 'banner',
      progressionTrigger: 'button',
      content: null,
      contentHtml: '<p><strong>20% off</strong> Pro this week</p>',
      bannerConfig: { behavior: 'sticky', action: { type: 'link', link: 'https://example.com/pricing' } },
    },
  ],
};

describe('onboarding-flows from-posthog', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'onboarding-posthog-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the command line, keeping what it prints. */
  function run(...argv: string[]): { code: number; out: string[]; err: string[] } {
    const out: string[] = [];
    const err: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
    const error = vi.spyOn(console, 'error').mockImplementation((line: string) => void err.push(line));
    try {
      return { code: main(argv), out, err };
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
  }

  /** Converts `input` into a folder of its own; its files by name. */
  function convert(name: string, input: unknown, expectCode: number) {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(input));
    const out = join(dir, name);
    const result = run('from-posthog', file, '--out', out);
    expect(result.code, result.out.join('\n')).toBe(expectCode);
    const files = Object.fromEntries(readdirSync(out).map((entry) => [entry, readFileSync(join(out, entry), 'utf8')]));
    return { ...result, out, files, printed: result.out };
  }

  it('writes the API list of tours as flow files that check passes and a service serves', async () => {
    const list = {
      count: 4,
      next: null,
      previous: null,
      results: [WELCOME_TOUR, BILLING_TOUR, WHATS_NEW, SALE_BANNER],
    };
    const { out, files, printed } = convert('list', list, 0);
    expect(Object.keys(files).sort()).toEqual([
      'billing-tour-survey.yaml',
      'billing-tour.yaml',
      'sale-banner.yaml',
      'welcome-tour-survey.yaml',
      'welcome-tour.yaml',
      'whats-new.yaml',
    ]);
    expect(printed).toEqual([`6 flow files written to ${out}: no problems`]);
    expect(run('check', out)).toMatchObject({ code: 0, out: ['6 flow files checked: no problems'] });
    for (const text of Object.values(files)) expect(checkFlowText(text).problems).toEqual([]);

    const service = await startTestService(files);
    try {
      const user = `posthog-${randomUUID()}`;
      expect(await eligibleSlugs(service, user)).toEqual(['billing-tour', 'sale-banner', 'welcome-tour', 'whats-new']);
      // The survey step is its own flow, which opens once the tour's step before it is done.
      for (const stepId of ['intro', 'filters', 'share'])
        await service.call('POST', '/v1/public/flowStates', {
          body: { userId: user, flowSlug: 'welcome-tour', stepId, actionType: 'COMPLETED_STEP' },
        });
      expect(await eligibleSlugs(service, user)).toContain('welcome-tour-survey');
      await service.call('POST', '/v1/public/flowStates', {
        body: { userId: user, flowSlug: 'billing-tour', stepId: 'plans', actionType: 'COMPLETED_STEP' },
      });
      expect(await eligibleSlugs(service, user)).toContain('billing-tour-survey');
    } finally {
      await service.close();
    }
  }, 60_000);

  it('writes a tour with its steps, buttons, start rules, schedule and translations', () => {
    const { files } = convert('welcome', [WELCOME_TOUR, BILLING_TOUR], 0);
    const tour = checkFlowText(files['welcome-tour.yaml']).definition!;
    expect(tour).toMatchObject({
      slug: 'welcome-tour',
      name: 'Welcome tour',
      type: 'TOUR',
      status: 'ACTIVE',
      schedule: { start: '2025-12-01T08:00:00Z', end: '2099-01-01T00:00:00Z' },
    });
    expect(tour.reshow).toBeUndefined();
    const data = tour.data as unknown as { startWhen: unknown; props: unknown; steps: Array<Record<string, unknown>> };
    expect(data.startWhen).toEqual({ page: '/reports', delay: '2s' });
    expect(data.props).toEqual({ spotlight: true });
    expect(data.steps).toEqual([
      {
        id: 'intro',
        title: 'Welcome to <em>Lumen</em>',
        subtitle: 'Dashboards your whole team reads.',
        primaryButton: { title: 'Show me around', action: 'flow.forward' },
        secondaryButton: { title: 'Not now', action: 'flow.skip' },
      },
      {
        id: 'filters',
        subtitle: 'Filter by <strong>team</strong>, then click the filters.',
        selector: '#report-filters',
        advanceOn: 'click',
      },
      {
        id: 'share',
        subtitle: 'Share it, or read <a href="https://example.com/guide">the guide</a>',
        selector: '.share-button',
        primaryButton: { title: 'Next', action: 'flow.forward' },
        secondaryButton: { title: 'Back', action: 'flow.back' },
      },
      {
        id: 'more',
        subtitle: 'That is all. There is more in the billing tour.',
        primaryButton: {
          title: 'Read the docs',
          action: 'flow.complete',
          uri: 'https://example.com/docs',
          target: '_blank',
        },
        secondaryButton: { title: 'Billing tour', action: 'flow.complete', uri: '#billing-tour' },
      },
    ]);
    expect(tour.translations).toEqual({
      fr: {
        steps: {
          intro: {
            title: 'Bienvenue sur <em>Lumen</em>',
            subtitle: 'Des tableaux pour toute l’équipe.',
            primaryButton: { title: 'Visite guidée' },
            secondaryButton: { title: 'Plus tard' },
          },
        },
      },
      'pt-BR': { steps: { intro: { title: 'Bem-vindo' } } },
    });
    // The survey step is linked in a comment where it stood, and its flow says where it comes from.
    expect(files['welcome-tour.yaml']).toMatch(
      /# PostHog's step 4 \(score\) here was a survey: it is the SURVEY flow welcome-tour-survey \(welcome-tour-survey\.yaml\), which opens once step share is done\.\n {4}- id: more/,
    );
    expect(files['welcome-tour-survey.yaml']).toContain('of product tour "Welcome tour"');

    // The tour a button starts opens on a click of that button's link, or of its own trigger.
    const billing = checkFlowText(files['billing-tour.yaml']).definition!;
    expect((billing.data as { startWhen?: unknown }).startWhen).toEqual({
      page: ['/billing', '/billing*'],
      click: "#billing-help, a[href='#billing-tour']",
    });
    expect(files['billing-tour.yaml']).toContain('# PostHog matched "https://app.example.com/billing" anywhere');
  });

  it('writes a survey step as a SURVEY flow of its own, by question type', () => {
    const { files } = convert('surveys', [WELCOME_TOUR, BILLING_TOUR], 0);
    const nps = checkFlowText(files['welcome-tour-survey.yaml']).definition!;
    expect(nps).toMatchObject({
      slug: 'welcome-tour-survey',
      name: 'Welcome tour - Step 4 Survey',
      type: 'SURVEY',
      targetingLogic: "flows['welcome-tour'].steps['share'].status == 'COMPLETED_STEP'",
      schedule: { start: '2025-12-01T08:00:00Z', end: '2099-01-01T00:00:00Z' },
      translations: {
        fr: { steps: { score: { title: 'Recommanderiez-vous Lumen ?', props: { lowLabel: 'Peu probable' } } } },
      },
    });
    expect(nps.data.steps).toEqual([
      {
        id: 'score',
        title: 'How likely are you to recommend Lumen?',
        type: 'nps',
        props: { lowLabel: 'Not likely', highLabel: 'Very likely' },
        primaryButton: { title: 'Send' },
      },
    ]);
    expect(checkFlowText(files['billing-tour-survey.yaml']).definition!.data.steps).toEqual([
      { id: 'why', title: 'What brought you to billing?', type: 'text' },
    ]);
    // A five-face rating is a rating of five; three faces, three.
    const faces = (scale: number) => {
      const tour = {
        ...WHATS_NEW,
        id: `faces-${scale}`,
        name: `Faces ${scale}`,
        steps: [
          ...WHATS_NEW.steps,
          {
            id: 'mood',
            type: 'survey',
            progressionTrigger: 'button',
            content: null,
            survey: { type: 'rating', questionText: 'How was it?', display: 'emoji', scale },
          },
        ],
      };
      const [, survey] = convertPostHogTours([tour]);
      return checkFlowText(survey.text).definition!.data.steps[0];
    };
    expect(faces(5)).toMatchObject({ type: 'rating', props: { max: 5 } });
    expect(faces(3)).toMatchObject({ type: 'rating', props: { max: 3 } });
  });

  it('writes an announcement and a banner, with display_frequency as reshow or none', () => {
    const { files } = convert('types', [WHATS_NEW, SALE_BANNER], 0);
    const news = checkFlowText(files['whats-new.yaml']).definition!;
    expect(news).toMatchObject({ type: 'ANNOUNCEMENT', schedule: { start: '2025-11-01T00:00:00Z' } });
    expect(news.reshow).toBeUndefined();
    expect(news.data).toMatchObject({
      startWhen: { page: '!/settings' },
      steps: [
        {
          id: 'dark',
          title: 'Dark mode',
          subtitle: 'It follows your system.',
          imageUri: 'https://cdn.example.com/dark.png',
          imageAlt: 'Dark',
          primaryButton: { title: 'Got it', action: 'flow.skip' },
        },
      ],
    });
    const banner = checkFlowText(files['sale-banner.yaml']).definition!;
    expect(banner).toMatchObject({ type: 'BANNER' });
    // "always" shows it on every visit: here it cannot be dismissed, as PostHog drew it without a close button.
    expect(banner.data).toMatchObject({
      props: { dismissible: false },
      steps: [
        {
          id: 'sale',
          subtitle: '<strong>20% off</strong> Pro this week',
          primaryButton: { title: 'Learn more', action: 'flow.complete', uri: 'https://example.com/pricing' },
        },
      ],
    });
    expect(files['sale-banner.yaml']).toContain('<onboarding-banner flow="sale-banner">');
    // "always" on a tour: a dismissed one comes back.
    const [always] = convertPostHogTours([{ ...WHATS_NEW, display_frequency: 'always' }]);
    expect(checkFlowText(always.text).definition!.reshow).toEqual({ afterMs: 60_000, times: 1000 });
  });

  it('writes what has no equivalent as a # TODO and prints it with file and line', () => {
    const tour = {
      ...WHATS_NEW,
      id: 'tour-flagged',
      name: 'Flagged',
      linked_flag_key: 'new-settings',
      conditions: {
        url: '^https://app\\.example\\.com/(a|b)$',
        urlMatchType: 'regex',
        linkedFlagVariant: 'test',
        deviceTypes: ['Mobile'],
        events: { values: [{ name: 'settings_opened' }] },
        cancelEvents: { values: [{ name: 'settings_closed' }] },
      },
      steps: [
        {
          id: 'one',
          type: 'modal',
          progressionTrigger: 'button',
          content: null,
          contentHtml:
            '<p>Watch <span style="color: red">this</span>:</p><iframe src="https://www.youtube.com/embed/abc"></iframe>',
        },
      ],
    };
    const { out, files, printed, code } = convert('todo', { results: [tour] }, 1);
    expect(code).toBe(1);
    const file = join(out, 'flagged.yaml');
    const lines = files['flagged.yaml'].split('\n');
    const lineOf = (start: string) => lines.findIndex((line) => line.trimStart().startsWith(start)) + 1;
    expect(printed).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${escape(file)}:${lineOf('targetingLogic:')}:1  targetingLogic: PostHog showed this tour only to users with the feature flag "new-settings", variant "test"`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^${escape(file)}:${lineOf('targetingLogic:')}:1  targetingLogic: PostHog showed this tour only on Mobile devices`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^${escape(file)}:${lineOf('data:')}:1  data: PostHog showed this tour where the address matches .* \\(regex\\)`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^${escape(file)}:${lineOf('data:')}:1  data: PostHog showed this tour after the event "settings_opened"`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^${escape(file)}:${lineOf('data:')}:1  data: PostHog cancelled a waiting start of this tour on the event "settings_closed"`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^${escape(file)}:${lineOf('subtitle:')}:7  data\\.steps\\[0\\]\\.subtitle: dropped from PostHog's HTML, with what it showed: <iframe src="https://www\\.youtube\\.com/embed/abc">`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^${escape(file)}:${lineOf('subtitle:')}:7  warning: data\\.steps\\[0\\]\\.subtitle: dropped from PostHog's HTML, its text kept: <span>$`,
        ),
      ),
      `1 flow file written to ${out}: 6 problems in 1 of them, 1 warning`,
    ]);
    // Each is a # TODO above its line; nobody gets a flow whose audience a flag decided, and the file still loads.
    expect(lines[lineOf('targetingLogic:') - 1]).toBe('targetingLogic: "false"');
    expect(lines.filter((line) => line.trimStart().startsWith('# TODO:'))).toHaveLength(6);
    expect(lines[lineOf('subtitle:') - 1]).toBe('      subtitle: "Watch this:"');
    expect(run('check', out).code).toBe(0);
  });

  it('reads the management API shape: content, archived, a draft, targeting filters in CEL', async () => {
    const managed = (id: string, name: string, extra: Record<string, unknown>) => ({
      id,
      name,
      description: '',
      internal_targeting_flag: null,
      linked_flag: null,
      targeting_flag_filters: null,
      content: {
        type: 'tour',
        steps: [{ id: 'a', type: 'modal', progressionTrigger: 'button', content: null, contentHtml: '<p>Hello</p>' }],
        conditions: { url: '/home', urlMatchType: 'exact' },
        appearance: { showOverlay: false },
        displayFrequency: 'always',
      },
      draft_content: null,
      has_draft: false,
      auto_launch: true,
      start_date: '2025-12-01T00:00:00Z',
      end_date: null,
      created_at: '2025-11-30T00:00:00Z',
      updated_at: '2025-11-30T00:00:00Z',
      archived: false,
      ...extra,
    });
    const list = {
      count: 4,
      next: null,
      previous: null,
      results: [
        managed('m1', 'Pro users', {
          targeting_flag_filters: {
            groups: [
              { properties: [{ key: 'plan', value: ['pro', 'team'], operator: 'exact', type: 'person' }] },
              { properties: [{ key: 'email', value: '@acme.com', operator: 'icontains', type: 'person' }] },
            ],
          },
        }),
        managed('m2', 'Old', { archived: true }),
        managed('m3', 'Unlaunched', { start_date: null }),
        managed('m4', 'Announcement', {
          content: {
            type: 'announcement',
            steps: [{ id: 'x', type: 'banner', progressionTrigger: 'button', content: null, contentHtml: '<p>Hi</p>' }],
          },
        }),
      ],
    };
    const { files } = convert('managed', list, 0);
    const pro = checkFlowText(files['pro-users.yaml']).definition!;
    expect(pro).toMatchObject({
      type: 'TOUR',
      status: 'ACTIVE',
      targetingLogic:
        "('plan' in user.properties && user.properties['plan'] in ['pro', 'team']) || ('email' in user.properties && string(user.properties['email']).lowerAscii().contains('@acme.com'))",
      reshow: { afterMs: 60_000, times: 1000 },
    });
    expect(pro.data).toMatchObject({ startWhen: { page: '/home' }, steps: [{ id: 'a', subtitle: 'Hello' }] });
    expect((pro.data as { props?: unknown }).props).toBeUndefined();
    expect(checkFlowText(files['old.yaml']).definition!.status).toBe('ARCHIVED');
    expect(checkFlowText(files['unlaunched.yaml']).definition!.status).toBe('DRAFT');
    // An announcement whose step is a banner is a banner, as PostHog's API tells its SDK.
    expect(checkFlowText(files['announcement.yaml']).definition!.type).toBe('BANNER');

    const service = await startTestService({ 'pro-users.yaml': files['pro-users.yaml'] });
    try {
      const user = (properties: Record<string, unknown>) => {
        const userId = `posthog-${randomUUID()}`;
        return service.call('POST', '/v1/public/users', { body: { userId, properties } }).then(() => userId);
      };
      expect(await eligibleSlugs(service, await user({ plan: 'team' }))).toEqual(['pro-users']);
      expect(await eligibleSlugs(service, await user({ email: 'Ada@ACME.com' }))).toEqual(['pro-users']);
      expect(await eligibleSlugs(service, await user({ plan: 'free' }))).toEqual([]);
    } finally {
      await service.close();
    }
  }, 60_000);

  it('writes filters it cannot read as "false" under a # TODO', () => {
    expect(postHogFiltersToCel({ groups: [{ properties: [], rollout_percentage: 50 }] })).toEqual({
      problem: 'a rollout of 50%',
    });
    expect(postHogFiltersToCel({ groups: [{ properties: [{ key: 'c', value: 4, type: 'cohort' }] }] })).toEqual({
      problem: 'a filter on "cohort" "c", not a person property',
    });
    expect(postHogFiltersToCel({ groups: [{ properties: [{ key: 'seats', value: '5', operator: 'gte' }] }] })).toEqual({
      cel: "'seats' in user.properties && double(user.properties['seats']) >= 5.0",
    });
  });

  it('reads one tour, and standard input with -', () => {
    const one = convert('one', WHATS_NEW, 0);
    expect(Object.keys(one.files)).toEqual(['whats-new.yaml']);
    const out = join(dir, 'stdin');
    const result = spawnSync(process.execPath, ['dist/flows.mjs', 'from-posthog', '-', '--out', out], {
      input: JSON.stringify({ results: [SALE_BANNER] }),
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`1 flow file written to ${out}: no problems\n`);
    expect(readdirSync(out)).toEqual(['sale-banner.yaml']);
  });

  it('exits 2 on bad usage and on input that is not PostHog tours', () => {
    const write = (name: string, text: string) => {
      const file = join(dir, name);
      writeFileSync(file, text);
      return file;
    };
    expect(run('from-posthog', write('not.json', 'slug: yaml'), '--out', join(dir, 'x'))).toMatchObject({
      code: 2,
      err: [expect.stringMatching(/not\.json: not JSON: /)],
    });
    // Frigade's list of flows is not PostHog's.
    expect(
      run('from-posthog', write('frigade.json', '{"data":[{"slug":"a"}]}'), '--out', join(dir, 'x')),
    ).toMatchObject({
      code: 2,
      err: [expect.stringContaining("no steps: expected PostHog's product tours")],
    });
    expect(run('from-posthog', write('empty.json', '{"results":[]}'), '--out', join(dir, 'x'))).toMatchObject({
      code: 2,
      err: [expect.stringContaining('no tours')],
    });
    expect(
      run('from-posthog', write('nameless.json', '[{"id":"a","steps":[]}]'), '--out', join(dir, 'x')),
    ).toMatchObject({
      code: 2,
      err: [expect.stringContaining('tour 0: no id or name')],
    });
    expect(run('from-posthog', join(dir, 'frigade.json')).code).toBe(2);
    expect(run('from-posthog').code).toBe(2);
  });

  it('replaces files already there only with --force', () => {
    const input = join(dir, 'again.json');
    writeFileSync(input, JSON.stringify([WHATS_NEW]));
    const out = join(dir, 'again');
    expect(run('from-posthog', input, '--out', out).code).toBe(0);
    expect(run('from-posthog', input, '--out', out).code).toBe(2);
    expect(run('from-posthog', input, '--out', out, '--force').code).toBe(0);
  });

  it('is in the usage text', () => {
    const { code, out } = run('--help');
    expect(code).toBe(0);
    expect(out[0]).toContain('onboarding-flows from-posthog <tours.json | -> --out <folder> [--force]');
  });
});

describe('docs/posthog.md', () => {
  it('shows what from-posthog writes for its example, word for word', () => {
    const doc = readFileSync(new URL('../../docs/posthog.md', import.meta.url), 'utf8');
    const example = doc.split(/^## /m).find((part) => part.startsWith('An example\n'))!;
    const [json] = [...example.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]);
    const yaml = [...example.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]);
    const converted = convertPostHogTours(JSON.parse(json));
    expect(converted.map((flow) => flow.text)).toEqual(yaml);
    expect(converted.flatMap((flow) => [...flow.problems, ...flow.warnings])).toEqual([]);
  });
});

describe("PostHog's step HTML in the rich-text subset", () => {
  it('keeps the tags flow text draws, and no others', () => {
    // Read from the module's text: importing it loads Lit, which announces its dev mode.
    const source = readFileSync(new URL('../../src/components/shared/rich-text.ts', import.meta.url), 'utf8');
    const declared = /export const RICH_TAGS = \[([^\]]*)\]/.exec(source)![1];
    expect([...KEPT_TAGS].sort()).toEqual([...declared.matchAll(/'(\w+)'/g)].map((match) => match[1]).sort());
  });

  it('takes a leading heading as the title, the first image as the media, and lists what it drops', () => {
    expect(
      postHogContent(
        '<h3>Title <b>here</b></h3><p class="x">One <mark>two</mark></p><h4>Later</h4><ul><li>a</li></ul>' +
          '<img src="/a.png" alt="A"><img src="/b.png"><script>alert(1)</script><a href="javascript:alert(1)" target="_blank">x</a>',
      ),
    ).toEqual({
      title: 'Title <b>here</b>',
      text: '<p>One two</p><p><b>Later</b></p><ul><li>a</li></ul><a>x</a>',
      image: { uri: '/a.png', alt: 'A' },
      dropped: [
        'class="…" on <p>',
        '<mark>',
        'the link "javascript:alert(1)" (not http, https, mailto, tel, relative or #fragment)',
      ],
      lost: ['<img src="/b.png">', '<script> and its content'],
    });
    expect(postHogContent('<p>Just text &amp; more</p>')).toEqual({
      text: 'Just text &amp; more',
      dropped: [],
      lost: [],
    });
    expect(postHogContent('<video src="https://cdn.example.com/a.mp4"></video><p>Watch</p>')).toMatchObject({
      video: 'https://cdn.example.com/a.mp4',
      text: 'Watch',
      lost: [],
    });
  });

  it("draws the editor's JSON as posthog-js does, escaping its text", () => {
    expect(
      tipTapToHtml({
        type: 'doc',
        content: [
          { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Hi <you>' }] },
          {
            type: 'paragraph',
            content: [{ type: 'text', text: 'bold', marks: [{ type: 'bold' }] }, { type: 'hardBreak' }],
          },
        ],
      }),
    ).toBe('<h2>Hi &lt;you&gt;</h2><p><strong>bold</strong><br></p>');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
