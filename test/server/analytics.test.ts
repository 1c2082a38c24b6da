// The analytics API over loopback HTTP: flow counts, step funnels by day, versions, locales, survey answers, answer pages and CSV, deletes, migrations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ActionType,
  AnalyticsFlowResponse,
  AnalyticsFlowsResponse,
  AnalyticsResponsesResponse,
  SurveyStepReport,
} from '../../src/api/wire.js';
import { ROLLUPS_FROM_FACTS_SQL } from '../../server/analytics/progress.js';
import { TARGET_MISSING_FROM_FACTS_SQL } from '../../server/analytics/target-missing.js';
import { openDatabase } from '../../server/storage/database.js';
import { migrate } from '../../server/storage/schema.js';
import type { Database } from '../../server/storage/store.js';
import {
  checklistYaml,
  freshPostgresDatabase,
  PRIVATE_KEY,
  PUBLIC_KEY,
  startTestService,
  type TestService,
} from '../support/service.js';

const DAY = 86_400_000;
/** Midnight UTC today, and a day `n` days before it. */
const today = Math.floor(Date.now() / DAY) * DAY;
const daysAgo = (n: number, seconds = 0) => new Date(today - n * DAY + 10 * 3600_000 + seconds * 1000).toISOString();
const dateOf = (n: number) => new Date(today - n * DAY).toISOString().slice(0, 10);

const surveyYaml = (slug: string) => `
slug: ${slug}
name: Happiness survey
type: SURVEY
data:
  steps:
    - id: score
      title: How likely are you to recommend us?
    - id: stars
      type: rating
      title: Rate the setup
      props: { max: 5 }
    - id: reason
      type: single
      title: What brought you here?
      options: [{ value: ads, label: An ad }, { value: friend, label: A friend }]
    - id: why
      title: Why?
`;

/** The survey in French (and French as spoken in Canada), German and Portuguese: the translations a run is counted under. */
const translatedSurveyYaml = (slug: string) => `${surveyYaml(slug)}translations:
  fr: { steps: { score: { title: Recommanderiez-vous ce produit ? } } }
  fr-CA: { steps: { why: { title: Pourquoi donc ? } } }
  de: { steps: { score: { title: Würden Sie uns empfehlen? } } }
  pt: { steps: { score: { title: Você nos recomendaria? } } }
`;

/** A survey whose steps are given as fields, in Frigade's shape (its NPS_SURVEY, with more kinds of question). */
const fieldsSurveyYaml = (slug: string) => `
slug: ${slug}
name: Frigade survey
type: NPS_SURVEY
data:
  props: { positiveLabel: Extremely likely }
  steps:
    - id: score
      title: How likely are you to recommend us?
      fields:
        - { id: nps-score, type: nps }
    - id: reason
      title: What brought you here?
      fields:
        - { id: detail, type: text, label: Tell us more }
        - { id: channel, type: radio, label: Where did you hear of us?, options: [{ value: ads, label: An ad }, { value: friend, label: A friend }] }
    - id: tools
      title: What do you use?
      fields:
        - { id: tools, type: select, multiple: true, options: [{ value: jira, label: Jira }, { value: linear, label: Linear }] }
    - id: feedback
      title: What could we do better?
      fields:
        - { id: feedback, type: textarea, placeholder: Your feedback }
    - id: sign
      title: Sign here
      fields:
        - { id: signature, type: signature }
`;

const formYaml = (slug: string) => `
slug: ${slug}
name: Profile form
type: FORM
data:
  steps:
    - id: profile
      title: About you
      fields:
        - { id: name, type: text, label: Name }
        - { id: role, type: select, label: Role, options: [{ value: dev, label: Developer }] }
    - id: team
      title: Your team
      fields:
        - { id: size, type: number, label: Size }
`;

const tourYaml = (slug: string, type: 'TOUR' | 'HINT' | 'TOOLTIP' = 'TOUR', version = '') => `
slug: ${slug}
name: Targets ${type}${version}
type: ${type}
data:
  steps:
    - id: nav
      title: The menu
      selector: "#nav"
${
  type === 'TOOLTIP'
    ? ''
    : `    - id: save
      title: Save it
      selector: "my-editor >>> .save"
      page: /projects/:id
`
}`;

let service: TestService;

/** A database of its own (in memory, or on the PostgreSQL server of the run) brought up to an older schema version. */
async function olderDatabase(schemaUpTo: number): Promise<{ db: Database; close(): Promise<void> }> {
  const server = await freshPostgresDatabase();
  const db = await openDatabase(server?.url ?? 'memory', { schemaUpTo, cacheUsers: 0, poolSize: 2 });
  return {
    db,
    async close() {
      await db.close();
      await server?.drop();
    },
  };
}

/** Copies one flow's rows of `tables` from the service's database into `target`, whose older schema may lack columns (they are left out). */
async function copyRows(target: Database, slug: string, tables: string[]): Promise<void> {
  for (const table of tables) {
    const where =
      table === 'users'
        ? 'id IN (SELECT user_id FROM flow_responses WHERE flow_slug = $1)'
        : table === 'flows'
          ? 'slug = $1'
          : 'flow_slug = $1';
    const [found] = await service.db.query<{ rows: unknown }>(
      `SELECT json_agg(t) AS rows FROM ${table} AS t WHERE ${where}`,
      [slug],
    );
    if (!found?.rows) continue;
    const json = typeof found.rows === 'string' ? found.rows : JSON.stringify(found.rows);
    await target.query(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`, [json]);
  }
}

beforeAll(async () => {
  service = await startTestService({});
});
afterAll(() => service?.close());

let flowCounter = 0;
/** A flow of its own for one test, so the counts of one test never mix with another's. */
async function newFlow(kind: 'checklist' | 'survey' | 'translated-survey' | 'form' | 'tour'): Promise<string> {
  const slug = `${kind}-${++flowCounter}`;
  const yaml =
    kind === 'checklist'
      ? checklistYaml(slug)
      : kind === 'survey'
        ? surveyYaml(slug)
        : kind === 'translated-survey'
          ? translatedSurveyYaml(slug)
          : kind === 'form'
            ? formYaml(slug)
            : tourYaml(slug);
  await service.writeFlow(`${slug}.yaml`, yaml);
  return slug;
}

async function act(
  userId: string,
  flowSlug: string,
  actionType: ActionType,
  stepId = '',
  createdAt?: string,
  data?: unknown,
  url?: string,
  locale?: string,
): Promise<void> {
  const response = await service.call(
    'POST',
    `/v1/public/flowStates${locale === undefined ? '' : `?locale=${encodeURIComponent(locale)}`}`,
    {
      body: {
        userId,
        flowSlug,
        stepId,
        actionType,
        ...(createdAt ? { createdAt } : {}),
        ...(data !== undefined ? { data } : {}),
        ...(url ? { context: { url } } : {}),
      },
    },
  );
  expect(response.status, response.text).toBe(201);
}

/** The script's report of a step whose target is not on the page, through the users upsert. */
const targetMissing = (flowSlug: string, stepId: string, page = '/projects/7') => ({
  event: 'onboarding:target-missing',
  properties: { flowSlug, stepId, selector: '#nav', page },
});

async function upsert(userId: string, body: Record<string, unknown>): Promise<void> {
  const response = await service.call('POST', '/v1/public/users', { body: { userId, ...body } });
  expect(response.status, response.text).toBe(201);
}

async function get<T>(path: string, headers: Record<string, string> = {}): Promise<T> {
  const response = await service.call('GET', path, { key: PRIVATE_KEY, headers });
  expect(response.status, response.text).toBe(200);
  return response.body as T;
}

const window = `from=${dateOf(10)}&to=${dateOf(-1)}`;

/** The rollups and answer counts as kept at write time, and as the facts and the log say they should be. */
async function rollups(answersOf: string): Promise<{ kept: unknown[]; expected: unknown[] }> {
  const order = 'ORDER BY 1, 2, 3, 4';
  const nonZero = 'WHERE started <> 0 OR completed <> 0 OR skipped <> 0 OR reached <> 0 OR dropped <> 0';
  const kept = await service.db.query(
    `SELECT flow_slug, to_char(day, 'YYYY-MM-DD') AS day, flow_version, step_id, locale, started::int, completed::int, skipped::int, reached::int, dropped::int
     FROM analytics_daily ${nonZero} ${order}, 5`,
  );
  const expected = await service.db.query(
    `SELECT flow_slug, to_char(day, 'YYYY-MM-DD') AS day, flow_version, step_id, locale, started, completed, skipped, reached, dropped
     FROM (${ROLLUPS_FROM_FACTS_SQL.daily}) AS r ${nonZero} ${order}, 5`,
  );
  const keptDurations = await service.db.query(
    `SELECT flow_slug, to_char(day, 'YYYY-MM-DD'), flow_version, bucket, locale, count::int FROM analytics_durations WHERE count <> 0 ${order}, 5`,
  );
  const expectedDurations = await service.db.query(
    `SELECT flow_slug, to_char(day, 'YYYY-MM-DD'), flow_version, bucket, locale, count FROM (${ROLLUPS_FROM_FACTS_SQL.durations}) AS d ${order}, 5`,
  );
  // One flow's answers: another test writes answers straight into the log.
  const keptAnswers = await service.db.query(
    `SELECT flow_slug, to_char(day, 'YYYY-MM-DD'), flow_version, step_id, value, locale, count::int FROM analytics_answers WHERE count <> 0 AND flow_slug = $1 ORDER BY 1, 2, 3, 4, 5, 6`,
    [answersOf],
  );
  const expectedAnswers = await service.db.query(
    `SELECT flow_slug, to_char(day, 'YYYY-MM-DD'), flow_version, step_id, value, locale, count FROM (${ROLLUPS_FROM_FACTS_SQL.answers}) AS a WHERE flow_slug = $1 ORDER BY 1, 2, 3, 4, 5, 6`,
    [answersOf],
  );
  const keptMissing = await service.db.query(
    `SELECT flow_slug, to_char(day, 'YYYY-MM-DD'), flow_version, step_id, users::int FROM analytics_target_missing WHERE users <> 0 ${order}`,
  );
  const expectedMissing = await service.db.query(
    `SELECT flow_slug, to_char(day, 'YYYY-MM-DD'), flow_version, step_id, users FROM (${TARGET_MISSING_FROM_FACTS_SQL}) AS m ${order}`,
  );
  return {
    kept: [...kept, ...keptDurations, ...keptAnswers, ...keptMissing],
    expected: [...expected, ...expectedDurations, ...expectedAnswers, ...expectedMissing],
  };
}

describe('GET /v1/analytics/flows', () => {
  it('counts each user once per flow: started, completed, skipped, the completion rate and the median time to complete', async () => {
    const slug = await newFlow('checklist');
    // a: done in 30 s; b: done in 90 s; c: dismissed; d: done in 60 s, then restarted and done again (still once).
    for (const [user, seconds] of [
      ['a', 30],
      ['b', 90],
      ['d', 60],
    ] as const) {
      await act(`${slug}-${user}`, slug, 'STARTED_FLOW', '', daysAgo(3));
      await act(`${slug}-${user}`, slug, 'COMPLETED_STEP', 'one', daysAgo(3, seconds / 3));
      await act(`${slug}-${user}`, slug, 'COMPLETED_STEP', 'two', daysAgo(3, (2 * seconds) / 3));
      await act(`${slug}-${user}`, slug, 'COMPLETED_STEP', 'three', daysAgo(3, seconds));
    }
    await act(`${slug}-c`, slug, 'STARTED_FLOW', '', daysAgo(3));
    await act(`${slug}-c`, slug, 'SKIPPED_FLOW', '', daysAgo(3, 5));
    await act(`${slug}-d`, slug, 'NOT_STARTED_FLOW', '', daysAgo(2));
    await act(`${slug}-d`, slug, 'COMPLETED_FLOW', '', daysAgo(2, 1));

    const report = await get<AnalyticsFlowsResponse>(`/v1/analytics/flows?${window}`);
    const row = report.flows.find((flow) => flow.slug === slug)!;
    expect(row).toMatchObject({
      name: 'Set up',
      type: 'CHECKLIST',
      status: 'ACTIVE',
      version: 1,
      started: 4,
      completed: 3,
      skipped: 1,
      completionRate: 0.75,
    });
    // The median of 30, 60 and 90 s, read from buckets about 19 % wide.
    expect(row.medianSecondsToComplete).toBeGreaterThan(60 / 1.2);
    expect(row.medianSecondsToComplete).toBeLessThan(60 * 1.2);
    expect(report).toMatchObject({
      from: `${dateOf(10)}T00:00:00.000Z`,
      to: `${dateOf(-1)}T00:00:00.000Z`,
      version: null,
    });
  });

  it('lists every served flow, with zeros for a flow nobody started', async () => {
    const slug = await newFlow('checklist');
    const report = await get<AnalyticsFlowsResponse>('/v1/analytics/flows');
    expect(report.flows.find((flow) => flow.slug === slug)).toMatchObject({
      started: 0,
      completed: 0,
      skipped: 0,
      completionRate: null,
      medianSecondsToComplete: null,
    });
  });

  it('keeps counting a flow whose file was removed', async () => {
    const slug = await newFlow('checklist');
    await act(`${slug}-a`, slug, 'STARTED_FLOW', '', daysAgo(1));
    await service.removeFlow(`${slug}.yaml`);
    const report = await get<AnalyticsFlowsResponse>(`/v1/analytics/flows?${window}`);
    expect(report.flows.find((flow) => flow.slug === slug)).toMatchObject({ name: 'Set up', status: null, started: 1 });
    const detail = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}`);
    expect(detail.flow).toMatchObject({ status: null, started: 1 });
    expect(detail.steps.map((step) => step.stepId)).toEqual(['one', 'two', 'three']);
  });

  it('counts only the users who started on the version asked for, and answers given on it', async () => {
    const slug = await newFlow('survey');
    await act(`${slug}-old`, slug, 'COMPLETED_STEP', 'score', daysAgo(1), { value: 3 });
    await service.writeFlow(`${slug}.yaml`, surveyYaml(slug).replace('Why?', 'Why, in a few words?'));
    await act(`${slug}-new`, slug, 'COMPLETED_STEP', 'score', daysAgo(1), { value: 10 });
    await act(`${slug}-new2`, slug, 'COMPLETED_STEP', 'score', daysAgo(1), { value: 9 });

    const all = await get<AnalyticsFlowsResponse>(`/v1/analytics/flows?${window}`);
    const v1 = await get<AnalyticsFlowsResponse>(`/v1/analytics/flows?${window}&version=1`);
    const v2 = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}&version=2`);
    expect(all.flows.find((f) => f.slug === slug)!.started).toBe(3);
    expect(v1.flows.find((f) => f.slug === slug)!.started).toBe(1);
    expect(v2.flow.started).toBe(2);
    expect(v2.version).toBe(2);
    const nps = v2.survey!.steps.find((s) => s.kind === 'nps') as Extract<SurveyStepReport, { kind: 'nps' }>;
    expect(nps).toMatchObject({ responses: 2, promoters: 2, score: 100 });
    expect(v2.survey!.steps.find((s) => s.stepId === 'why')!.title).toBe('Why, in a few words?');
    const answers = await get<AnalyticsResponsesResponse>(`/v1/analytics/flows/${slug}/responses?${window}&version=1`);
    expect(answers.data.map((row) => [row.userId, row.value, row.version])).toEqual([[`${slug}-old`, 3, 1]]);
    const missing = await service.call('GET', `/v1/analytics/flows/${slug}?version=7`, { key: PRIVATE_KEY });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: 404, field: 'version' });
  });
});

describe('GET /v1/analytics/flows/{slug}', () => {
  it('reports the step funnel: users who reached each step, completed it, skipped it, and dropped there', async () => {
    const slug = await newFlow('checklist');
    // a finishes; b completes one and stops at two; c skips two and stops at three; d dismisses the flow at one.
    await act(`${slug}-a`, slug, 'COMPLETED_STEP', 'one', daysAgo(2));
    await act(`${slug}-a`, slug, 'COMPLETED_STEP', 'two', daysAgo(2, 1));
    await act(`${slug}-a`, slug, 'COMPLETED_STEP', 'three', daysAgo(2, 2));
    await act(`${slug}-b`, slug, 'COMPLETED_STEP', 'one', daysAgo(2));
    await act(`${slug}-c`, slug, 'COMPLETED_STEP', 'one', daysAgo(1));
    await act(`${slug}-c`, slug, 'SKIPPED_STEP', 'two', daysAgo(1, 1));
    await act(`${slug}-d`, slug, 'STARTED_FLOW', '', daysAgo(1));
    await act(`${slug}-d`, slug, 'SKIPPED_FLOW', '', daysAgo(1, 1));

    const report = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}`);
    expect(report.flow).toMatchObject({ slug, started: 4, completed: 1, skipped: 1, completionRate: 0.25 });
    expect(report.steps).toEqual([
      { stepId: 'one', title: 'One', reached: 4, completed: 3, skipped: 0, dropped: 1, targetMissing: 0 },
      { stepId: 'two', title: 'Two', reached: 3, completed: 1, skipped: 1, dropped: 1, targetMissing: 0 },
      { stepId: 'three', title: 'Three', reached: 2, completed: 1, skipped: 0, dropped: 1, targetMissing: 0 },
    ]);
    expect(report.survey).toBeUndefined();
  });

  it('gives the same counts for every day of the window, by the day each user first started', async () => {
    const slug = await newFlow('checklist');
    await act(`${slug}-a`, slug, 'COMPLETED_STEP', 'one', daysAgo(3));
    await act(`${slug}-b`, slug, 'COMPLETED_STEP', 'one', daysAgo(1));
    // b's later completion counts on the day b started.
    await act(`${slug}-b`, slug, 'COMPLETED_FLOW', '', daysAgo(0));

    const report = await get<AnalyticsFlowResponse>(
      `/v1/analytics/flows/${slug}?from=${daysAgo(4)}&to=${dateOf(0)}T05:00:00Z`,
    );
    expect(report.from).toBe(`${dateOf(4)}T00:00:00.000Z`);
    expect(report.to).toBe(`${dateOf(-1)}T00:00:00.000Z`);
    expect(report.days.map((day) => day.date)).toEqual([dateOf(4), dateOf(3), dateOf(2), dateOf(1), dateOf(0)]);
    expect(report.days.map((day) => [day.started, day.completed])).toEqual([
      [0, 0],
      [1, 0],
      [0, 0],
      [1, 1],
      [0, 0],
    ]);
    expect(report.days[1].steps).toEqual([
      { stepId: 'one', reached: 1, completed: 1, skipped: 0, dropped: 0, targetMissing: 0 },
      { stepId: 'two', reached: 1, completed: 0, skipped: 0, dropped: 1, targetMissing: 0 },
    ]);
    expect(report.days[3].steps.find((step) => step.stepId === 'two')).toEqual({
      stepId: 'two',
      reached: 1,
      completed: 0,
      skipped: 0,
      dropped: 0,
      targetMissing: 0,
    });
  });

  it('reports a survey: the NPS score and distribution, a rating, a choice, and the latest comments', async () => {
    const slug = await newFlow('survey');
    const scores = [10, 9, 9, 8, 7, 6, 3, 0];
    for (const [i, value] of scores.entries())
      await act(`${slug}-${i}`, slug, 'COMPLETED_STEP', 'score', daysAgo(1, i), { value });
    await act(`${slug}-0`, slug, 'COMPLETED_STEP', 'stars', daysAgo(1, 20), { value: 5 });
    await act(`${slug}-1`, slug, 'COMPLETED_STEP', 'stars', daysAgo(1, 20), { value: 2 });
    await act(`${slug}-0`, slug, 'COMPLETED_STEP', 'reason', daysAgo(1, 30), { value: 'friend' });
    await act(
      `${slug}-0`,
      slug,
      'COMPLETED_STEP',
      'why',
      daysAgo(1, 40),
      { value: 'Setup took five minutes' },
      'https://app.example/home',
    );
    await act(`${slug}-6`, slug, 'COMPLETED_STEP', 'reason', daysAgo(1, 31), { value: 'ads' });
    await act(`${slug}-6`, slug, 'COMPLETED_STEP', 'why', daysAgo(1, 41), { value: 'The export is slow' });

    const report = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}`);
    expect(report.survey!.steps).toEqual([
      {
        kind: 'nps',
        stepId: 'score',
        title: 'How likely are you to recommend us?',
        responses: 8,
        promoters: 3,
        passives: 2,
        detractors: 3,
        score: 0,
        distribution: [1, 0, 0, 1, 0, 0, 1, 1, 1, 2, 1],
      },
      {
        kind: 'rating',
        stepId: 'stars',
        title: 'Rate the setup',
        responses: 2,
        average: 3.5,
        distribution: [0, 1, 0, 0, 1],
      },
      {
        kind: 'single',
        stepId: 'reason',
        title: 'What brought you here?',
        responses: 2,
        options: [
          { value: 'ads', label: 'An ad', count: 1 },
          { value: 'friend', label: 'A friend', count: 1 },
        ],
      },
      {
        kind: 'text',
        stepId: 'why',
        title: 'Why?',
        responses: 2,
        comments: [
          { userId: `${slug}-6`, value: 'The export is slow', createdAt: daysAgo(1, 41), url: null },
          {
            userId: `${slug}-0`,
            value: 'Setup took five minutes',
            createdAt: daysAgo(1, 40),
            url: 'https://app.example/home',
          },
        ],
      },
    ]);
  });

  it("reports a survey given as fields like one given by type: its nps field from numbers and numeric strings, its first choice field, its text fields' comments", async () => {
    const slug = `fields-survey-${++flowCounter}`;
    await service.writeFlow(`${slug}.yaml`, fieldsSurveyYaml(slug));
    // Our elements send a score as a number, Frigade's components as a string: both count, and nothing else does.
    const scores: unknown[] = [10, '9', 9, '8', 7, '6', 3, '0'];
    for (const [i, score] of scores.entries())
      await act(`${slug}-${i}`, slug, 'COMPLETED_STEP', 'score', daysAgo(1, i), { 'nps-score': score });
    await act(`${slug}-8`, slug, 'COMPLETED_STEP', 'score', daysAgo(1, 8), { 'nps-score': '' });
    await act(`${slug}-0`, slug, 'COMPLETED_STEP', 'reason', daysAgo(1, 20), { detail: 'A talk', channel: 'friend' });
    await act(`${slug}-1`, slug, 'COMPLETED_STEP', 'reason', daysAgo(1, 21), { detail: '', channel: 'ads' });
    await act(`${slug}-2`, slug, 'COMPLETED_STEP', 'reason', daysAgo(1, 22), { detail: '', channel: 'friend' });
    await act(`${slug}-0`, slug, 'COMPLETED_STEP', 'tools', daysAgo(1, 30), { tools: ['jira', 'linear'] });
    await act(`${slug}-1`, slug, 'COMPLETED_STEP', 'tools', daysAgo(1, 31), { tools: ['linear'] });
    await act(
      `${slug}-0`,
      slug,
      'COMPLETED_STEP',
      'feedback',
      daysAgo(1, 40),
      { feedback: 'Faster exports' },
      'https://app.example/home',
    );
    await act(`${slug}-6`, slug, 'COMPLETED_STEP', 'feedback', daysAgo(1, 41), { feedback: '' });
    await act(`${slug}-7`, slug, 'COMPLETED_STEP', 'feedback', daysAgo(1, 42), { feedback: 'x'.repeat(150) });
    await act(`${slug}-0`, slug, 'COMPLETED_STEP', 'sign', daysAgo(1, 50), { signature: 'Ada L.' });
    // Completed without answers: not an answer.
    await act(`${slug}-1`, slug, 'COMPLETED_STEP', 'sign', daysAgo(1, 51));

    const report = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}`);
    expect(report.flow.type).toBe('SURVEY');
    expect(report.survey!.steps).toEqual([
      {
        kind: 'nps',
        stepId: 'score',
        title: 'How likely are you to recommend us?',
        responses: 8,
        promoters: 3,
        passives: 2,
        detractors: 3,
        score: 0,
        distribution: [1, 0, 0, 1, 0, 0, 1, 1, 1, 2, 1],
      },
      {
        kind: 'single',
        stepId: 'reason',
        title: 'What brought you here?',
        responses: 3,
        options: [
          { value: 'ads', label: 'An ad', count: 1 },
          { value: 'friend', label: 'A friend', count: 2 },
        ],
      },
      {
        kind: 'multiple',
        stepId: 'tools',
        title: 'What do you use?',
        responses: 2,
        options: [
          { value: 'jira', label: 'Jira', count: 1 },
          { value: 'linear', label: 'Linear', count: 2 },
        ],
      },
      {
        kind: 'text',
        stepId: 'feedback',
        title: 'What could we do better?',
        responses: 3,
        comments: [
          { userId: `${slug}-7`, value: 'x'.repeat(150), createdAt: daysAgo(1, 42), url: null },
          { userId: `${slug}-0`, value: 'Faster exports', createdAt: daysAgo(1, 40), url: 'https://app.example/home' },
        ],
      },
      {
        kind: 'text',
        stepId: 'sign',
        title: 'Sign here',
        responses: 1,
        comments: [{ userId: `${slug}-0`, value: 'Ada L.', createdAt: daysAgo(1, 50), url: null }],
      },
    ]);
    expect((await rollups(slug)).kept).toEqual((await rollups(slug)).expected);
    // The migration that brought these counts folds the same rows in from the log (on a database of its own, at the
    // schema before it: later migrations changed the table's key).
    const counts = `SELECT flow_slug, to_char(day, 'YYYY-MM-DD') AS day, flow_version, step_id, value, count::int FROM analytics_answers
                    WHERE flow_slug = $1 ORDER BY 1, 2, 3, 4, 5`;
    const older = await olderDatabase(13);
    try {
      await copyRows(older.db, slug, ['flows', 'users', 'flow_responses']);
      expect(await migrate(older.db, 14)).toEqual([14]);
      expect(await older.db.query(counts, [slug])).toEqual(await service.db.query(counts, [slug]));
    } finally {
      await older.close();
    }

    // A deleted user's answers given as fields are taken out of the counts, with no row left of what they wrote.
    expect((await service.call('DELETE', `/v1/users?foreignId=${slug}-0`, { key: PRIVATE_KEY })).status).toBe(204);
    const after = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}`);
    expect(after.survey!.steps[0]).toMatchObject({ kind: 'nps', responses: 7, promoters: 2 });
    expect(after.survey!.steps[1]).toMatchObject({
      responses: 2,
      options: [
        { value: 'ads', count: 1 },
        { value: 'friend', count: 1 },
      ],
    });
    expect(
      await service.db.query(`SELECT value FROM analytics_answers WHERE flow_slug = $1 AND value LIKE '%Ada L.%'`, [
        slug,
      ]),
    ).toEqual([]);
    expect((await rollups(slug)).kept).toEqual((await rollups(slug)).expected);
  });

  it('counts no answer of a form, whose data has fields too', async () => {
    const slug = await newFlow('form');
    await act(`${slug}-a`, slug, 'COMPLETED_STEP', 'profile', daysAgo(1), { name: 'Ada', role: 'dev' });
    expect(await service.db.query('SELECT 1 FROM analytics_answers WHERE flow_slug = $1', [slug])).toEqual([]);
    const answers = await get<AnalyticsResponsesResponse>(`/v1/analytics/flows/${slug}/responses?${window}`);
    expect(answers.data.map((row) => [row.field, row.value])).toEqual([
      ['name', 'Ada'],
      ['role', 'dev'],
    ]);
  });

  it('counts the users whose target was missing, once per step, on the day of their first report', async () => {
    const slug = await newFlow('tour');
    // a reports the menu twice and the editor once; b reports the menu through a session, c through a batch.
    await upsert(`${slug}-a`, { events: [targetMissing(slug, 'nav'), targetMissing(slug, 'nav', '/projects/8')] });
    await upsert(`${slug}-a`, { events: [targetMissing(slug, 'nav'), targetMissing(slug, 'save')] });
    expect(
      (
        await service.call('POST', '/v1/public/sessions', {
          body: { userId: `${slug}-b`, userEvents: [targetMissing(slug, 'nav')] },
        })
      ).status,
    ).toBe(201);
    const batch = await service.call('POST', '/v1/public/batch', {
      body: {
        writes: [
          {
            path: 'users',
            idempotencyKey: `${slug}-c-1`,
            body: { userId: `${slug}-c`, events: [targetMissing(slug, 'nav')] },
          },
        ],
      },
    });
    expect(batch.body.results, batch.text).toEqual([expect.objectContaining({ status: 201 })]);
    // b started the tour two days ago and is still at the menu: the funnel counts by start day, the reports by their own.
    await act(`${slug}-b`, slug, 'STARTED_FLOW', '', daysAgo(2));

    const report = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}`);
    expect(report.steps).toEqual([
      { stepId: 'nav', title: 'The menu', reached: 1, completed: 0, skipped: 0, dropped: 1, targetMissing: 3 },
      { stepId: 'save', title: 'Save it', reached: 0, completed: 0, skipped: 0, dropped: 0, targetMissing: 1 },
    ]);
    expect(report.days.find((day) => day.date === dateOf(2))!.steps).toEqual([
      { stepId: 'nav', reached: 1, completed: 0, skipped: 0, dropped: 1, targetMissing: 0 },
    ]);
    expect(report.days.find((day) => day.date === dateOf(0))!.steps).toEqual([
      { stepId: 'nav', reached: 0, completed: 0, skipped: 0, dropped: 0, targetMissing: 3 },
      { stepId: 'save', reached: 0, completed: 0, skipped: 0, dropped: 0, targetMissing: 1 },
    ]);
    // A window without today has none.
    const before = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?from=${dateOf(5)}&to=${dateOf(0)}`);
    expect(before.steps.map((step) => step.targetMissing)).toEqual([0, 0]);
    // Every report is still an ordinary event of the user.
    const record = await service.call('GET', `/v1/users?foreignId=${slug}-a`, { key: PRIVATE_KEY });
    expect(record.body.events.filter((e: { event: string }) => e.event === 'onboarding:target-missing')).toHaveLength(
      4,
    );
  });

  it('counts reports on HINT and TOOLTIP flows and on the version being served, and leaves the others as plain events', async () => {
    const hint = `hint-${++flowCounter}`;
    const tooltip = `tooltip-${++flowCounter}`;
    await service.writeFlow(`${hint}.yaml`, tourYaml(hint, 'HINT'));
    await service.writeFlow(`${tooltip}.yaml`, tourYaml(tooltip, 'TOOLTIP'));
    const checklist = await newFlow('checklist');
    const user = `${hint}-a`;
    await upsert(user, {
      events: [
        targetMissing(hint, 'save'),
        targetMissing(tooltip, 'nav'),
        // Not counted: a flow that points at nothing, an unknown flow or step, properties that are not strings, another event.
        targetMissing(checklist, 'one'),
        targetMissing('no-such-flow', 'nav'),
        targetMissing(hint, 'no-such-step'),
        { event: 'onboarding:target-missing', properties: { flowSlug: hint, stepId: 7 } },
        { event: 'onboarding:target-missing' },
        { event: 'target-missing', properties: { flowSlug: hint, stepId: 'nav' } },
      ],
    });
    await service.writeFlow(`${hint}.yaml`, tourYaml(hint, 'HINT', ' v2'));
    await upsert(`${hint}-b`, { events: [targetMissing(hint, 'save')] });

    const missing = (report: AnalyticsFlowResponse) =>
      Object.fromEntries(report.steps.map((step) => [step.stepId, step.targetMissing]));
    expect(missing(await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${hint}?${window}`))).toEqual({
      nav: 0,
      save: 2,
    });
    expect(missing(await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${hint}?${window}&version=1`))).toEqual({
      nav: 0,
      save: 1,
    });
    expect(missing(await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${hint}?${window}&version=2`))).toEqual({
      nav: 0,
      save: 1,
    });
    expect(missing(await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${tooltip}?${window}`))).toEqual({ nav: 1 });
    expect(missing(await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${checklist}?${window}`))).toEqual({
      one: 0,
      two: 0,
      three: 0,
    });
    const record = await service.call('GET', `/v1/users?foreignId=${user}`, { key: PRIVATE_KEY });
    expect(record.body.events).toHaveLength(8);
  });

  it('answers 404 for an unknown flow', async () => {
    const response = await service.call('GET', '/v1/analytics/flows/no-such-flow', { key: PRIVATE_KEY });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ status: 404, field: 'slug' });
  });
});

describe('GET /v1/analytics/flows/{slug}/responses', () => {
  it('pages every form field and survey answer, newest first, with its user, step, time, page and version', async () => {
    const slug = await newFlow('form');
    await act(
      `${slug}-a`,
      slug,
      'COMPLETED_STEP',
      'profile',
      daysAgo(2),
      { name: 'Ada', role: 'dev' },
      'https://app.example/welcome',
    );
    await act(`${slug}-a`, slug, 'COMPLETED_STEP', 'team', daysAgo(2, 5), { size: 12 });
    await act(`${slug}-b`, slug, 'COMPLETED_STEP', 'profile', daysAgo(1), { name: 'Grace' });
    // Steps completed without answers, and other actions, are not answers.
    await act(`${slug}-c`, slug, 'STARTED_STEP', 'profile', daysAgo(1), { draft: true });
    await act(`${slug}-c`, slug, 'COMPLETED_STEP', 'profile', daysAgo(1));

    const first = await get<AnalyticsResponsesResponse>(`/v1/analytics/flows/${slug}/responses?${window}&limit=2`);
    expect(first.data.map((row) => [row.userId, row.stepId, row.field, row.value])).toEqual([
      [`${slug}-b`, 'profile', 'name', 'Grace'],
      [`${slug}-a`, 'team', 'size', 12],
    ]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await get<AnalyticsResponsesResponse>(
      `/v1/analytics/flows/${slug}/responses?${window}&limit=2&cursor=${first.nextCursor}`,
    );
    expect(second.data).toEqual([
      {
        responseId: expect.any(String),
        userId: `${slug}-a`,
        stepId: 'profile',
        field: 'name',
        value: 'Ada',
        createdAt: daysAgo(2),
        url: 'https://app.example/welcome',
        version: 1,
        locale: '',
      },
      {
        responseId: second.data[0].responseId,
        userId: `${slug}-a`,
        stepId: 'profile',
        field: 'role',
        value: 'dev',
        createdAt: daysAgo(2),
        url: 'https://app.example/welcome',
        version: 1,
        locale: '',
      },
    ]);
    expect(second.nextCursor).toBeNull();
    const oneStep = await get<AnalyticsResponsesResponse>(
      `/v1/analytics/flows/${slug}/responses?${window}&stepId=team`,
    );
    expect(oneStep.data.map((row) => row.field)).toEqual(['size']);
  });

  it('streams every answer of the window as CSV, quoted and safe to open in a spreadsheet', async () => {
    const slug = await newFlow('survey');
    await act(`${slug}-a`, slug, 'COMPLETED_STEP', 'score', daysAgo(1), { value: 9 });
    await act(
      `${slug}-a`,
      slug,
      'COMPLETED_STEP',
      'why',
      daysAgo(1, 1),
      { value: 'Fast, "simple"\nand cheap' },
      'https://app.example/?a=1,2',
    );
    await act(`${slug}-=cmd`, slug, 'COMPLETED_STEP', 'why', daysAgo(1, 2), { value: '=HYPERLINK("http://evil")' });
    await act(`${slug}-b`, slug, 'COMPLETED_STEP', 'reason', daysAgo(1, 3), { value: ['ads', 'friend'] });

    const response = await service.call('GET', `/v1/analytics/flows/${slug}/responses?${window}&limit=1`, {
      key: PRIVATE_KEY,
      headers: { Accept: 'text/csv' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="${slug}-answers-${dateOf(10)}-to-${dateOf(0)}.csv"`,
    );
    expect(response.headers.get('cache-control')).toBe('no-store');
    const lines = response.text.split('\r\n');
    expect(lines[0]).toBe('created_at,user_id,step_id,field,value,url,version,response_id,locale');
    expect(lines.slice(1, -1).map((line) => line.replace(/,\d+,$/, ''))).toEqual([
      `${daysAgo(1, 3)},${slug}-b,reason,value,"[""ads"",""friend""]",,1`,
      `${daysAgo(1, 2)},${slug}-=cmd,why,value,"'=HYPERLINK(""http://evil"")",,1`,
      `${daysAgo(1, 1)},${slug}-a,why,value,"Fast, ""simple""\nand cheap","https://app.example/?a=1,2",1`,
      `${daysAgo(1)},${slug}-a,score,value,9,,1`,
    ]);
    expect(lines.at(-1)).toBe('');
  });

  it('reads a thousand answers page by page, each once', async () => {
    const slug = await newFlow('survey');
    await service.db.query(`INSERT INTO users (id) SELECT '${slug}-' || n FROM generate_series(1, 1005) AS n`);
    // Several answers share a time, so the cursor must order by more than the time.
    await service.db.query(
      `INSERT INTO flow_responses (user_id, flow_slug, step_id, action_type, data, created_at, flow_version)
       SELECT '${slug}-' || n, $1, 'score', 'COMPLETED_STEP', '{"value":' || (n % 11) || '}', $2::timestamptz + (n / 3) * interval '1 second', 1
       FROM generate_series(1, 1005) AS n`,
      [slug, daysAgo(1)],
    );
    const seen: string[] = [];
    let cursor: string | null = '';
    for (let page = 0; cursor !== null && page < 10; page++) {
      const body: AnalyticsResponsesResponse = await get(
        `/v1/analytics/flows/${slug}/responses?${window}&limit=400${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...body.data.map((row) => row.userId));
      cursor = body.nextCursor;
    }
    expect(cursor).toBeNull();
    expect(seen).toHaveLength(1005);
    expect(new Set(seen).size).toBe(1005);
    const csv = await service.call('GET', `/v1/analytics/flows/${slug}/responses?${window}`, {
      key: PRIVATE_KEY,
      headers: { Accept: 'text/csv' },
    });
    expect(csv.text.split('\r\n').filter(Boolean)).toHaveLength(1006);
  });
});

describe('analytics by locale', () => {
  /**
   * Four users of a survey translated into fr, fr-CA, de and pt: in `fr` (the query), in `fr-CA` (written `fr_ca`, then
   * one answer in `en`, which the survey has no translation for), with the user property `locale: de` and no query,
   * and with no locale at all.
   */
  async function localizedSurvey(): Promise<string> {
    const slug = await newFlow('translated-survey');
    await act(`${slug}-fr`, slug, 'COMPLETED_STEP', 'score', daysAgo(1), { value: 9 }, undefined, 'fr');
    await act(`${slug}-fr`, slug, 'COMPLETED_FLOW', '', daysAgo(1, 30), undefined, undefined, 'fr');
    await act(`${slug}-ca`, slug, 'COMPLETED_STEP', 'score', daysAgo(1, 1), { value: 3 }, undefined, 'fr_ca');
    // The run stays counted under the locale it started in; the answer is tagged with its own request's: the source's ''.
    await act(`${slug}-ca`, slug, 'COMPLETED_STEP', 'why', daysAgo(1, 2), { value: 'Too slow' }, undefined, 'en');
    await upsert(`${slug}-de`, { properties: { locale: 'de' } });
    await act(`${slug}-de`, slug, 'COMPLETED_STEP', 'score', daysAgo(1, 3), { value: 10 });
    await act(`${slug}-none`, slug, 'COMPLETED_STEP', 'score', daysAgo(1, 4), { value: 0 });
    await act(`${slug}-none`, slug, 'SKIPPED_FLOW', '', daysAgo(1, 5));
    return slug;
  }

  it('splits a flow by the translation of each user\'s first start: the query\'s locale, else the user property, else ""', async () => {
    const slug = await localizedSurvey();
    const report = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}`);
    expect(report.locale).toBeNull();
    expect(report.flow).toMatchObject({ started: 4, completed: 1, skipped: 1 });
    expect(report.locales).toEqual([
      { locale: '', started: 1, completed: 0, skipped: 1, completionRate: 0, medianSecondsToComplete: null },
      { locale: 'de', started: 1, completed: 0, skipped: 0, completionRate: 0, medianSecondsToComplete: null },
      {
        locale: 'fr',
        started: 1,
        completed: 1,
        skipped: 0,
        completionRate: 1,
        medianSecondsToComplete: expect.any(Number),
      },
      { locale: 'fr-CA', started: 1, completed: 0, skipped: 0, completionRate: 0, medianSecondsToComplete: null },
    ]);
    expect((await rollups(slug)).kept).toEqual((await rollups(slug)).expected);
  });

  it('filters by a language, which matches its regions, by an exact locale, and by "" for none', async () => {
    const slug = await localizedSurvey();
    const french = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}&locale=fr`);
    expect(french.locale).toBe('fr');
    expect(french.flow).toMatchObject({ started: 2, completed: 1, skipped: 0, completionRate: 0.5 });
    expect(french.locales.map((l) => l.locale)).toEqual(['fr', 'fr-CA']);
    expect(french.steps.find((step) => step.stepId === 'score')).toMatchObject({ reached: 2, completed: 2 });
    expect(french.days.find((day) => day.date === dateOf(1))).toMatchObject({ started: 2, completed: 1 });
    // The answers given in French: the Canadian user's comment came in English.
    expect(french.survey!.steps[0]).toMatchObject({ kind: 'nps', responses: 2, promoters: 1, detractors: 1 });
    expect(french.survey!.steps[3]).toMatchObject({ kind: 'text', responses: 0, comments: [] });

    const canadian = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}&locale=FR-ca`);
    expect(canadian.locale).toBe('fr-CA');
    expect(canadian.flow).toMatchObject({ started: 1, completed: 0 });
    expect(canadian.locales.map((l) => l.locale)).toEqual(['fr-CA']);

    const none = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}&locale=`);
    expect(none.locale).toBe('');
    expect(none.flow).toMatchObject({ started: 1, skipped: 1 });
    expect(none.locales.map((l) => l.locale)).toEqual(['']);
    expect(none.survey!.steps[0]).toMatchObject({ kind: 'nps', responses: 1, detractors: 1 });

    const list = await get<AnalyticsFlowsResponse>(`/v1/analytics/flows?${window}&locale=fr`);
    expect(list.locale).toBe('fr');
    expect(list.flows.find((flow) => flow.slug === slug)).toMatchObject({ started: 2, completed: 1 });
    // A language nobody used counts nothing.
    expect((await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}&locale=ja`)).locales).toEqual([]);
  });

  it('tags each answer with its locale, filters the answers by it, and gives the CSV a locale column', async () => {
    const slug = await localizedSurvey();
    const all = await get<AnalyticsResponsesResponse>(`/v1/analytics/flows/${slug}/responses?${window}`);
    expect(all.data.map((row) => [row.userId, row.stepId, row.locale])).toEqual([
      [`${slug}-none`, 'score', ''],
      [`${slug}-de`, 'score', 'de'],
      [`${slug}-ca`, 'why', ''],
      [`${slug}-ca`, 'score', 'fr-CA'],
      [`${slug}-fr`, 'score', 'fr'],
    ]);
    const french = await get<AnalyticsResponsesResponse>(`/v1/analytics/flows/${slug}/responses?${window}&locale=fr`);
    expect(french.locale).toBe('fr');
    expect(french.data.map((row) => [row.userId, row.value, row.locale])).toEqual([
      [`${slug}-ca`, 3, 'fr-CA'],
      [`${slug}-fr`, 9, 'fr'],
    ]);
    const csv = await service.call('GET', `/v1/analytics/flows/${slug}/responses?${window}&locale=fr-CA`, {
      key: PRIVATE_KEY,
      headers: { Accept: 'text/csv' },
    });
    expect(csv.status).toBe(200);
    const lines = csv.text.split('\r\n');
    expect(lines[0]).toBe('created_at,user_id,step_id,field,value,url,version,response_id,locale');
    expect(lines.slice(1, -1)).toEqual([
      `${daysAgo(1, 1)},${slug}-ca,score,value,3,,1,${french.data[0].responseId},fr-CA`,
    ]);
  });

  it("tags a batch's transitions with the translation the batch's locale resolves to, and lists each response's locale in the user's export", async () => {
    const slug = await newFlow('translated-survey');
    const batch = await service.call('POST', '/v1/public/batch?locale=pt_br', {
      body: {
        writes: [
          {
            path: 'flowStates',
            idempotencyKey: `${slug}-1`,
            body: {
              userId: `${slug}-pt`,
              flowSlug: slug,
              stepId: 'score',
              actionType: 'COMPLETED_STEP',
              data: { value: 8 },
            },
          },
        ],
      },
    });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.results).toEqual([{ status: 201 }]);
    const report = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}&locale=pt`);
    // pt-BR reads pt's text, the only Portuguese the survey has.
    expect(report.locales).toMatchObject([{ locale: 'pt', started: 1 }]);
    const record = await service.call('GET', `/v1/users?foreignId=${slug}-pt`, { key: PRIVATE_KEY });
    expect(
      record.body.flowResponses.map((r: { actionType: string; locale: string }) => [r.actionType, r.locale]),
    ).toEqual([['COMPLETED_STEP', 'pt']]);
  });

  it('keeps what was recorded before locales, under the locale "" (migration 15)', async () => {
    const slug = await newFlow('survey');
    await act(`${slug}-a`, slug, 'COMPLETED_STEP', 'score', daysAgo(2), { value: 9 });
    await act(`${slug}-a`, slug, 'COMPLETED_FLOW', '', daysAgo(2, 40));
    await act(`${slug}-b`, slug, 'COMPLETED_STEP', 'reason', daysAgo(1), { value: 'friend' });
    await act(`${slug}-b`, slug, 'SKIPPED_FLOW', '', daysAgo(1, 5));
    const tables = [
      'flows',
      'users',
      'flow_responses',
      'analytics_flow_users',
      'analytics_step_users',
      'analytics_daily',
      'analytics_durations',
      'analytics_answers',
    ];
    const older = await olderDatabase(14);
    try {
      await copyRows(older.db, slug, tables);
      expect(await migrate(older.db, 15)).toEqual([15]);
      // Every row is kept, and reads as the service now records a request with no locale.
      for (const table of tables.slice(2)) {
        const rows = `SELECT * FROM ${table} WHERE flow_slug = $1 ORDER BY 1, 2, 3, 4, 5`;
        const migrated = await older.db.query(rows, [slug]);
        expect(migrated.length, table).toBeGreaterThan(0);
        expect(migrated, table).toEqual(await service.db.query(rows, [slug]));
        // The step facts go by their run's locale, which analytics_flow_users holds.
        if (table !== 'analytics_step_users')
          expect(
            migrated.every((row) => (row as { locale: unknown }).locale === ''),
            table,
          ).toBe(true);
      }
    } finally {
      await older.close();
    }
  });
});

describe('analytics and the rest of the service', () => {
  it('keeps the rollups and answer counts equal to what the facts and the log say, through starts, resets, restarts, reads, links and deletes', async () => {
    const slug = await newFlow('checklist');
    const actions: Array<[ActionType, string]> = [
      ['STARTED_FLOW', ''],
      ['STARTED_STEP', 'two'],
      ['COMPLETED_STEP', 'one'],
      ['SKIPPED_STEP', 'two'],
      ['NOT_STARTED_STEP', 'two'],
      ['COMPLETED_STEP', 'three'],
      ['SKIPPED_FLOW', ''],
      ['NOT_STARTED_FLOW', ''],
      ['COMPLETED_FLOW', ''],
      ['COMPLETED_STEP', 'two'],
    ];
    // A fixed pseudo-random walk, so a failure can be replayed.
    let seed = 7;
    // A 32-bit LCG in integer arithmetic, read from its high bits (the low ones of an LCG repeat quickly).
    const next = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % n;
    for (let i = 0; i < 120; i++) {
      const user = next(3) === 0 ? `guest_${slug}-${next(6)}` : `${slug}-${next(6)}`;
      const [actionType, stepId] = actions[next(actions.length)];
      // Answers of every shape: a score, a choice, a list, a comment too long to count, a form's fields, none.
      const answers = [
        { value: i % 11 },
        { value: 'friend' },
        { value: ['ads', 'friend', null] },
        { value: 'x'.repeat(150) },
        { name: 'Ada' },
        undefined,
      ];
      await act(
        user,
        slug,
        actionType,
        stepId,
        daysAgo(next(4), next(5000)),
        actionType === 'COMPLETED_STEP' ? answers[i % answers.length] : undefined,
      );
      // Reads between writes: on the embedded store, the next transition of this user starts from the facts loaded with them.
      if (next(2) === 0)
        expect((await service.call('GET', `/v1/public/flowStates?userId=${encodeURIComponent(user)}`)).status).toBe(
          200,
        );
    }
    const linked = await service.call('POST', '/v1/public/users', {
      body: { userId: `${slug}-linked`, linkGuestId: `guest_${slug}-1` },
    });
    expect(linked.status).toBe(201);
    for (const user of [`${slug}-2`, `${slug}-linked`]) {
      expect((await service.call('DELETE', `/v1/users?foreignId=${user}`, { key: PRIVATE_KEY })).status).toBe(204);
    }
    const { kept, expected } = await rollups(slug);
    expect(kept).toEqual(expected);
    expect(kept.length).toBeGreaterThan(5);
    expect(kept.filter((row) => 'value' in (row as object)).length).toBeGreaterThan(3);
  });

  it('counts a missing target once for a guest and the user it is linked to, and not at all once a user is deleted', async () => {
    const slug = await newFlow('tour');
    const guest = `guest_${slug}`;
    await upsert(guest, { events: [targetMissing(slug, 'nav'), targetMissing(slug, 'save')] });
    await upsert(`${slug}-user`, { events: [targetMissing(slug, 'nav')] });
    await upsert(`${slug}-gone`, { events: [targetMissing(slug, 'save')] });
    const missing = async () =>
      (await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}`)).steps.map(
        (step) => step.targetMissing,
      );
    expect(await missing()).toEqual([2, 2]);
    const linked = await service.call('POST', '/v1/public/users', {
      body: { userId: `${slug}-user`, linkGuestId: guest },
    });
    expect(linked.body.guestLinked).toBe(true);
    expect(await missing()).toEqual([1, 2]);
    expect((await service.call('DELETE', `/v1/users?foreignId=${slug}-gone`, { key: PRIVATE_KEY })).status).toBe(204);
    expect(await missing()).toEqual([1, 1]);
    expect(
      await service.db.query('SELECT 1 FROM analytics_target_missing_users WHERE user_id = ANY($1::text[])', [
        [guest, `${slug}-gone`],
      ]),
    ).toEqual([]);
    expect((await rollups(slug)).kept).toEqual((await rollups(slug)).expected);
  });

  it("carries a guest's progress into the user it is linked to", async () => {
    const slug = await newFlow('checklist');
    const guest = `guest_${slug}`;
    await act(guest, slug, 'COMPLETED_STEP', 'one', daysAgo(1));
    const linked = await service.call('POST', '/v1/public/users', {
      body: { userId: `${slug}-user`, linkGuestId: guest },
    });
    expect(linked.body.guestLinked).toBe(true);
    await act(`${slug}-user`, slug, 'COMPLETED_STEP', 'two', daysAgo(0));
    const report = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}`);
    expect(report.flow.started).toBe(1);
    expect(report.steps.map((s) => [s.stepId, s.reached, s.completed, s.dropped])).toEqual([
      ['one', 1, 1, 0],
      ['two', 1, 1, 0],
      ['three', 1, 0, 1],
    ]);
  });

  it('takes a deleted user out of every count and every answer', async () => {
    const slug = await newFlow('survey');
    // The one to go first starts the day before.
    await act(`${slug}-gone`, slug, 'STARTED_FLOW', '', daysAgo(2));
    for (const user of ['keep', 'gone']) {
      await act(`${slug}-${user}`, slug, 'COMPLETED_STEP', 'score', daysAgo(1), { value: user === 'keep' ? 10 : 0 });
      await act(`${slug}-${user}`, slug, 'COMPLETED_STEP', 'why', daysAgo(1, 1), { value: `I am ${user}` });
    }
    const before = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}`);
    expect(before.flow.started).toBe(2);
    expect((await service.call('DELETE', `/v1/users?foreignId=${slug}-gone`, { key: PRIVATE_KEY })).status).toBe(204);

    const after = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}?${window}`);
    expect(after.flow).toMatchObject({ started: 1, completed: 0 });
    expect(after.steps.find((s) => s.stepId === 'score')).toMatchObject({ reached: 1, completed: 1 });
    // The day only the deleted user had is empty, with no rows of zeros.
    expect(after.days.find((d) => d.date === dateOf(2))).toEqual({
      date: dateOf(2),
      started: 0,
      completed: 0,
      skipped: 0,
      steps: [],
    });
    expect(after.survey!.steps[0]).toMatchObject({ kind: 'nps', responses: 1, score: 100 });
    expect(
      (after.survey!.steps[3] as Extract<SurveyStepReport, { kind: 'text' }>).comments.map((c) => c.value),
    ).toEqual(['I am keep']);
    const answers = await get<AnalyticsResponsesResponse>(`/v1/analytics/flows/${slug}/responses?${window}`);
    expect(answers.data.every((row) => row.userId === `${slug}-keep`)).toBe(true);
    for (const table of ['analytics_flow_users', 'analytics_step_users', 'flow_responses', 'webhook_outbox']) {
      expect(await service.db.query(`SELECT 1 FROM ${table} WHERE user_id = $1`, [`${slug}-gone`])).toEqual([]);
    }
    // The answer counts keep no row of the deleted answers, not even an empty one: a value can be what the user wrote.
    expect(
      await service.db.query(
        `SELECT value FROM analytics_answers WHERE flow_slug = $1 AND value IN ('0', '"I am gone"')`,
        [slug],
      ),
    ).toEqual([]);
  });

  it('leaves completions made by bootstrap out of the counts', async () => {
    const slug = `boot-${++flowCounter}`;
    await service.writeFlow(
      `${slug}.yaml`,
      checklistYaml(slug).replace('title: One', 'title: One\n      completionCriteria: "true"'),
    );
    await service.call('POST', '/v1/public/users', { body: { userId: `${slug}-a`, bootstrapFlowStates: true } });
    const report = await get<AnalyticsFlowResponse>(`/v1/analytics/flows/${slug}`);
    expect(report.flow.started).toBe(0);
    const answers = await get<AnalyticsResponsesResponse>(`/v1/analytics/flows/${slug}/responses`);
    expect(answers.data).toEqual([]);
  });
});

describe('analytics access and bad input', () => {
  const paths = ['/v1/analytics/flows', '/v1/analytics/flows/x', '/v1/analytics/flows/x/responses'];

  it.each(paths)('answers 403 to a public key and 401 to no key on %s', async (path) => {
    const publicKey = await service.call('GET', path, { key: PUBLIC_KEY });
    expect(publicKey.status).toBe(403);
    expect(publicKey.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(publicKey.body.detail).toContain('private key');
    expect((await service.call('GET', path, { key: null })).status).toBe(401);
  });

  const bad: Array<[string, string, string]> = [
    ['from not a date', '/v1/analytics/flows?from=yesterday', 'from'],
    ['from on February 30th', '/v1/analytics/flows?from=2024-02-30', 'from'],
    ['a time without a zone', '/v1/analytics/flows?from=2024-02-01T10:00:00', 'from'],
    ['to at hour 25', '/v1/analytics/flows?to=2024-02-01T25:00:00Z', 'to'],
    ['from after to', '/v1/analytics/flows?from=2024-03-02&to=2024-03-01', 'from'],
    ['a window of 400 days', '/v1/analytics/flows?from=2023-01-01&to=2024-02-05', 'from'],
    ['from before 2000', '/v1/analytics/flows?from=1999-12-31', 'from'],
    ['from twice', '/v1/analytics/flows?from=2024-01-01&from=2024-01-02', 'from'],
    ['version 0', '/v1/analytics/flows?version=0', 'version'],
    ['version a word', '/v1/analytics/flows/x?version=latest', 'version'],
    ['an unknown query field', '/v1/analytics/flows?form=2024-01-01', 'form'],
    ['limit 0', '/v1/analytics/flows/x/responses?limit=0', 'limit'],
    ['limit 1001', '/v1/analytics/flows/x/responses?limit=1001', 'limit'],
    ['a cursor that is not one', '/v1/analytics/flows/x/responses?cursor=abc', 'cursor'],
    ['a stepId with a control character', '/v1/analytics/flows/x/responses?stepId=a%0Ab', 'stepId'],
    ['a locale that is no locale code', '/v1/analytics/flows/x?locale=xx_!!', 'locale'],
    ['a locale with a LIKE pattern', '/v1/analytics/flows?locale=f%25', 'locale'],
    ['a locale on the responses that is no code', '/v1/analytics/flows/x/responses?locale=english', 'locale'],
    ['a locale twice', '/v1/analytics/flows/x?locale=fr&locale=de', 'locale'],
  ];

  it.each(bad)('answers 400 with a problem for %s', async (_name, path, field) => {
    const response = await service.call('GET', path, { key: PRIVATE_KEY });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ status: 400, field });
  });

  it('answers a slug longer than a path segment may be with a 414 problem', async () => {
    // A segment may hold a 256-character id, percent-encoded: 768 characters.
    const response = await service.call('GET', `/v1/analytics/flows/${'s'.repeat(800)}`, { key: PRIVATE_KEY });
    expect(response.status).toBe(414);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
