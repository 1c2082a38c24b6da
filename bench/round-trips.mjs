// Round trips and time from script start to the first flow painted, in real Chromium on a page of another origin, with 100 ms added to every answer.
// Usage: node bench/round-trips.mjs [--runs 5] [--latency 100]   (after npm run build)
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { launchBrowser, round, startLatencyProxy, startSite } from './browser.mjs';
import { startServiceProcess, tempFlows } from './support.mjs';

const FLOWS = {
  'welcome.yaml': `slug: welcome
name: Welcome
type: BANNER
data:
  title: Welcome
  steps:
    - id: hello
      title: Hello there
      subtitle: Drawn from the first state answer
`,
  'signup.yaml': `slug: signup
name: Sign up
type: FORM
data:
  steps:
    - id: about
      title: About you
      fields:
        - { id: name, type: text, label: Your name, required: true }
`,
  'pulse.yaml': `slug: pulse
name: Pulse
type: SURVEY
data:
  steps:
    - id: score
      title: How likely are you to recommend us?
`,
};
/**
 * Sequential round trips before the first flow is painted: issue 10's three, and issue 23's form and survey, whose
 * chunks load from beside the script. A form in the markup loads with the first read; a survey is known from it.
 */
export const ROUND_TRIP_TARGETS = { newGuest: 1, identifyNewUser: 1, returningUser: 0, formFirst: 1, surveyFirst: 2 };
const CASES = Object.keys(ROUND_TRIP_TARGETS);

/**
 * A page that notes when the script starts and when its first flow is painted (both on the page's clock): the
 * element's first step drawn, or for the survey, its popover opened. Auto-mount is off but for the survey's case.
 */
const page = (
  service,
  publicKey,
  {
    clear,
    identify,
    body = '<onboarding-banner flow="welcome"></onboarding-banner>',
    paintedOn = 'onboarding-step-change',
    autoMount = 'false',
  },
) => `<!doctype html><html><body>
  ${body}
  <script>
    ${clear ? 'localStorage.clear();' : ''}
    document.addEventListener('${paintedOn}', (event) => {
      if ((event.detail.flow || event.detail.flowSlug) && !window.paintedAt) { window.paintedAt = performance.now(); window.paintedAtEpoch = Date.now(); }
    });
    window.startedAt = performance.now();
  </script>
  <script src="/onboarding.js" data-public-key="${publicKey}" data-api-url="${service}" data-auto-mount="${autoMount}"></script>
  ${identify ? `<script>Onboarding.identify(${JSON.stringify(identify)}, { plan: 'pro' });</script>` : ''}
</body></html>`;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The longest chain of requests each sent after the one before it was answered: the round trips waited for. */
function chainLength(requests) {
  const depth = new Map();
  for (const request of [...requests].sort((a, b) => a.at - b.at)) {
    const before = requests
      .filter((other) => other.answeredAt && other.answeredAt <= request.at)
      .map((other) => depth.get(other) ?? 0);
    depth.set(request, 1 + Math.max(0, ...before));
  }
  return Math.max(0, ...depth.values());
}

export async function runRoundTrips({ runs = 5, latencyMs = 100 } = {}) {
  const flows = tempFlows(FLOWS);
  const service = await startServiceProcess({ flows: flows.dir });
  const proxy = await startLatencyProxy(service.url, latencyMs);
  // The chunks come from the script's folder, as far away as the service.
  const site = await startSite({ chunkLatencyMs: latencyMs });
  const browser = await launchBrowser();
  try {
    /** Opens `html` in a new page (the same profile, so a returning visitor finds its cache) and measures it. */
    const measure = async (path, html) => {
      site.page(path, html);
      const since = proxy.requests.length;
      const chunksSince = site.chunks.length;
      const tab = await browser.context.newPage();
      await tab.goto(`${site.url}${path}`);
      await tab.waitForFunction(() => window.paintedAt !== undefined, undefined, { timeout: 30_000 });
      const { startedAt, paintedAt, paintedAtEpoch } = await tab.evaluate(() => ({
        startedAt: window.startedAt,
        paintedAt: window.paintedAt,
        paintedAtEpoch: window.paintedAtEpoch,
      }));
      // Let what follows the paint (first showings, the refresh) settle before the next run.
      await tab.waitForTimeout(3 * latencyMs + 200);
      await tab.close();
      const before = proxy.requests.slice(since).filter((request) => request.at < paintedAtEpoch);
      const chunks = site.chunks.slice(chunksSince).filter((request) => request.at < paintedAtEpoch);
      return {
        ms: paintedAt - startedAt,
        requests: before.length,
        roundTrips: chainLength([...before, ...chunks]),
        preflights: before.filter((request) => request.method === 'OPTIONS').length,
        paths: [
          ...before.map((request) => `${request.method} ${request.path.split('?')[0]}`),
          ...chunks.map((request) => `GET ${request.path}`),
        ],
        // Whether the chunk was asked for before the first answer from the service came back.
        chunkWithRead:
          chunks.length > 0 &&
          before.length > 0 &&
          chunks[0].at < Math.min(...before.map((request) => request.answeredAt || Infinity)),
      };
    };
    const cases = Object.fromEntries(CASES.map((name) => [name, []]));
    for (let run = 0; run < runs; run++) {
      cases.newGuest.push(await measure(`/guest-${run}.html`, page(proxy.url, service.publicKey, { clear: true })));
      const userId = `bench-user-${Date.now()}-${run}`;
      cases.identifyNewUser.push(
        await measure(`/identify-${run}.html`, page(proxy.url, service.publicKey, { clear: true, identify: userId })),
      );
      // The same browser again: the user and their flows are in its cache.
      cases.returningUser.push(
        await measure(`/returning-${run}.html`, page(proxy.url, service.publicKey, { clear: false })),
      );
      // A new visitor whose first flow is a form in the page's markup: the chunk loads beside the first read.
      cases.formFirst.push(
        await measure(
          `/form-${run}.html`,
          page(proxy.url, service.publicKey, {
            clear: true,
            body: '<onboarding-form flow="signup"></onboarding-form>',
          }),
        ),
      );
      // A new visitor whose first flow is an auto-mounted survey: the chunk loads once the read names it.
      cases.surveyFirst.push(
        await measure(
          `/survey-${run}.html`,
          page(proxy.url, service.publicKey, {
            clear: true,
            body: '',
            paintedOn: 'onboarding-show',
            autoMount: 'pulse',
          }),
        ),
      );
    }
    const result = { latencyMs, runs };
    for (const [name, measured] of Object.entries(cases)) {
      const roundTrips = Math.max(...measured.map((m) => m.roundTrips));
      result[name] = {
        roundTrips,
        target: ROUND_TRIP_TARGETS[name],
        met: roundTrips <= ROUND_TRIP_TARGETS[name],
        requests: Math.max(...measured.map((m) => m.paths.length)),
        preflights: Math.max(...measured.map((m) => m.preflights)),
        requestsBeforePaint: measured[0].paths,
        ...(name === 'formFirst' ? { chunkWithRead: measured.every((m) => m.chunkWithRead) } : {}),
        timeToFirstFlowMs: {
          median: round(median(measured.map((m) => m.ms))),
          max: round(Math.max(...measured.map((m) => m.ms))),
        },
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
  console.log(
    `From script start to the first flow painted, ${result.latencyMs} ms added to every answer and chunk, ${result.runs} runs:`,
  );
  console.log(
    '  case               | round trips (target) | requests | preflights | time to first flow (median / max) | requests before the paint',
  );
  for (const name of CASES) {
    const c = result[name];
    if (!c) continue;
    console.log(
      `  ${name.padEnd(18)} | ${String(c.roundTrips).padStart(2)} (≤ ${c.target}) ${c.met ? 'met   ' : 'MISSED'}     | ${String(c.requests).padStart(8)} | ${String(c.preflights).padStart(10)} | ${String(c.timeToFirstFlowMs.median).padStart(8)} / ${c.timeToFirstFlowMs.max} ms | ${c.requestsBeforePaint.join(', ') || 'none'}${c.chunkWithRead ? ' (in parallel)' : ''}`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { runs: { type: 'string', default: '5' }, latency: { type: 'string', default: '100' } },
  });
  printRoundTrips(await runRoundTrips({ runs: Number(values.runs), latencyMs: Number(values.latency) }));
}
