// Starts the whole service: storage, keys, the flow catalog (watched for changes) and the HTTP listener.
import { watch, type FSWatcher } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { DEFAULT_LIMITS, type Limits } from './shared/limits.js';
import { FlowCatalog, type Logger } from './flows/catalog.js';
import { resolveKeys, type ApiKeys } from './http/auth.js';
import { IDENTITY_OFF_WARNING, NO_IDENTITY, type IdentityConfig } from './http/identity.js';
import { openDatabase } from './storage/database.js';
import type { Database } from './storage/store.js';
import { loadScriptBuild, type ScriptBuild } from './routes/script.js';
import { loadDashboardBuild } from './routes/dashboard.js';
import { checkDistinct, endpointsFromFile, type WebhookEndpoint } from './webhooks/config.js';
import { DEFAULT_DELIVERY, WebhookDelivery, withEventSink, type DeliverySettings } from './webhooks/delivery.js';

export interface ServiceOptions {
  /** Port to listen on; 0 picks a free one. */
  port?: number;
  /** Address to listen on. @default '127.0.0.1' */
  host?: string;
  /** Folder of flow YAML files. */
  flows: string;
  /** `memory`, a data directory path, or a `postgres://` URL. @default 'memory' */
  database?: string;
  /** A data directory: sync each commit to disk before answering, so acknowledged writes survive a power cut. @default true */
  fsync?: boolean;
  limits?: Partial<Limits>;
  /** On PostgreSQL, count every request against the rate limits there (exact across instances, a write each). @default false */
  exactRateLimits?: boolean;
  /** Environment to read keys from. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Re-read the flow folder when a file changes. @default true */
  watchFlows?: boolean;
  logger?: Logger;
  /** Log requests that fail with a 5xx. @default false */
  httpLog?: boolean;
  /** Identity verification (userHash). @default off, with a warning at start */
  identity?: IdentityConfig;
  /** Adds the benchmark's ceiling route. @default ONBOARDING_BENCH_ROUTES=1 in the environment */
  benchRoutes?: boolean;
  /** Take visitor addresses from X-Forwarded-For: true, a hop count, or trusted proxy addresses. @default false */
  trustProxy?: boolean | number | string;
  /**
   * Webhook endpoints (from flags or environment variables; `webhooks.yaml` in the flow folder adds its own),
   * and the delivery's timing. @default none, and DEFAULT_DELIVERY
   */
  webhooks?: { endpoints?: WebhookEndpoint[]; delivery?: Partial<DeliverySettings> };
  /** Serve the analytics dashboard at /dashboard. @default false */
  dashboard?: boolean;
  /**
   * The service's clock: the time of writes that carry none, and what collection cool-offs are measured to
   * (tests move it). @default the system clock
   */
  now?: () => Date;
}

export interface RunningService {
  url: string;
  /** The built script this service serves, when there is one. */
  script: ScriptBuild | undefined;
  keys: ApiKeys;
  app: FastifyInstance;
  db: Database;
  catalog: FlowCatalog;
  /** The webhook outbox's delivery: its endpoints, as configured now. */
  webhooks: WebhookDelivery;
  close(): Promise<void>;
}

const quietLogger: Logger = { warn: () => {}, info: () => {} };
/** How long a shutdown waits for requests in flight before it closes their connections. */
const CLOSE_DEADLINE_MS = 10_000;

export async function startService(options: ServiceOptions): Promise<RunningService> {
  const log = options.logger ?? quietLogger;
  const storage = await openDatabase(options.database ?? 'memory', {
    cacheUsers: options.limits?.cacheUsers ?? DEFAULT_LIMITS.cacheUsers,
    cacheAnswerBytes: (options.limits?.cacheAnswersMb ?? DEFAULT_LIMITS.cacheAnswersMb) * 1024 * 1024,
    poolSize: options.limits?.poolSize ?? DEFAULT_LIMITS.poolSize,
    fsync: options.fsync ?? true,
  });
  const webhooks = new WebhookDelivery(storage, log, { ...DEFAULT_DELIVERY, ...options.webhooks?.delivery });
  // Transactions carry the outbox's routing, so every write path queues its events in its own transaction.
  const db = withEventSink(storage, webhooks);
  const env = options.env ?? process.env;
  const configuredEndpoints = options.webhooks?.endpoints ?? [];
  const webhookEndpoints = () => checkDistinct([...configuredEndpoints, ...endpointsFromFile(options.flows, env)]);
  let app: FastifyInstance | undefined;
  let keys: ApiKeys;
  let catalog: FlowCatalog;
  let script: ScriptBuild | undefined;
  const host = options.host ?? '127.0.0.1';
  try {
    keys = await resolveKeys(db, env);
    catalog = new FlowCatalog(db, options.flows, log);
    await catalog.load();
    webhooks.setEndpoints(webhookEndpoints());
    const identity = options.identity ?? NO_IDENTITY;
    const benchRoutes = options.benchRoutes ?? env.ONBOARDING_BENCH_ROUTES === '1';
    script = loadScriptBuild();
    const dashboard = options.dashboard ? (loadDashboardBuild() ?? null) : undefined;
    if (dashboard === null) log.warn('the dashboard is on but not built, so /dashboard answers 404; run npm run build');
    app = await buildApp(
      {
        db,
        catalog,
        keys,
        limits: { ...DEFAULT_LIMITS, ...options.limits },
        identity,
        benchRoutes,
        script,
        dashboard,
        exactRateLimits: options.exactRateLimits,
        now: options.now,
      },
      { logger: options.httpLog ?? false, trustProxy: options.trustProxy },
    );
    if (!identity.required) log.warn(IDENTITY_OFF_WARNING);
    await app.listen({ port: options.port ?? 0, host });
  } catch (error) {
    // A service that could not start lets go of its database (and the data directory's lock).
    await app?.close().catch(() => {});
    await webhooks.stop();
    await db.close().catch(() => {});
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  let watcher: FSWatcher | undefined;
  if (options.watchFlows !== false) {
    let timer: NodeJS.Timeout | undefined;
    let reloading = Promise.resolve();
    watcher = watch(options.flows, () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        reloading = reloading.then(() =>
          catalog.load().then(
            () => undefined,
            (error) => log.warn(`flow reload failed: ${String(error)}`),
          ),
        );
        reloading = reloading.then(() => {
          try {
            webhooks.setEndpoints(webhookEndpoints());
          } catch (error) {
            log.warn(
              `webhooks not reloaded, the previous endpoints stay: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
        });
      }, 100);
    });
    watcher.on('error', () => {});
  }
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    script,
    keys,
    app,
    db,
    catalog,
    webhooks,
    async close() {
      watcher?.close();
      // In-flight requests finish; a client that never reads its answer cannot hold the shutdown for ever.
      const deadline = setTimeout(() => app.server.closeAllConnections(), CLOSE_DEADLINE_MS);
      try {
        await app.close();
      } finally {
        clearTimeout(deadline);
      }
      // Events queued by the last requests stay in the outbox for the next start.
      await webhooks.stop();
      await db.close();
    },
  };
}
