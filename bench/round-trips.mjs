// Round trips and time from script start to the first flow painted, in real Chromium on a page of another origin, with 100 ms added to every answer.
// Usage: node bench/round-trips.mjs [--runs 5] [--latency 100]   (after npm run build)
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { launchBrowser, round, startLatencyProxy, startSite } from './browser.mjs';
import { startServiceProcess, tempFlows } from './support.mjs';

const BANNER = `slug: welcome
name: Welcome
type: BANNER
data:
  title: Welcome
  steps:
    - id: hello
      title: Hello there
      subtitle: Drawn from the first state answer
`;
/** The targets of issue 10: sequential round trips before the first flow is painted. */
export const ROUND_TRIP_TARGETS = { newGuest: 1, identifyNewUser: 1, returningUser: 0 };

/** A page that notes when the script starts and when the banner first renders a step (both on the page's clock). */
const page = (service, publicKey, { clear, identify }) => `<!doctype html><html><body>
  <onboarding-banner flow="welcome"></onboarding-banner>
  <script>
    ${clear ? 'localStorage.clear();' : ''}
    document.addEventListener('onboarding-step-change', (event) => {
      if (event.detail.flow && !window.paintedAt) { window.paintedAt = performance.now(); window.paintedAtEpoch = Date.now(); }
    });
    window.startedAt = performance.now();
  </script>
  <script src="/onboarding.js" data-public-key="${publicKey}" data-api-url="${service}"></script>
  ${identify ? `<script>Onboarding.identify(${JSON.stringify(identify)}, { plan: 'pro' });</script>` : ''}
</body></html>`;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function runRoundTrips({ runs = 5, latencyMs = 100 } = {}) {
  const flows = tempFlows({ 'welcome.yaml': BANNER });
  const service = await startServiceProcess({ flows: flows.dir });
  const proxy = await startLatencyProxy(service.url, latencyMs);
  const site = await startSite();
  const browser = await launchBrowser();
  try {
    /** Opens `html` in a new page (the same profile, so a returning visitor finds its cache) and measures it. */
    const measure = async (path, html) => {
      site.page(path, html);
      const since = proxy.requests.length;
      const tab = await browser.context.newPage();
      await tab.goto(`${site.url}${path}`);
      await tab.waitForFunction(() => window.paintedAt !== undefined, undefined, { timeout: 30_000 });
      const { startedAt, paintedAt, paintedAtEpoch } = await tab.evaluate(() => ({ startedAt: window.startedAt, paintedAt: window.paintedAt, paintedAtEpoch: window.paintedAtEpoch }));
      // Let what follows the paint (first showings, the refresh) settle before the next run.
      await tab.waitForTimeout(3 * latencyMs + 200);
      await tab.close();
      const before = proxy.requests.slice(since).filter((request) => request.at < paintedAtEpoch);
      return {
        ms: paintedAt - startedAt,
        requests: before.length,
        preflights: before.filter((request) => request.method === 'OPTIONS').length,
        paths: before.map((request) => `${request.method} ${request.path.split('?')[0]}`),
      };
    };
    const cases = {
      newGuest: [],
      identifyNewUser: [],
      returningUser: [],
    };
    for (let run = 0; run < runs; run++) {
      cases.newGuest.push(await measure(`/guest-${run}.html`, page(proxy.url, service.publicKey, { clear: true })));
      const userId = `bench-user-${Date.now()}-${run}`;
      cases.identifyNewUser.push(await measure(`/identify-${run}.html`, page(proxy.url, service.publicKey, { clear: true, identify: userId })));
      // The same browser again: the user and their flows are in its cache.
      cases.returningUser.push(await measure(`/returning-${run}.html`, page(proxy.url, service.publicKey, { clear: false })));
    }
    const result = { latencyMs, runs };
    for (const [name, measured] of Object.entries(cases)) {
      // Requests before the paint are sequential (each waits for the one before): their count is the round trips.
      const roundTrips = Math.max(...measured.map((m) => m.requests));
      result[name] = {
        roundTrips,
        target: ROUND_TRIP_TARGETS[name],
        met: roundTrips <= ROUND_TRIP_TARGETS[name],
        preflights: Math.max(...measured.map((m) => m.preflights)),
        requestsBeforePaint: measured[0].paths,
        timeToFirstFlowMs: { median: round(median(measured.map((m) => m.ms))), max: round(Math.max(...measured.map((m) => m.ms))) },
      };
    }
    return result;
  } finally {
    await browser.close();
    await site.close();
    await proxy.close();
    await service.stop();
    flows.remove();
  }
}

export function printRoundTrips(result) {
  console.log(`From script start to the first flow painted, ${result.latencyMs} ms added to every answer, ${result.runs} runs:`);
  console.log('  case               | round trips (target) | preflights | time to first flow (median / max) | requests before the paint');
  for (const name of ['newGuest', 'identifyNewUser', 'returningUser']) {
    const c = result[name];
    console.log(
      `  ${name.padEnd(18)} | ${String(c.roundTrips).padStart(2)} (≤ ${c.target}) ${c.met ? 'met   ' : 'MISSED'}     | ${String(c.preflights).padStart(10)} | ${String(c.timeToFirstFlowMs.median).padStart(8)} / ${c.timeToFirstFlowMs.max} ms | ${c.requestsBeforePaint.join(', ') || 'none'}`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, latency: { type: 'string', default: '100' } } });
  printRoundTrips(await runRoundTrips({ runs: Number(values.runs), latencyMs: Number(values.latency) }));
}
