// The target engine's cost in Chromium: a tour step on a page of 5,000 elements, its target three scrollers deep under
// a fixed header (long tasks, frames from the target settling to the tooltip beside it, work while nothing moves), and
// waiting for a late target on a page that mutates 1,000 times a second.
// Usage: node bench/targets.mjs   (after npm run build)
import { pathToFileURL } from 'node:url';
import { launchBrowser, round, startSite } from './browser.mjs';
import { startServiceProcess, tempFlows } from './support.mjs';

/** The targets of issue 24: no long task over 50 ms; the tooltip beside its target within one frame of it settling; no work while idle. */
export const TARGET_BUDGETS = { longTaskMs: 50, framesToFollow: 1, idleCallbacks: 0 };
const ELEMENTS = 5000;
const IDLE_MS = 2000;
const MUTATING_MS = 3000;

const flows = {
  'deep-tour.yaml': `slug: deep-tour
name: Deep tour
type: TOUR
targetingLogic: has(user.properties.suite) && user.properties.suite == 'deep'
data:
  steps:
    - id: deep
      title: Three scrollers deep
      selector: '#deep-target'
    - id: after
      title: After
`,
  'late-tour.yaml': `slug: late-tour
name: Late tour
type: TOUR
targetingLogic: has(user.properties.suite) && user.properties.suite == 'late'
data:
  props: { targetTimeout: 60000 }
  steps:
    - id: late
      title: Late target
      selector: '#late-target'
`,
};

/** Counts, from before the script runs, the frame callbacks and timers the page's scripts ask for, and long tasks. */
const instrument = `<script>
  window.longTasks = [];
  new PerformanceObserver((list) => { for (const entry of list.getEntries()) longTasks.push({ start: entry.startTime, ms: entry.duration }); }).observe({ type: 'longtask', buffered: true });
  window.asked = { frames: 0, timers: 0 };
  const raf = requestAnimationFrame, timeout = setTimeout, interval = setInterval;
  window.requestAnimationFrame = (callback) => (asked.frames++, raf(callback));
  window.setTimeout = (...args) => (asked.timers++, timeout(...args));
  window.setInterval = (...args) => (asked.timers++, interval(...args));
  window.benchTimeout = timeout;
</script>`;

/** 5,000 elements: rows of cells, with three nested scrollers holding the target, below the fold, and a fixed header. */
function deepPage(service, publicKey) {
  const rows = Array.from(
    { length: ELEMENTS / 10 },
    (_, i) => `<div class="row">${Array.from({ length: 9 }, (_, j) => `<span>${i}.${j}</span>`).join('')}</div>`,
  ).join('');
  return `<!doctype html><html><head>${instrument}<style>
    body { margin: 0; font: 14px sans-serif; }
    header { position: fixed; top: 0; left: 0; right: 0; height: 56px; background: #223; z-index: 5; }
    .scroll { overflow: auto; height: 360px; margin: 0 16px; border: 1px solid #ccc; }
    .scroll .scroll { height: 300px; } .scroll .scroll .scroll { height: 240px; }
    .pad { height: 600px; }
  </style></head><body><header></header><div style="height: 1200px"></div>
  <div class="scroll" id="s1"><div class="pad"></div><div class="scroll" id="s2"><div class="pad"></div><div class="scroll" id="s3"><div class="pad"></div>
    <button id="deep-target" style="position: relative; left: 200px">Target</button><div class="pad"></div></div><div class="pad"></div></div><div class="pad"></div></div>
  ${rows}
  <script src="/onboarding.js" data-public-key="${publicKey}" data-api-url="${service}"></script>
  </body></html>`;
}

/** 5,000 elements, 10 of which change their text and a class every 10 ms (1,000 mutations a second). */
function mutatingPage(service, publicKey) {
  const rows = Array.from(
    { length: ELEMENTS / 10 },
    (_, i) => `<div class="row">${Array.from({ length: 9 }, (_, j) => `<span>${i}.${j}</span>`).join('')}</div>`,
  ).join('');
  return `<!doctype html><html><head>${instrument}</head><body>${rows}
  <script>
    window.mutations = 0;
    const cells = [...document.querySelectorAll('span')];
    window.churn = interval(() => {
      for (let k = 0; k < 10; k++) {
        const cell = cells[(mutations * 7) % cells.length];
        cell.className = 'c' + (mutations % 3);
        mutations++;
      }
    }, 10);
  </script>
  <script src="/onboarding.js" data-public-key="${publicKey}" data-api-url="${service}"></script>
  </body></html>`;
}

/** In the page: whether the tour's tooltip sits beside the target (12 px below it, across its middle). */
const besideSource = `() => {
  const tip = document.querySelector('onboarding-tour')?.shadowRoot?.querySelector('[part="base"]')?.getBoundingClientRect();
  const target = document.querySelector('#deep-target').getBoundingClientRect();
  const middle = target.left + target.width / 2;
  return Boolean(tip) && Math.abs(tip.top - (target.bottom + 12)) < 1.5 && tip.left <= middle && middle <= tip.right;
}`;

async function scriptMs(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((metric) => metric.name === 'ScriptDuration')?.value ?? 0) * 1000;
}

async function measureDeep(browser, site, service) {
  site.page('/deep.html', deepPage(service.url, service.publicKey));
  const tab = await browser.context.newPage();
  await tab.goto(`${site.url}/deep.html`);
  // Loaded: the page's own parse and layout of 5,000 elements are behind us; what follows is the tour's.
  await tab.evaluate(() => window.Onboarding.ready);
  await tab.waitForTimeout(500);
  const started = Date.now();
  const from = await tab.evaluate(() => performance.now());
  await tab.evaluate(() => window.Onboarding.identify(`bench-deep-${Date.now()}`, { suite: 'deep' }));
  await tab
    .waitForFunction(new Function(`return (${besideSource})()`), undefined, { timeout: 30_000, polling: 50 })
    .catch(async (error) => {
      console.log(
        await tab.evaluate(() => ({
          tour: Boolean(document.querySelector('onboarding-tour')),
          flows: window.Onboarding.flows.map((f) => f.slug),
          tip: document
            .querySelector('onboarding-tour')
            ?.shadowRoot?.querySelector('[part="base"]')
            ?.getBoundingClientRect()
            .toJSON(),
          target: document.querySelector('#deep-target').getBoundingClientRect().toJSON(),
        })),
      );
      throw error;
    });
  const shownMs = Date.now() - started;
  // Settled: the smooth scroll over, the tooltip where it stays.
  await tab.waitForTimeout(1500);

  // Frames from the frame that draws the target somewhere new to the first that draws the tooltip beside it: a layout
  // move (the target shifted by style), then a scroll of the innermost scroller.
  const follow = async (change) =>
    tab.evaluate(
      ({ change, beside }) =>
        new Promise((resolve) => {
          const isBeside = new Function(`return (${beside})()`);
          requestAnimationFrame(() => {
            new Function(change)();
            let frames = 0;
            const tick = () => {
              frames++;
              if (isBeside()) resolve(frames - 1);
              else if (frames > 60) resolve(null);
              else requestAnimationFrame(tick);
            };
            requestAnimationFrame(tick);
          });
        }),
      { change, beside: besideSource },
    );
  const moves = [];
  for (let i = 1; i <= 5; i++)
    moves.push(await follow(`document.querySelector('#deep-target').style.left = '${200 + i * 17}px'`));
  const scrolls = [];
  for (let i = 1; i <= 5; i++)
    scrolls.push(await follow(`document.querySelector('#s3').scrollTop += ${i % 2 ? 40 : -25}`));

  // Idle: nothing moves for two seconds; what do our scripts ask for meanwhile?
  const cdp = await tab.context().newCDPSession(tab);
  await cdp.send('Performance.enable');
  await tab.waitForTimeout(300);
  const before = await tab.evaluate(() => ({ ...window.asked }));
  const scriptBefore = await scriptMs(cdp);
  await tab.waitForTimeout(IDLE_MS);
  const after = await tab.evaluate(() => ({ ...window.asked }));
  const idleScriptMs = (await scriptMs(cdp)) - scriptBefore;
  const longTasks = (await tab.evaluate(() => window.longTasks))
    .filter((task) => task.start >= from)
    .map((task) => task.ms);
  await tab.close();
  const worst = (list) => (list.some((value) => value === null) ? null : Math.max(...list));
  return {
    elements: ELEMENTS,
    shownMs,
    longTasks: longTasks.length,
    longestTaskMs: round(Math.max(0, ...longTasks)),
    framesToFollowMove: worst(moves),
    framesToFollowScroll: worst(scrolls),
    idle: {
      ms: IDLE_MS,
      frameCallbacks: after.frames - before.frames,
      timers: after.timers - before.timers,
      scriptMs: round(idleScriptMs, 2),
    },
  };
}

async function measureMutating(browser, site, service, waiting) {
  const path = `/mutating-${waiting ? 'waiting' : 'alone'}.html`;
  site.page(path, mutatingPage(service.url, service.publicKey));
  const tab = await browser.context.newPage();
  await tab.goto(`${site.url}${path}`);
  await tab.evaluate(
    (suite) => window.Onboarding.identify(`bench-late-${suite}-${Date.now()}`, { suite }),
    waiting ? 'late' : 'none',
  );
  await tab.evaluate(() => window.Onboarding.ready);
  if (waiting)
    await tab.waitForFunction(
      () => customElements.get('onboarding-tour') && document.querySelector('onboarding-tour'),
      undefined,
      { timeout: 30_000 },
    );
  await tab.waitForTimeout(500);
  const cdp = await tab.context().newCDPSession(tab);
  await cdp.send('Performance.enable');
  const count = () => tab.evaluate(() => ({ mutations: window.mutations, frames: window.asked.frames }));
  const first = await count();
  const scriptBefore = await scriptMs(cdp);
  await tab.waitForTimeout(MUTATING_MS);
  const script = (await scriptMs(cdp)) - scriptBefore;
  const last = await count();
  // The target comes at last: the tour shows it, so the wait was a real one.
  let shown = null;
  if (waiting) {
    const appeared = Date.now();
    await tab.evaluate(() => document.body.insertAdjacentHTML('afterbegin', '<button id="late-target">Late</button>'));
    await tab.waitForFunction(
      () => Boolean(document.querySelector('onboarding-tour')?.shadowRoot?.querySelector('[part="base"]')),
      undefined,
      { timeout: 10_000 },
    );
    shown = Date.now() - appeared;
  }
  const longTasks = (await tab.evaluate(() => window.longTasks)).map((task) => task.ms);
  await tab.close();
  const seconds = MUTATING_MS / 1000;
  return {
    mutationsPerSecond: Math.round((last.mutations - first.mutations) / seconds),
    scriptMsPerSecond: round(script / seconds, 2),
    frameCallbacksPerSecond: round((last.frames - first.frames) / seconds, 1),
    longestTaskMs: round(Math.max(0, ...longTasks)),
    ...(waiting ? { shownAfterAppearingMs: shown } : {}),
  };
}

export async function runTargets() {
  const folder = tempFlows(flows);
  const service = await startServiceProcess({ flows: folder.dir, args: ['--max-event-loop-delay', '0'] });
  const site = await startSite();
  const browser = await launchBrowser();
  try {
    // Three runs of the step: a long task on a machine busy with other work shows in one and not the others.
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await measureDeep(browser, site, service));
    const deep = {
      ...runs[1],
      longTasksByRun: runs.map((run) => run.longTasks),
      longestTaskByRunMs: runs.map((run) => run.longestTaskMs),
    };
    // The same page churning, with no tour, then with a tour waiting for a target that is not there, three times in
    // turn: the difference of the medians of script time is what the wait costs (a run alone varies by a few ms/s).
    const alone = [];
    const waiting = [];
    for (let i = 0; i < 3; i++) {
      alone.push(await measureMutating(browser, site, service, false));
      waiting.push(await measureMutating(browser, site, service, true));
    }
    const middle = (runs) => [...runs].sort((a, b) => a.scriptMsPerSecond - b.scriptMsPerSecond)[1];
    const [quiet, busy] = [middle(alone), middle(waiting)];
    return {
      deep,
      mutating: {
        alone: quiet,
        waiting: busy,
        aloneRunsMsPerSecond: alone.map((run) => run.scriptMsPerSecond),
        waitingRunsMsPerSecond: waiting.map((run) => run.scriptMsPerSecond),
        waitCostMsPerSecond: round(busy.scriptMsPerSecond - quiet.scriptMsPerSecond, 2),
      },
      budgets: TARGET_BUDGETS,
    };
  } finally {
    await browser.close();
    await site.close();
    await service.stop();
    folder.remove();
  }
}

export function printTargets(result) {
  const { deep, mutating, budgets } = result;
  const mark = (ok) => (ok ? 'met' : 'MISSED');
  console.log(
    `Tour step on a page of ${deep.elements} elements, the target three scrollers deep under a fixed header (Chromium):`,
  );
  const longest = Math.max(...deep.longestTaskByRunMs);
  console.log(
    `  shown ${deep.shownMs} ms after identify; long tasks in 3 runs ${deep.longTasksByRun.join(', ')}, longest ${deep.longestTaskByRunMs.join(', ')} ms (≤ ${budgets.longTaskMs}) ${mark(longest <= budgets.longTaskMs)}`,
  );
  console.log(
    `  frames from the target settling to the tooltip beside it: after a layout move ${deep.framesToFollowMove}, after a scroll ${deep.framesToFollowScroll} (≤ ${budgets.framesToFollow}) ${mark(deep.framesToFollowMove !== null && deep.framesToFollowScroll !== null && Math.max(deep.framesToFollowMove, deep.framesToFollowScroll) <= budgets.framesToFollow)}`,
  );
  console.log(
    `  idle ${deep.idle.ms} ms: frame callbacks ${deep.idle.frameCallbacks}, timers ${deep.idle.timers}, script ${deep.idle.scriptMs} ms (callbacks ≤ ${budgets.idleCallbacks}) ${mark(deep.idle.frameCallbacks <= budgets.idleCallbacks && deep.idle.timers === 0)}`,
  );
  console.log(
    `Waiting for a late target on a page of ${ELEMENTS} elements that mutates ${mutating.waiting.mutationsPerSecond} times a second:`,
  );
  console.log(
    `  script time, median of 3: ${mutating.alone.scriptMsPerSecond} ms/s without a tour (runs ${mutating.aloneRunsMsPerSecond.join(', ')}), ${mutating.waiting.scriptMsPerSecond} ms/s with one waiting (runs ${mutating.waitingRunsMsPerSecond.join(', ')}): ${mutating.waitCostMsPerSecond} ms/s for the wait; frame callbacks ${mutating.waiting.frameCallbacksPerSecond}/s; longest task ${mutating.waiting.longestTaskMs} ms`,
  );
  console.log(`  the target, once it appeared, was shown after ${mutating.waiting.shownAfterAppearingMs} ms`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) printTargets(await runTargets());
