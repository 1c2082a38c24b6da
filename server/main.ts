// Command line: `npm run server -- --port <n> --flows <dir> --database <memory|path|postgres-url>`, and `migrate`.
import { realpathSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_LIMITS } from './shared/limits.js';
import { LIMIT_SETTINGS, resolveLimits, resolveTrustProxy } from './config.js';
import { resolveIdentity } from './http/identity.js';
import { startPreview } from './preview/server.js';
import { startService } from './service.js';
import { openDatabase } from './storage/database.js';
import { schemaVersion } from './storage/schema.js';
import { endpointsFromSettings } from './webhooks/config.js';

export { startService } from './service.js';
// The analytics benchmark seeds the rollups from its facts with the service's own SQL.
export { ROLLUPS_FROM_FACTS_SQL } from './analytics/progress.js';
export type { ServiceOptions, RunningService } from './service.js';
export { startPreview } from './preview/server.js';
export type { PreviewOptions, RunningPreview } from './preview/server.js';

const USAGE = `Usage: onboarding-server [migrate] [--port 3100] [--host 127.0.0.1] [--flows ./flows] [--database memory|<dir>|postgres://…] [--fsync on|off]
                         [--max-body-bytes n] [--max-events n] [--max-properties n] [--rate-limit n]
                         [--max-data-bytes n] [--max-stored-properties n] [--max-stored-property-bytes n] [--max-stored-event-names n]
                         [--identity-secret s1,s2] [--require-identity] [--trust-proxy true|<hops>|<addresses>]
                         [--private-rate-limit n] [--user-write-limit n] [--rate-limit-exact] [--max-wait-ms ms] [--max-event-loop-delay ms] [--cache-users n] [--pool-size n]
                         [--webhook url]… [--webhook-secret s] [--webhook-events e1,e2] [--dashboard]
                         [--preview [--preview-port 3101] [--preview-host 127.0.0.1]]

  migrate     bring the database schema up to date and exit (starting the service does it too)

Where (flag, or environment variable; default):
  --port      ONBOARDING_PORT       3100
  --host      ONBOARDING_HOST       127.0.0.1 (0.0.0.0 in a container)
  --flows     ONBOARDING_FLOWS      ./flows
  --database  ONBOARDING_DATABASE   ./.data/onboarding   (memory, a data directory, or a postgres:// URL)
  --fsync     ONBOARDING_FSYNC      on                   (a data directory: each write reaches the disk before it is
                                                          answered; off keeps it in the OS cache, lost to a power cut)

Limits (flag, or environment variable; default):
${LIMIT_SETTINGS.map((s) => `  --${s.flag.padEnd(26)} ${s.env.padEnd(37)} ${String(DEFAULT_LIMITS[s.key]).padStart(7)}  ${s.meaning}`).join('\n')}

Rate limits on PostgreSQL: each instance counts in memory up to its share of a limit, and past it in PostgreSQL,
so every instance refuses a visitor over the limit (docs/protocol.md#rate-limits gives how far over it one can get).
--rate-limit-exact (ONBOARDING_RATE_LIMIT_EXACT=true) counts every request there instead: exact, at a write each.

Keys come from ONBOARDING_PUBLIC_KEYS and ONBOARDING_PRIVATE_KEYS (comma-separated).
When both are unset, a key pair is made on first start, kept with the data, and printed.

Identity verification: --identity-secret (ONBOARDING_IDENTITY_SECRET), comma-separated so one can be
rotated, and --require-identity (ONBOARDING_REQUIRE_IDENTITY=true): public-key requests that name a
user then need userHash = hex(HMAC-SHA256(secret, userId)). See docs/security.md.

Webhooks: --webhook (repeatable; ONBOARDING_WEBHOOK_URLS, comma-separated) with --webhook-secret
(ONBOARDING_WEBHOOK_SECRET, at least 16 characters) and --webhook-events (ONBOARDING_WEBHOOK_EVENTS, comma-separated;
default every event), and/or webhooks.yaml in the flow folder. See docs/analytics.md.

Dashboard: --dashboard (ONBOARDING_DASHBOARD=true) serves the analytics dashboard at /dashboard; sign in with a private key.

Development: --preview serves a live preview of every flow in the folder, drawn by the real elements in
light, dark and right-to-left, on its own port (--preview-port, default 3101), reloading as files change.
It shows drafts and needs no key: do not turn it on in production. It listens on 127.0.0.1 whatever --host
says (--preview-host sets another address), and answers only requests whose Host is that address, or
localhost, 127.0.0.1 or [::1] on loopback, with its port: any other is 421.`;

/** A database address fit to print: a URL's password is hidden. */
export function redactDatabase(location: string): string {
  try {
    const url = new URL(location);
    if (!url.password) return location;
    url.password = '***';
    return url.toString();
  } catch {
    return location;
  }
}

export async function main(argv: string[]): Promise<void> {
  const env = process.env;
  const command = argv[0] === 'migrate' ? 'migrate' : 'serve';
  if (command === 'migrate') argv = argv.slice(1);
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: env.ONBOARDING_PORT ?? '3100' },
        host: { type: 'string', default: env.ONBOARDING_HOST ?? '127.0.0.1' },
        flows: { type: 'string', default: env.ONBOARDING_FLOWS ?? './flows' },
        database: { type: 'string', default: env.ONBOARDING_DATABASE ?? './.data/onboarding' },
        fsync: { type: 'string', default: env.ONBOARDING_FSYNC ?? 'on' },
        help: { type: 'boolean', default: false },
        'identity-secret': { type: 'string' },
        'trust-proxy': { type: 'string' },
        'require-identity': { type: 'boolean' },
        webhook: { type: 'string', multiple: true },
        'webhook-secret': { type: 'string' },
        'webhook-events': { type: 'string' },
        dashboard: { type: 'boolean', default: env.ONBOARDING_DASHBOARD === 'true' },
        'rate-limit-exact': { type: 'boolean', default: env.ONBOARDING_RATE_LIMIT_EXACT === 'true' },
        preview: { type: 'boolean', default: false },
        'preview-port': { type: 'string', default: '3101' },
        // Not --host: the service may face the network, the preview (drafts, no key) only on purpose.
        'preview-host': { type: 'string', default: '127.0.0.1' },
        ...Object.fromEntries(LIMIT_SETTINGS.map((setting) => [setting.flag, { type: 'string' as const }])),
      },
    }));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (command === 'migrate') {
    const db = await openDatabase(values.database, { cacheUsers: 0 });
    const version = await schemaVersion(db);
    await db.close();
    console.log(`Database ${redactDatabase(values.database)} is at schema version ${version}.`);
    return;
  }
  if (values.fsync !== 'on' && values.fsync !== 'off') {
    console.error(`--fsync must be on or off; got "${values.fsync}"\n\n${USAGE}`);
    process.exit(2);
  }
  const port = Number(values.port);
  const previewPort = Number(values['preview-port']);
  for (const [flag, value] of [
    ['--port', port],
    ['--preview-port', previewPort],
  ] as const) {
    if (!Number.isInteger(value) || value < 0 || value > 65535) {
      console.error(`${flag} must be a number from 0 to 65535\n\n${USAGE}`);
      process.exit(2);
    }
  }
  // An empty address would listen on every one.
  if (values['preview-host'].trim() === '') {
    console.error(`--preview-host must be an address to listen on, such as 127.0.0.1\n\n${USAGE}`);
    process.exit(2);
  }
  let limits;
  let identity;
  let trustProxy;
  let endpoints;
  try {
    limits = resolveLimits(values as unknown as Record<string, string | undefined>, process.env);
    trustProxy = resolveTrustProxy(values['trust-proxy'], process.env);
    identity = resolveIdentity({ secret: values['identity-secret'], require: values['require-identity'] }, process.env);
    endpoints = endpointsFromSettings(
      { urls: values.webhook, secret: values['webhook-secret'], events: values['webhook-events'] },
      process.env,
    );
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exit(2);
  }
  const service = await startService({
    limits,
    identity,
    trustProxy,
    webhooks: { endpoints },
    dashboard: values.dashboard,
    exactRateLimits: values['rate-limit-exact'],
    port,
    host: values.host,
    flows: values.flows,
    database: values.database,
    fsync: values.fsync === 'on',
    httpLog: true,
    logger: { warn: (m) => console.warn(`[onboarding] ${m}`), info: (m) => console.log(`[onboarding] ${m}`) },
  });
  const preview = values.preview
    ? await startPreview({ catalog: service.catalog, host: values['preview-host'], port: previewPort })
    : undefined;
  console.log(`Onboarding service listening on ${service.url}`);
  console.log(`  flows:    ${values.flows} (${service.catalog.list().length} loaded)`);
  console.log(`  database: ${redactDatabase(values.database)}`);
  console.log(`  limits:   ${LIMIT_SETTINGS.map((s) => `${s.flag} ${limits[s.key]}`).join(', ')}`);
  if (service.db.kind === 'postgres') {
    const seen = service.app.rateLimitCounts.instances;
    const counted = values['rate-limit-exact']
      ? 'every request counted in PostgreSQL (--rate-limit-exact)'
      : `in memory up to each instance's share, then in PostgreSQL (${seen === undefined ? 'instances not countable here: every request counted there' : `${seen} instance${seen > 1 ? 's' : ''} seen`})`;
    console.log(`  rate limiting: ${counted}`);
  }
  console.log(
    `  proxies:  ${trustProxy === false ? "not trusted (the visitor address is the connection's)" : `X-Forwarded-For trusted (${String(trustProxy)})`}`,
  );
  console.log(
    `  dashboard: ${values.dashboard ? `${service.url}/dashboard (sign in with a private key)` : 'off (--dashboard or ONBOARDING_DASHBOARD=true turns it on)'}`,
  );
  // Only the origin: a webhook URL may hold a token in its path.
  const hooks = service.webhooks.configured;
  console.log(
    `  webhooks: ${hooks.length === 0 ? 'none' : hooks.map((h) => `${new URL(h.url).origin}/… (${h.events?.join(', ') ?? 'every event'})`).join('; ')}`,
  );
  console.log(
    `  identity: ${identity.required ? `verification required (${identity.secrets.length} secret${identity.secrets.length > 1 ? 's' : ''})` : 'verification off'}`,
  );
  if (preview) console.log(`  preview:  ${preview.url} (development only)`);
  if (service.keys.generated) {
    console.log(`  public key:  ${service.keys.public[0]}`);
    console.log(`  private key: ${service.keys.private[0]}  (keep it secret)`);
  }
  if (service.script) {
    console.log(
      `  script:   ${service.url}/script/${service.script.build}/onboarding.js (cached for good; ${service.url}/onboarding.js follows upgrades)`,
    );
    console.log(
      `            <script src="${service.url}/script/${service.script.build}/onboarding.js" integrity="${service.script.integrity}" crossorigin="anonymous" data-public-key="…" data-api-url="${service.url}"></script>`,
    );
  } else {
    console.log('  script:   not built, so not served (npm run build)');
  }
  // On SIGTERM: stop accepting, let the requests in flight finish, then close the database.
  const stop = (signal: string) => {
    console.log(`[onboarding] ${signal}: finishing the requests in flight, then stopping`);
    Promise.all([preview?.close(), service.close()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

/**
 * Under load V8 lets its heap grow to up to four times the objects it keeps before it collects in full, and
 * the pages stay resident afterwards: on this service, whose live heap is some 30 MB, that is 100 MB or more
 * of garbage held as memory after a busy minute. The process lets it grow by half the live heap instead (no
 * throughput cost measured, on either store), unless the operator chose a factor of their own for node.
 */
function boundHeapGrowth(): void {
  const chosen = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((option) =>
    /heap[-_]growing[-_]percent/.test(option),
  );
  if (!chosen) setFlagsFromString('--heap-growing-percent=50');
}

const invokedDirectly =
  Boolean(process.argv[1]) && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (invokedDirectly) {
  boundHeapGrowth();
  main(process.argv.slice(2)).catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
