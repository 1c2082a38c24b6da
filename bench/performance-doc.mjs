// Writes docs/performance.md from bench/results.json: the method of each bench as fixed text, every figure from the results.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GOODPUT_SHARE, OVERLOAD } from './service.mjs';
import { middle } from './support.mjs';

const resultsPath = fileURLToPath(new URL('./results.json', import.meta.url));
const docPath = fileURLToPath(new URL('../docs/performance.md', import.meta.url));

/** A number with thousands separators (1,234.5), the same on every machine. */
const n = (value) => {
  if (value === null || value === undefined) return '—';
  if (typeof value !== 'number') return String(value);
  const [whole, fraction] = String(value).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
};
/** Items written as a list in a sentence: `a, b and c`. */
const list = (items) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);
const mark = (ok) => (ok ? 'met' : '**missed**');
const table = (head, rows) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
const storeName = (store) =>
  store === 'embedded'
    ? 'the embedded store (PGlite, a data directory)'
    : 'PostgreSQL (durable settings, a pool of 10)';

function sizeSection(size) {
  const [mainFile, main] = Object.entries(size)[0];
  const shares = Object.entries(main.shares).map(([part, share]) => `${part} ${share.percent} %`);
  return [
    "## The script's bytes",
    '',
    '`npm run bench -- size`. Each file of the script tag, minified, gzip and brotli, against its gzip budget from',
    '`package.json`. `npm test` holds every file to its budget (`test/budget/`).',
    '',
    table(
      ['File', 'Minified B', 'Gzip B', 'Brotli B', 'Budget (gzip B)', 'Within'],
      Object.entries(size).map(([file, s]) => [
        `\`${file.replace(/^dist\//, '')}\``,
        n(s.minified),
        n(s.gzip),
        n(s.brotli),
        n(s.targetGzip),
        mark(s.met),
      ]),
    ),
    '',
    `Where the bytes of \`${mainFile.replace(/^dist\//, '')}\` go (shares of the code before the last minifier pass): ${shares.join(', ')}.`,
  ];
}

const ROUND_TRIP_CASES = {
  newGuest: 'A new guest',
  identifyNewUser: 'A new user identified right after the tag',
  returningUser: 'A returning user (painted from the cache)',
  formFirst: 'A new visitor whose first flow is a form in the markup',
  surveyFirst: 'A new visitor whose first flow is an auto-mounted survey',
};

function roundTripsSection(result) {
  return [
    '## Round trips to the first flow',
    '',
    `\`npm run bench -- round-trips\`. Real Chromium, a page of another origin than the service, ${n(result.latencyMs)} ms added to`,
    `every answer and chunk, ${n(result.runs)} runs of each case. \`npm test\` asserts the counts.`,
    '',
    table(
      [
        'Case',
        'Round trips (target)',
        'Requests',
        'Preflights',
        'First flow, median / max ms',
        'Requests before the paint',
      ],
      Object.entries(ROUND_TRIP_CASES)
        .filter(([key]) => result[key])
        .map(([key, label]) => {
          const c = result[key];
          const before = c.requestsBeforePaint.map((request) => `\`${request}\``).join(', ') || 'none';
          return [
            label,
            `${c.roundTrips} (${c.target}): ${mark(c.met)}`,
            n(c.requests),
            n(c.preflights),
            `${n(c.timeToFirstFlowMs.median)} / ${n(c.timeToFirstFlowMs.max)}`,
            `${before}${c.chunkWithRead ? ', together' : ''}`,
          ];
        }),
    ),
  ];
}

function mainThreadSection(result) {
  const [first] = result.runs;
  return [
    '## The main thread',
    '',
    `\`npm run bench -- main-thread\`. Chromium loads a page with ${list(result.runs.map((r) => n(r.flows)))} flows of ${n(first.steps)} steps, banners placed`,
    `for up to ${n(Math.max(...result.runs.map((r) => r.placedElements)))} of them. A click is the call, its microtasks and its element's render. A size with no`,
    'target for the answer and the click is measured to see how the script scales.',
    '',
    table(
      [
        'Flows',
        'Long tasks in load (longest ms, target)',
        'Answer applied, median / max ms (target)',
        'Click, median / max ms (target)',
        'Cache: flows of content / of state',
      ],
      result.runs.map((r) => [
        n(r.flows),
        `${n(r.load.longTasks)}, longest ${n(r.load.longestTaskMs)} (≤ ${n(r.load.target)}): ${mark(r.load.longestTaskMs <= r.load.target)}`,
        `${n(r.applyMs.median)} / ${n(r.applyMs.max)}${r.applyMs.target ? ` (≤ ${n(r.applyMs.target)}): ${mark(r.applyMs.median <= r.applyMs.target)}` : ''}`,
        `${n(r.clickMs.median)} / ${n(r.clickMs.max)}${r.clickMs.target ? ` (≤ ${n(r.clickMs.target)}): ${mark(r.clickMs.median <= r.clickMs.target)}` : ''}`,
        `${n(r.cache.contentFlows)} / ${n(r.cache.stateFlows)}`,
      ]),
    ),
  ];
}

function targetsSection({ deep, mutating, budgets }) {
  const longest = Math.max(...deep.longestTaskByRunMs);
  const follow = Math.max(deep.framesToFollowMove ?? Infinity, deep.framesToFollowScroll ?? Infinity);
  return [
    '## Tours, hints and tooltips on real layouts',
    '',
    `\`npm run bench -- targets\`. A tour step on a page of ${n(deep.elements)} elements whose target sits three scrolling`,
    'containers deep, below the fold, under a fixed header; and a tour waiting for a target that is not there, on a page',
    `that changes a class about ${n(mutating.waiting.mutationsPerSecond)} times a second. Script time is Chromium's own \`ScriptDuration\`.`,
    '',
    table(
      ['What', 'Target', 'Measured'],
      [
        [
          'Long tasks while the step opens',
          `none over ${n(budgets.longTaskMs)} ms`,
          `${deep.longTasksByRun.join(', ')} in ${deep.longTasksByRun.length} runs, longest ${deep.longestTaskByRunMs.join(', ')} ms; shown ${n(deep.shownMs)} ms after \`identify\`: ${mark(longest <= budgets.longTaskMs)}`,
        ],
        [
          'Frames from the target settling to the tooltip beside it',
          `within ${n(budgets.framesToFollow)}`,
          `${n(deep.framesToFollowMove)} after a layout move, ${n(deep.framesToFollowScroll)} after a scroll: ${mark(follow <= budgets.framesToFollow)}`,
        ],
        [
          'Work while nothing moves',
          'no polling, no frame loop',
          `${n(deep.idle.frameCallbacks)} frame callbacks, ${n(deep.idle.timers)} timers, ${n(deep.idle.scriptMs)} ms of script in ${n(deep.idle.ms)} ms: ${mark(deep.idle.frameCallbacks <= budgets.idleCallbacks && deep.idle.timers === 0)}`,
        ],
        [
          'Waiting for a late target on a mutating page',
          'nothing measurable',
          `${n(mutating.alone.scriptMsPerSecond)} ms/s of script without a tour (runs ${mutating.aloneRunsMsPerSecond.join(', ')}), ${n(mutating.waiting.scriptMsPerSecond)} ms/s with one waiting (runs ${mutating.waitingRunsMsPerSecond.join(', ')}); ${n(mutating.waiting.frameCallbacksPerSecond)} frame callbacks a second`,
        ],
        ['The late target shown once it appears', '', `${n(mutating.waiting.shownAfterAppearingMs)} ms`],
      ],
    ),
  ];
}

function startRulesSection(result) {
  const requests = result.plain.requests + result.ruled.requests;
  return [
    '## Start rules on a route change',
    '',
    `\`npm run bench -- start-rules\`. ${n(result.routeChanges)} \`pushState\` route changes with ${n(result.flows)} eligible flows, with and without`,
    "page rules, each timed to the end of the script's task, in rounds taken in turn.",
    '',
    table(
      ['Flows', 'Mean ms (by round)', 'Median ms', 'p95 ms', 'Open flows', 'Requests'],
      [
        [
          'without start rules',
          `${n(result.plain.meanMs)} (${result.plain.meansByRoundMs.join(', ')})`,
          n(result.plain.medianMs),
          n(result.plain.p95Ms),
          n(result.plain.visibleFlows),
          n(result.plain.requests),
        ],
        [
          'with page rules',
          `${n(result.ruled.meanMs)} (${result.ruled.meansByRoundMs.join(', ')})`,
          n(result.ruled.medianMs),
          n(result.ruled.p95Ms),
          n(result.ruled.visibleFlows),
          n(result.ruled.requests),
        ],
      ],
    ),
    '',
    `The check adds ${n(result.checkMs)} ms a route change (target: under ${n(result.targets.routeChangeMs)} ms): ${mark(result.checkMs < result.targets.routeChangeMs)}.`,
    `Requests to the service during the route changes: ${n(requests)} (target: ${n(result.targets.requests)}): ${mark(requests === result.targets.requests)}.`,
  ];
}

function localeSection(result) {
  return [
    '## Switching the language',
    '',
    `\`npm run bench -- locale\`. \`setLocale\` redraws ${n(result.flows)} translated banners placed in the page, switching`,
    `en → fr → en … ${result.switches.length} times; target: no task over ${n(result.targets.longTaskMs)} ms.`,
    '',
    table(
      ['To', 'All shown in ms', 'Long tasks', 'Longest ms'],
      result.switches.map((s) => [s.to, n(s.shownMs), n(s.longTasks), n(s.longestTaskMs)]),
    ),
    '',
    `All ${n(result.flows)} in the new language in ${n(result.shownMs.median)} ms median, ${n(result.shownMs.max)} ms max; ${n(result.tasksOver50Ms)} tasks over ${n(result.targets.longTaskMs)} ms: ${mark(result.tasksOver50Ms === 0)}. A 60 ms probe task was seen as ${n(result.probeTaskMs)} ms.`,
  ];
}

function localeAnswerSection(result) {
  const s = result.strings;
  const views = Math.ceil(s.fileGzip / s.inAnswerGzip);
  return [
    '## A state answer in one locale',
    '',
    `\`npm run bench -- locale-answer\`. One user's first read of the demo's ${n(result.flowFiles)} flows, ${n(result.translatedFiles)} of them translated into`,
    `${result.locales.length} locales (${result.locales.join(', ')}), against the same flows written in that language alone; target: at most`,
    `${n(result.targets.slackShare * 100)} % larger.`,
    '',
    table(
      ['Locale', 'Answer B (gzip)', 'Written in that language alone B (gzip)', 'Difference'],
      result.rows.map((row) => [
        row.locale,
        `${n(row.bytes)} (${n(row.gzip)})`,
        `${n(row.aloneBytes)} (${n(row.aloneGzip)})`,
        `${n(row.bytes - row.aloneBytes)} B: ${mark(row.share <= result.targets.slackShare)}`,
      ]),
    ),
    '',
    `The elements' own strings in French would add ${n(s.inAnswerBytes)} B (${n(s.inAnswerGzip)} B gzip) to every read's answer;`,
    `\`onboarding-strings-fr.js\` is ${n(s.fileGzip)} B gzip once per browser cache, so the file is the cheaper from a visitor's page view ${n(views)} on.`,
  ];
}

/** Issue 35, item 10: the writes at 16 and at 64 connections in turn, and whether more demand means less work done. */
function overloadSection(result) {
  const rows = Object.entries(result.stores).flatMap(([store, bench]) =>
    Object.entries(bench.overload ?? {}).map(([name, row]) => [store, name, row]),
  );
  if (!rows.length) return [];
  const { busy, overloaded } = OVERLOAD;
  const [, , first] = rows[0];
  return [
    '',
    '### Writes under overload',
    '',
    `Each write at ${busy} and at ${overloaded} connections in turn, ${n(first.rounds)} rounds of ${n(result.duration)} s each, the order`,
    `alternating (${busy} then ${overloaded}, ${overloaded} then ${busy}, …), so both meet the same machine and the tables the earlier runs`,
    `grew. Target: at ${overloaded} connections at least ${100 * GOODPUT_SHARE} % of the writes served at ${busy} (the median over the rounds of`,
    `each round's share), the excess shed fast (503 with \`Retry-After\`, p99 under 50 ms) and the served p99 under 250 ms,`,
    `both p99s over every answer of the ${overloaded}-connection runs. The last column is the service process's CPU time over the runs`,
    `divided by the writes it served (the median run; on PostgreSQL the server's own processes are not in it): the writes are the`,
    `same at both loads, so what ${overloaded} adds is the shed answers' reading and sending, and a run whose writes take much more at`,
    `both loads says the machine or the tables changed, not the shedding.`,
    '',
    `Each run opens its ${overloaded} connections at once, and the service accepts one new connection a turn of its event loop`,
    `(libuv, as Node 20 has it, accepts one connection each time it polls), each turn also serving the connections already`,
    'open. Traced once (`strace` of `accept4` on PostgreSQL, where the pool sheds few answers), the service accepted a',
    `run's connections one by one over 50 to 120 ms, while no turn of its loop took more than 25 ms. A connection's first`,
    `answer waits for that too, so the 503 p99 is given again without each connection's first answer; the target stays on`,
    `every answer.`,
    '',
    table(
      [
        'Store',
        'Write',
        `2xx/s at ${busy}`,
        `2xx/s at ${overloaded}`,
        'Served, by round',
        'Served (median)',
        `p99 ms at ${overloaded}`,
        `Shed at ${overloaded}`,
        '503 p99 ms',
        '503 p99 ms, first answers left out',
        `CPU µs a write, ${busy} → ${overloaded}`,
        'Target',
      ],
      rows.map(([store, name, row]) => [
        store,
        name,
        `${n(row.busy.okPerSecond)} (${row.busy.runs.map((run) => n(run.okPerSecond)).join(' ')})`,
        `${n(row.overloaded.okPerSecond)} (${row.overloaded.runs.map((run) => n(run.okPerSecond)).join(' ')})`,
        row.shares.map((share) => `${Math.round(100 * share)} %`).join(' '),
        `${Math.round(100 * row.share)} %`,
        n(row.overloaded.servedP99),
        n(row.overloaded.shed),
        n(row.overloaded.shedP99),
        row.overloaded.shedP99AfterFirst === undefined
          ? ''
          : `${n(row.overloaded.shedP99AfterFirst)} (${n(row.overloaded.shedFirst)} left out)`,
        `${n(cpuPerWrite(row.busy))} → ${n(cpuPerWrite(row.overloaded))}`,
        mark(goodputMet(row)),
      ]),
    ),
  ];
}

/** The median over one load's runs of the service's CPU time a served write, in µs. */
const cpuPerWrite = (side) => middle(side.runs.map((run) => run.cpuMicrosPerRequest ?? 0));

/** Item 10's three figures for one write. */
const goodputMet = (row) =>
  row.share >= GOODPUT_SHARE && (row.overloaded.shedP99 ?? 0) < 50 && (row.overloaded.servedP99 ?? 0) < 250;

function serviceSection(result) {
  const lines = [
    '## The service',
    '',
    `\`npm run bench -- service\` seeds users and flows with CEL targeting (then \`VACUUM ANALYZE\`, as autovacuum leaves a`,
    `database in service), then loads each endpoint with autocannon for`,
    `${n(result.duration)} s at ${list(result.connections.map(n))} connections, on each store, next to a ceiling route that runs one primary-key`,
    '`SELECT` on the same database. Every user is read once first, so the read caches hold the active users. It counts',
    'what was served (2xx) apart from what was shed (503 with `Retry-After`): autocannon sends again at once after a',
    '503, where the script waits as told. "Every request counted" runs the reads against a second process with',
    '`--rate-limit-exact`. The load generator runs on the same machine; compare each figure with the ceiling beside it.',
    '`BENCH_PROFILE_DIR=<dir>` makes each service process write a CPU profile there when it stops.',
  ];
  for (const [store, bench] of Object.entries(result.stores)) {
    const ceiling = Object.fromEntries(bench.rows.ceiling.map((row) => [row.connections, row.okPerSecond]));
    lines.push('', `### On ${storeName(store)}`, '', `${n(bench.users)} users, ${n(bench.flows)} flows.`, '');
    lines.push(
      table(
        [
          'Endpoint',
          'Connections',
          '2xx/s',
          'p50 ms',
          'p99 ms',
          'Shed (503)',
          '503 p99 ms',
          'Errors',
          'Of the ceiling',
          'CPU µs a 2xx',
        ],
        Object.entries(bench.rows).flatMap(([name, rows]) =>
          rows.map((row) => [
            name,
            n(row.connections),
            n(row.okPerSecond),
            n(row.p50),
            n(row.p99),
            n(row.shed),
            n(row.shedP99),
            n(row.errors),
            name === 'ceiling' ? '' : `${Math.round((100 * row.okPerSecond) / (ceiling[row.connections] || 1))} %`,
            n(row.cpuMicrosPerRequest),
          ]),
        ),
      ),
    );
    lines.push('');
    if (bench.perStateRead) {
      const { exact, shared } = bench.perStateRead;
      lines.push(
        `Per state read (${n(shared.reads)} reads, from \`pg_stat_database\`): ${exact.rowsPerRead.toFixed(2)} rows written and ${exact.commitsPerRead.toFixed(2)} transactions committed with every request counted; ${shared.rowsPerRead.toFixed(2)} and ${shared.commitsPerRead.toFixed(2)} counted in memory up to each instance's share.`,
        '',
      );
    }
    lines.push(
      `RSS ${n(bench.idleRssMiB)} MiB idle after start, ${n(bench.afterRssMiB)} MiB after the runs (${n(bench.rssRatio)}×). CPU time the hypervisor gave to other machines during the runs: ${n(bench.stolenPercent)} %.`,
    );
  }
  lines.push(...overloadSection(result));
  lines.push('', ...serviceTargets(result));
  if (result.growth) {
    lines.push(
      '',
      '### Growth',
      '',
      'GET reads as users and flows grow, every user read once first. Target: read latency at 500 flows at most five times that at 10 flows (p50).',
      '',
    );
    lines.push(
      table(
        ['Store', 'Users', 'Flows', 'Connections', '2xx/s', 'p50 ms', 'p99 ms', 'Answer B', 'CPU µs a 2xx'],
        Object.entries(result.growth).flatMap(([store, growth]) =>
          [...growth.users, ...growth.flows]
            .flat()
            .map((row) => [
              store,
              n(row.users),
              n(row.flows),
              n(row.connections),
              n(row.okPerSecond),
              n(row.p50),
              n(row.p99),
              n(row.answerBytes),
              n(row.cpuMicrosPerRequest),
            ]),
        ),
      ),
    );
    for (const [store, growth] of Object.entries(result.growth)) {
      const [few, many] = growth.flows;
      const ratios = few.map(
        (row, i) => `${(many[i].p50 / Math.max(row.p50, 0.01)).toFixed(1)}× at ${row.connections}`,
      );
      const ok = few.every((row, i) => many[i].p50 / Math.max(row.p50, 0.01) <= 5);
      lines.push(
        '',
        `On ${store === 'embedded' ? 'the embedded store' : 'PostgreSQL'}, a read at 500 flows takes ${ratios.join(' and ')} connections what it takes at 10: ${mark(ok)}.`,
      );
    }
  }
  if (result.bareAnswers) {
    lines.push(
      '',
      '### The same bytes from a bare Node server',
      '',
      'The transport and the load tool alone, with no service: what a read of that size costs before the service does anything.',
      '',
    );
    lines.push(
      table(
        ['Answer B', 'Connections', '2xx/s', 'p50 ms', 'p99 ms'],
        result.bareAnswers
          .flat()
          .map((row) => [n(row.bytes), n(row.connections), n(row.okPerSecond), n(row.p50), n(row.p99)]),
      ),
    );
  }
  return lines;
}

/** The service's targets, each judged on this run's rows; a store the run left out is left out. */
function serviceTargets(result) {
  const { embedded, postgres } = result.stores;
  const rows = [];
  const perSecond = (list) => list.map((row) => n(row.okPerSecond)).join(' / ');
  if (embedded) {
    const reads = [...embedded.rows['GET flowStates'], ...embedded.rows['POST flowStates (read)']];
    const slowest = Math.min(...reads.map((row) => row.okPerSecond));
    rows.push([
      'Embedded: state reads ≥ 1,500 a second',
      `GET ${perSecond(embedded.rows['GET flowStates'])}, POST ${perSecond(embedded.rows['POST flowStates (read)'])}: ${mark(slowest >= 1500)}`,
    ]);
    const writes = embedded.rows.transition;
    rows.push([
      'Embedded: transitions ≥ 500 a second',
      `${perSecond(writes)} at ${list(writes.map((row) => n(row.connections)))} connections: ${mark(writes.every((row) => row.okPerSecond >= 500))}`,
    ]);
  }
  if (postgres) {
    const ceiling = Object.fromEntries(postgres.rows.ceiling.map((row) => [row.connections, row.okPerSecond]));
    const shares = ['GET flowStates', 'POST flowStates (read)'].flatMap((name) =>
      postgres.rows[name].map((row) => Math.round((100 * row.okPerSecond) / (ceiling[row.connections] || 1))),
    );
    rows.push([
      'PostgreSQL: state reads ≥ 50 % of the ceiling',
      `${Math.min(...shares)} to ${Math.max(...shares)} %: ${mark(Math.min(...shares) >= 50)}`,
    ]);
  }
  const stores = Object.values(result.stores);
  const busiest = Math.max(...result.connections);
  const atBusiest = stores.flatMap((bench) =>
    Object.values(bench.rows)
      .flat()
      .filter((row) => row.connections === busiest),
  );
  const servedP99 = Math.max(...atBusiest.map((row) => row.p99 ?? 0));
  const shedP99 = Math.max(...atBusiest.map((row) => row.shedP99 ?? 0));
  rows.push([
    `At ${n(busiest)} connections, p99 under 250 ms or a fast 503`,
    `served p99 up to ${n(servedP99)} ms, 503s up to ${n(shedP99)} ms (p99): ${mark(servedP99 < 250 && shedP99 < 250)}`,
  ]);
  const overload = stores.flatMap((bench) => Object.values(bench.overload ?? {}));
  if (overload.length) {
    const met = overload.filter(goodputMet).length;
    rows.push([
      `Writes at ${OVERLOAD.overloaded} connections: ≥ ${100 * GOODPUT_SHARE} % of those served at ${OVERLOAD.busy}, 503 p99 < 50 ms, served p99 < 250 ms`,
      `${overload.map((row) => `${Math.round(100 * row.share)} %`).join(', ')} served; 503 p99 ${overload.map((row) => n(row.overloaded.shedP99)).join(', ')} ms; served p99 ${overload.map((row) => n(row.overloaded.servedP99)).join(', ')} ms: ${met} of ${overload.length} writes met: ${mark(met === overload.length)}`,
    ]);
  }
  const errors = stores.flatMap((bench) => Object.values(bench.rows).flat()).reduce((sum, row) => sum + row.errors, 0);
  rows.push(['No answer but a 2xx or the deliberate 503', `${n(errors)} others: ${mark(errors === 0)}`]);
  for (const [store, bench] of Object.entries(result.stores)) {
    rows.push([
      `${store === 'embedded' ? 'Embedded' : 'PostgreSQL'}: RSS after the runs ≤ 1.25× idle`,
      `${n(bench.idleRssMiB)} → ${n(bench.afterRssMiB)} MiB (${n(bench.rssRatio)}×): ${mark(bench.rssRatio <= 1.25)}`,
    ]);
  }
  return ['### Targets', '', table(['Target', 'This run'], rows)];
}

/**
 * How a side-by-side read bench compared its two services: since the paired rounds (whose results say whether the run
 * was `same`), after one uncounted run each, by the median of the rounds' shares; before, by each side's median run.
 * `aa`: whether the bench takes `--same` (the collections bench compares two data sets, so it has no A/A run).
 */
function sideBySideMethod(result, what, aa = true) {
  const same = aa
    ? " With `--same`, both services are without the feature: the shares of such an A/A run are the bench's own spread on the machine."
    : '';
  return result.same !== undefined
    ? `After one uncounted run on each service, each read is loaded on one service, then the other, in turn. A row's share is the median over these rounds of the read ${what} in the same round, as runs next to each other meet the same machine; the rates shown are each side's median run.${same}`
    : "Each read is loaded on one service, then the other, in turn, and each side's median run is kept.";
}

function collectionsSection(result) {
  const lines = [
    '## Reads with collections and events over time',
    '',
    '`npm run bench -- collections` (or `node bench/collections.mjs [--stores postgres] [--duration 2] [--repeat 9]`) seeds the',
    'service bench\'s users and flows as they are ("today"), and with the flows in collections (cool-offs running',
    'for some users) and targeting written with events over time (`user.eventCount(…, duration(…))`,',
    '`group.eventCount`, `user.lastEventAt`), with the history those count. The services run side by side.',
    sideBySideMethod(result, "with collections and windows as a share of today's", false),
    `Target: each read with collections and windows at least ${n(result.budgetPercent)} % of today's rate.`,
  ];
  if (Object.values(result.stores).some((bench) => bench.rows.uncollected))
    lines.push(
      '',
      'A third service has the same flows, targeting and data without `collections.yaml`, loaded in the same rounds: "With / without" is the read with collections as a share of it, what collections alone cost, the events over time and their history being on both sides.',
    );
  for (const [store, bench] of Object.entries(result.stores)) {
    const { shape } = bench;
    lines.push('', `### On ${storeName(store)}`, '');
    lines.push(
      `${n(bench.users)} users, ${n(bench.flows)} flows, ${n(bench.collections)} collections; per read (${n(shape.sample)} users) ${n(shape.eligibleFlows)} eligible flows, ${n(shape.heldBack)} held back by a collection. ${result.repeat ?? 1} run${(result.repeat ?? 1) > 1 ? 's' : ''} of ${n(result.duration)} s per side and row. Ceiling (one indexed \`SELECT\`) at ${result.connections.join(' / ')} connections: ${bench.rows.today.ceiling.map((row) => n(row.okPerSecond)).join(' / ')} a second.`,
      '',
    );
    const third = Boolean(bench.rows.uncollected);
    lines.push(
      table(
        [
          'Read',
          'Connections',
          'Today 2xx/s',
          'With 2xx/s',
          'Share',
          ...(third ? ['Without collections 2xx/s', 'With / without'] : []),
          'Today CPU µs',
          'With CPU µs',
          ...(third ? ['Without CPU µs'] : []),
        ],
        bench.comparison.map((row) => {
          const index = bench.rows.today[row.name].findIndex((r) => r.connections === row.connections);
          const [today, windowed, uncollected] = ['today', 'windowed', 'uncollected'].map(
            (side) => bench.rows[side]?.[row.name][index],
          );
          return [
            row.name,
            n(row.connections),
            n(row.today),
            n(row.windowed),
            `${row.percent} %: ${mark(row.met)}`,
            ...(third ? [n(row.uncollected), `${row.alonePercent} %`] : []),
            n(today?.cpuMicrosPerRequest),
            n(windowed?.cpuMicrosPerRequest),
            ...(third ? [n(uncollected?.cpuMicrosPerRequest)] : []),
          ];
        }),
      ),
    );
    lines.push(
      '',
      `CPU time the hypervisor gave to other machines: ${n(bench.stolenPercent)} %; load average ${bench.loadAverage.join(' → ')}.`,
    );
  }
  return lines;
}

function experimentsSection(result) {
  const lines = [
    '## Reads with running experiments',
    '',
    '`npm run bench -- experiments` (or `node bench/experiments.mjs --repeat 5 [--stores postgres]`) seeds the',
    "service bench's users and flows twice, and starts one service on each: one with no experiments, one with an",
    '`experiments.yaml` of 10 running experiments, each a control against two of the flows. Every user is read once',
    '(at 8 connections, which records the exposures on the second service), then once more one at a time with a group',
    'that makes the group-targeted flows eligible too, so every exposure a measured read could make is in place.',
    sideBySideMethod(result, 'with experiments as a share of the same read without'),
    `Target: each read with experiments at least ${n(result.budgetPercent)} % of the same read without.`,
  ];
  for (const [store, bench] of Object.entries(result.stores)) {
    const { shape, firstReads } = bench;
    lines.push('', `### On ${storeName(store)}`, '');
    lines.push(
      `${n(bench.users)} users, ${n(bench.flows)} flows, ${n(bench.experiments)} experiments; per read (${n(shape.sample)} users) exposed to ${n(shape.experimentsExposedTo)} experiments, ${n(shape.heldBack)} flows held back. ${result.repeat} runs of ${n(result.duration)} s per side and row. The first reads, which record the exposures: ${n(firstReads.with.perSecond)} a second (${n(firstReads.with.shed)} shed), against ${n(firstReads.without.perSecond)} (${n(firstReads.without.shed)} shed) without.`,
      '',
    );
    lines.push(comparisonTable(bench));
    lines.push(
      '',
      `CPU time the hypervisor gave to other machines: ${n(bench.stolenPercent)} %; load average ${bench.loadAverage.join(' → ')}.`,
    );
  }
  return lines;
}

/** A side-by-side read bench's rows on one store, without and with its feature. */
function comparisonTable(bench) {
  return table(
    ['Read', 'Connections', 'Without 2xx/s', 'With 2xx/s', 'Share', 'Without p99 ms', 'With p99 ms'],
    bench.comparison.map((row) => {
      const index = bench.rows.without[row.name].findIndex((r) => r.connections === row.connections);
      const [without, withRow] = [bench.rows.without[row.name][index], bench.rows.with[row.name][index]];
      return [
        row.name,
        n(row.connections),
        n(row.without),
        n(row.with),
        `${row.percent} %: ${mark(row.met)}`,
        n(without?.p99),
        n(withRow?.p99),
      ];
    }),
  );
}

function durabilitySection(result) {
  const rows = result.comparison.map((row) => {
    const index = result.rows.on[row.name].findIndex((r) => r.connections === row.connections);
    const [off, on] = [result.rows.off[row.name][index], result.rows.on[row.name][index]];
    return [
      row.name,
      n(row.connections),
      n(row.off),
      n(row.on),
      `${(on.shares ?? []).map((share) => `${Math.round(100 * share)} %`).join(' ')}`,
      `${row.percent} %: ${mark(row.met)}`,
      `${n(off.p99)} / ${n(on.p99)}`,
      `${n(off.cpuMicrosPerRequest)} / ${n(on.cpuMicrosPerRequest)}`,
    ];
  });
  return [
    '## Writes synced to disk',
    '',
    "`npm run bench -- durability` (or `node bench/durability.mjs --connections 1,16`) seeds the service bench's",
    'users and flows twice on the embedded store and starts one service on each: one with `--fsync on`, the default,',
    "which syncs each write's WAL to disk before it answers, and one with `--fsync off`, which leaves writes in the",
    "operating system's cache ([what a write survives](deployment.md#what-an-acknowledged-write-survives)). Every user",
    "is read once, then each write is loaded on both in turn, after one uncounted run each; a row's share is the median",
    "of the rounds' writes a second with syncing as a share of those without.",
    `Target: syncing, to stay the default, keeps at least ${n(result.budgetPercent)} % of the writes a second.`,
    '',
    `${n(result.users)} users, ${n(result.flows)} flows; ${result.repeat} runs of ${n(result.duration)} s per side and row.`,
    '',
    table(
      [
        'Write',
        'Connections',
        'Off 2xx/s',
        'On 2xx/s',
        'On / off, by round',
        'Share',
        'p99 ms, off / on',
        'CPU µs a write, off / on',
      ],
      rows,
    ),
    '',
    `CPU time the hypervisor gave to other machines: ${n(result.stolenPercent)} %; load average ${result.loadAverage.join(' → ')}.`,
  ];
}

function limitsSection(result) {
  const lines = [
    '## Reads with global limits and schedules',
    '',
    '`npm run bench -- limits` (or `node bench/limits.mjs --repeat 5 [--stores postgres]`) seeds the service',
    "bench's users and flows twice, with first starts for half the users (three flows each, at times in the last two",
    'days), and starts one service on each: one as today, one with a `limits.yaml` of 3 limits (every checklist 3 a',
    'day, 10 flows 6 hours apart, 20 flows 5 a week), 20 flows with a schedule in force and one that ignores the limits.',
    'Every user is read once, then once more one at a time.',
    sideBySideMethod(result, 'with limits as a share of the same read without'),
    `Target: each read with limits at least ${n(result.budgetPercent)} % of the same read without.`,
  ];
  for (const [store, bench] of Object.entries(result.stores)) {
    const { shape } = bench;
    lines.push('', `### On ${storeName(store)}`, '');
    lines.push(
      `${n(bench.users)} users, ${n(bench.flows)} flows, ${n(bench.limits)} limits, ${n(bench.scheduled)} scheduled flows; per read (${n(shape.sample)} users) ${n(shape.heldBack)} flows held back, ${n(shape.usersHeldBack)} % of users with one held back. ${result.repeat} runs of ${n(result.duration)} s per side and row.`,
      '',
    );
    lines.push(comparisonTable(bench));
    lines.push(
      '',
      `CPU time the hypervisor gave to other machines: ${n(bench.stolenPercent)} %; load average ${bench.loadAverage.join(' → ')}.`,
    );
  }
  return lines;
}

function spreadSection(result) {
  const lines = [
    "## The side-by-side benches' own spread",
    '',
    '`npm run bench -- spread` (or `node bench/limits.mjs --same --repeat 5`) runs the limits bench with both',
    'services without limits or schedules: an A/A run, in the same rounds as the benches above. Every share in it would',
    'be 100 % on a quiet machine; how far they stray is how far a share above can stray with no cost behind it.',
  ];
  for (const [store, bench] of Object.entries(result.stores)) {
    const percents = bench.comparison.map((row) => row.percent);
    lines.push('', `### On ${storeName(store)}`, '');
    lines.push(
      `${n(bench.users)} users, ${n(bench.flows)} flows on both services; ${result.repeat} runs of ${n(result.duration)} s per side and row. Shares from ${Math.min(...percents)} to ${Math.max(...percents)} %; ${bench.comparison.filter((row) => !row.met).length} of ${bench.comparison.length} rows under ${n(result.budgetPercent)} %.`,
      '',
    );
    lines.push(comparisonTable(bench));
  }
  return lines;
}

function analyticsSection(result) {
  return [
    '## Analytics',
    '',
    '`npm run bench -- analytics`. On the embedded store, each analytics endpoint is timed on a seeded history;',
    'target: under 500 ms at p95 (for the full CSV export, to its first byte; then it streams every row).',
    `${n(result.users)} users, ${n(result.flows)} flows, ${n(result.flowRuns)} flow runs, ${n(result.stepFacts)} step facts, ${n(result.responses)} responses`,
    `(${n(result.surveyAnswers)} survey answers), seeded in ${n(result.seedSeconds)} s; ${n(result.runs)} timed calls each.`,
    '',
    table(
      ['Endpoint', 'p50 ms', 'p95 ms', 'Max ms', 'First byte p50 ms', 'Bytes', 'Under 500 ms'],
      Object.entries(result.rows).map(([name, row]) => {
        const byFirstByte = row.judgedBy === 'firstByte';
        return [
          name,
          n(row.p50),
          n(row.p95),
          n(row.max),
          n(row.firstByteP50),
          n(row.bytes),
          `${mark((byFirstByte ? row.firstByteP50 : row.p95) < 500)}${byFirstByte ? ' (first byte)' : ''}`,
        ];
      }),
    ),
  ];
}

function attackSection(result) {
  return [
    '## One user bloated by a public key',
    '',
    '`npm run bench -- attack`. One user gets many transitions with the largest `data` allowed, then waves of',
    'concurrent reads of that user; answers must stay bounded and memory flat (target: RSS growth under 100 MiB).',
    `${n(result.transitions)} transitions of ${n(result.dataBytes)} B in ${n(result.bloatSeconds)} s; the state answer after ${result.answerBytes.map((a) => `${n(a.after)} transitions is ${n(a.bytes)} B`).join(', after ')}.`,
    '',
    table(
      ['Concurrent reads', '200s', 'Largest answer B', 'Slowest ms', 'Wave ms', 'Peak RSS MiB'],
      result.waves.map((w) => [n(w.concurrency), n(w.ok), n(w.maxBytes), n(w.slowestMs), n(w.waveMs), n(w.peakRssMiB)]),
    ),
    '',
    `RSS ${n(result.idleRssMiB)} MiB idle, ${n(result.rssBeforeWavesMiB)} MiB before the waves; it grew ${n(result.rssGrowthMiB)} MiB during them: ${mark(result.rssGrowthMiB < 100)}.`,
  ];
}

const SECTIONS = [
  ['size', sizeSection],
  ['round-trips', roundTripsSection],
  ['main-thread', mainThreadSection],
  ['targets', targetsSection],
  ['start-rules', startRulesSection],
  ['locale', localeSection],
  ['locale-answer', localeAnswerSection],
  ['service', serviceSection],
  ['durability', durabilitySection],
  ['collections', collectionsSection],
  ['experiments', experimentsSection],
  ['limits', limitsSection],
  ['spread', spreadSection],
  ['analytics', analyticsSection],
  ['attack', attackSection],
];

/** The markdown of docs/performance.md for the figures of bench/results.json; a bench not in them is left out. */
export function performanceDoc(results) {
  const machine = results.machine ?? {};
  const lines = [
    '# Performance',
    '',
    '<!-- Written by `npm run bench` from bench/results.json (bench/performance-doc.mjs); edit those, not this file. -->',
    '',
    'What the script costs a page and what the service serves, as measured by `npm run bench`. It builds, runs the',
    'benches in `bench/` (`npm run bench -- size` runs one), prints their tables, keeps every figure in',
    "`bench/results.json` and writes this page from it. A run of some benches keeps the others' figures from earlier runs.",
    '',
    `The last run: ${machine.at ? machine.at.slice(0, 10) : 'unknown date'}, Node ${machine.node ?? '?'} on ${machine.platform ?? '?'}. Timings come from one machine,`,
    'often shared with other work, and vary between runs; compare a figure with the others of the same run. `npm test`',
    "asserts the deterministic ones: each file's gzip budget, and the round trips and requests before a first flow.",
    'What the embedded store and PostgreSQL are each suited to is in [deployment](deployment.md#choosing-a-store).',
  ];
  for (const [name, section] of SECTIONS) {
    if (results[name]) lines.push('', ...section(results[name]));
  }
  return `${lines.join('\n')}\n`;
}

/** Writes docs/performance.md from bench/results.json. */
export function writePerformanceDoc() {
  writeFileSync(docPath, performanceDoc(JSON.parse(readFileSync(resultsPath, 'utf8'))));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) writePerformanceDoc();
