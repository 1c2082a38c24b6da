// A flood of locale codes: analytics count a run under the flow's translation its locale resolved to, so the locales a
// report lists are bounded by the flow file, and a report over rows of many locales is one linear pass, capped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsFlowResponse } from '../../src/api/wire.js';
import { PRIVATE_KEY, startTestService, type TestService } from '../support/service.js';

const FLOW = `
slug: greeting
name: Greeting
type: BANNER
data:
  steps:
    - id: hello
      title: Hello
translations:
  fr: { steps: { hello: { title: Bonjour } } }
  de: { steps: { hello: { title: Hallo } } }
`;

/** The i-th of many well-formed locale codes: French, German or a language the flow lacks, in a script of its own (`fr-Qaab`). */
const codeOf = (i: number) =>
  `${['fr', 'de', 'ab'][i % 3]}-Q${[...i.toString(26).padStart(3, '0')].map((d) => String.fromCharCode(97 + parseInt(d, 26))).join('')}`;
/** Codes sent: enough to show the bound; ONBOARDING_LOCALE_FLOOD=5000 sends the 5,000. */
const SENT = Number(process.env.ONBOARDING_LOCALE_FLOOD ?? 1000);

describe('a flood of locale codes', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(
      { 'greeting.yaml': FLOW },
      { limits: { requestsPerMinute: 1_000_000, userWritesPerMinute: 1_000_000 } },
    );
  });
  afterAll(() => service?.close());

  const report = async (query = '') => {
    const started = performance.now();
    const answer = await service.call('GET', `/v1/analytics/flows/greeting${query}`, { key: PRIVATE_KEY });
    expect(answer.status, answer.text).toBe(200);
    return { body: answer.body as AnalyticsFlowResponse, ms: performance.now() - started };
  };

  it(
    `counts ${SENT} distinct codes under the flow's translations and its source text only`,
    { timeout: 120_000 },
    async () => {
      let next = 0;
      const send = async () => {
        for (let i = next++; i < SENT; i = next++) {
          const write = await service.call('POST', `/v1/public/flowStates?locale=${codeOf(i)}`, {
            body: { userId: `flood-${i}`, flowSlug: 'greeting', actionType: 'STARTED_FLOW' },
          });
          expect(write.status, write.text).toBe(201);
        }
      };
      await Promise.all(Array.from({ length: 16 }, send));
      const { body, ms } = await report();
      if (process.env.ONBOARDING_LOCALE_FLOOD)
        process.stdout.write(`flow report after ${SENT} locale codes: ${ms.toFixed(1)} ms\n`);
      expect(body.flow.started).toBe(SENT);
      // fr-Q…, de-Q… read fr's and de's text; ab-Q… the source: three locales, the flow's two translations and "".
      expect(body.locales.map((l) => [l.locale, l.started]).sort()).toEqual([
        ['', Math.floor(SENT / 3)],
        ['de', Math.round(SENT / 3)],
        ['fr', Math.ceil(SENT / 3)],
      ]);
      const [daily] = await service.db.query<{ locales: number }>(
        "SELECT count(DISTINCT locale)::int AS locales FROM analytics_daily WHERE flow_slug = 'greeting'",
      );
      expect(daily.locales).toBe(3);
    },
  );

  it(
    'lists at most 100 locales of rows recorded before, in one pass, with the totals whole',
    { timeout: 60_000 },
    async () => {
      // Rows in 20,000 locales, as a service before this change could have stored for one flow.
      await service.db.query(
        `INSERT INTO analytics_daily (flow_slug, day, flow_version, step_id, locale, started, completed)
       SELECT 'greeting', current_date - 2, 99, '', 'zz-' || n, 1 + n % 7, n % 2 FROM generate_series(1, 20000) AS n`,
      );
      await service.db.query(
        `INSERT INTO analytics_durations (flow_slug, day, flow_version, bucket, locale, count)
       SELECT 'greeting', current_date - 2, 99, n % 10, 'zz-' || n, 1 FROM generate_series(1, 20000) AS n`,
      );
      const { body, ms } = await report();
      expect(body.locales).toHaveLength(100);
      expect(body.locales[0].started).toBeGreaterThanOrEqual(body.locales[99].started);
      const seeded = Array.from({ length: 20000 }, (_, n) => 1 + ((n + 1) % 7)).reduce((a, b) => a + b, 0);
      expect(body.flow.started).toBe(SENT + seeded);
      // Grouped by the database and joined in one pass (the filter inside a map over locales took seconds here).
      expect(ms).toBeLessThan(2000);
      // The service answers its health check while such reports run.
      const reports = Promise.all([report(), report(), report()]);
      const health = performance.now();
      expect((await service.call('GET', '/healthz', { key: null })).status).toBe(200);
      const healthMs = performance.now() - health;
      const answered = await reports;
      if (process.env.ONBOARDING_LOCALE_FLOOD)
        process.stdout.write(
          `report over 20,000 stored locales: ${ms.toFixed(1)} ms, ${answered.map((r) => r.ms.toFixed(1)).join(', ')} ms at once; /healthz meanwhile ${healthMs.toFixed(1)} ms\n`,
        );
      expect(healthMs).toBeLessThan(1000);
    },
  );
});
