// Starts a real service on loopback with in-memory PGlite (or a fresh PostgreSQL database) and a temporary flow folder, for tests.
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { startService, type RunningService, type ServiceOptions } from '../../server/service.js';

export const PUBLIC_KEY = 'pk_test_public';
export const PRIVATE_KEY = 'sk_test_private';

export interface TestService extends RunningService {
  flowsDir: string;
  /** Writes (or replaces) one flow file and reloads the catalog. */
  writeFlow(file: string, yaml: string): Promise<void>;
  /** Removes one flow file and reloads the catalog. */
  removeFlow(file: string): Promise<void>;
  call(
    method: string,
    path: string,
    init?: { key?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: any; text: string }>;
}

export async function startTestService(
  flows: Record<string, string>,
  options: Partial<ServiceOptions> = {},
): Promise<TestService> {
  const flowsDir = mkdtempSync(join(tmpdir(), 'onboarding-flows-'));
  for (const [file, yaml] of Object.entries(flows)) writeFileSync(join(flowsDir, file), yaml);
  const server = options.database ? undefined : await freshPostgresDatabase();
  let service: RunningService;
  try {
    service = await startService({
      flows: flowsDir,
      database: server?.url ?? 'memory',
      watchFlows: false,
      env: { ONBOARDING_PUBLIC_KEYS: PUBLIC_KEY, ONBOARDING_PRIVATE_KEYS: PRIVATE_KEY },
      ...(process.env.ONBOARDING_TEST_HTTP_LOG ? { httpLog: true } : {}),
      ...options,
      // Several services share a test process and its two cores, so one's start-up would look like another's stuck event
      // loop, and a busy moment like a long database queue: the tests of backpressure set their own guards.
      limits: { eventLoopDelayMs: 0, maxWaitMs: 60_000, ...options.limits },
    });
  } catch (error) {
    // A test of a service that must not start leaves nothing behind either.
    await server?.drop();
    rmSync(flowsDir, { recursive: true, force: true });
    throw error;
  }
  return {
    ...service,
    flowsDir,
    async writeFlow(file, yaml) {
      writeFileSync(join(flowsDir, file), yaml);
      await service.catalog.load();
    },
    async removeFlow(file) {
      unlinkSync(join(flowsDir, file));
      await service.catalog.load();
    },
    async call(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      const key = init.key === undefined ? PUBLIC_KEY : init.key;
      if (key !== null) headers.Authorization = `Bearer ${key}`;
      let body: string | undefined;
      if (init.body !== undefined) {
        body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
        headers['Content-Type'] ??= 'application/json';
      }
      const response = await fetch(service.url + path, { method, headers, body });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    async close() {
      await service.close();
      await server?.drop();
      rmSync(flowsDir, { recursive: true, force: true });
    },
  };
}

/**
 * Several service instances on one fresh PostgreSQL database (the `service-postgres` project's
 * server), started at the same moment, as a deployment behind a load balancer would run them.
 */
export async function startTestInstances(
  count: number,
  flows: Record<string, string>,
  options: Partial<ServiceOptions> = {},
): Promise<{ instances: TestService[]; database: string; close(): Promise<void> }> {
  const database = await freshPostgresDatabase();
  if (!database)
    throw new Error(
      'Several instances need PostgreSQL: run this in the service-postgres project, or set ONBOARDING_TEST_DATABASE.',
    );
  const instances = await Promise.all(
    Array.from({ length: count }, () => startTestService(flows, { ...options, database: database.url })),
  );
  return {
    instances,
    database: database.url,
    async close() {
      await Promise.all(instances.map((instance) => instance.close()));
      await database.drop();
    },
  };
}

/** The PostgreSQL server this run's test services use, or undefined on the embedded store. */
export const postgresServer = (): string | undefined => process.env.ONBOARDING_TEST_DATABASE ?? inject('postgresUrl');

/**
 * In the `service-postgres` project (its global setup starts a cluster), or with
 * `ONBOARDING_TEST_DATABASE=postgres://…` set, each test service gets a fresh database on that
 * server (dropped on close), so the service suite runs against real PostgreSQL through `pg`.
 */
export async function freshPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const base = postgresServer();
  if (!base) return undefined;
  const name = `onboarding_test_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export const bannerFlowYaml = (slug = 'welcome', title = 'Welcome aboard', subtitle = 'Start here') => `
slug: ${slug}
name: Welcome
type: BANNER
status: ACTIVE
data:
  steps:
    - id: hello
      title: ${title}
      subtitle: ${subtitle}
`;

const CHECKLIST_STEPS = ['one', 'two', 'three'];

/** A checklist flow with up to three steps, `one`, `two` and `three`, titled One, Two and Three. */
export const checklistYaml = (slug = 'setup', targeting = '', stepCount = 3) => `
slug: ${slug}
name: Set up
type: CHECKLIST
${targeting ? `targetingLogic: "${targeting}"` : ''}
data:
  steps:
${CHECKLIST_STEPS.slice(0, stepCount)
  .map((id) => `    - id: ${id}\n      title: ${id[0].toUpperCase()}${id.slice(1)}\n`)
  .join('')}`;

/** One CARD flow file per entry, each targeted by its CEL expression: `{ slug: expression }` → `{ 'slug.yaml': yaml }`. */
export const targetedCards = (expressions: Record<string, string>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(expressions).map(([slug, expression]) => [
      `${slug}.yaml`,
      `slug: ${slug}\nname: ${slug}\ntype: CARD\ntargetingLogic: ${JSON.stringify(expression)}\ndata:\n  steps:\n    - id: s\n`,
    ]),
  );

/** The slugs of the flows the user (in the group, if given) is eligible for now, sorted. */
export async function eligibleSlugs(service: TestService, userId: string, groupId?: string): Promise<string[]> {
  const query = `userId=${encodeURIComponent(userId)}${groupId ? `&groupId=${groupId}` : ''}`;
  const response = await service.call('GET', `/v1/public/flowStates?${query}`);
  if (response.status !== 200) throw new Error(`flowStates answered ${response.status}: ${response.text}`);
  return (response.body as { eligibleFlows: Array<{ flowSlug: string }> }).eligibleFlows.map((f) => f.flowSlug).sort();
}

/** A banner for users on the pro plan: it becomes eligible mid-session, when the page sends the property. */
export const PRO_BANNER_YAML = `
slug: pro-banner
name: Pro banner
type: BANNER
targetingLogic: "has(user.properties.plan) && user.properties.plan == 'pro'"
data:
  steps:
    - id: offer
      title: Your pro tools are ready
      subtitle: Drawn from the upsert's answer
`;
