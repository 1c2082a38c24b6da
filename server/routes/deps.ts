// What every route is given: the service's store, flow catalog, keys, limits and builds. Imports only types, from below the routes.
import type { FlowCatalog } from '../flows/catalog.js';
import type { ApiKeys } from '../http/auth.js';
import type { IdentityConfig } from '../http/identity.js';
import type { Limits } from '../shared/limits.js';
import type { Database } from '../storage/store.js';
import type { DashboardBuild } from './dashboard.js';
import type { ScriptBuild } from './script.js';

export interface AppDeps {
  db: Database;
  catalog: FlowCatalog;
  keys: ApiKeys;
  limits: Limits;
  identity: IdentityConfig;
  /** Adds the benchmark's ceiling route (`npm run bench` only). @default false */
  benchRoutes?: boolean;
  /** On PostgreSQL, count every request against the rate limits there: exact across instances, a write per request. @default false */
  exactRateLimits?: boolean;
  /** The built script the service serves; absent when it has not been built. */
  script?: ScriptBuild;
  /** The dashboard at /dashboard: absent when it is off, null when it is on but not built. @default off */
  dashboard?: DashboardBuild | null;
  /** The service's clock: the time of writes that carry none (tracked events among them), and what collection cool-offs, reshows and CEL's event windows are measured to. @default the system clock */
  now?: () => Date;
}

/** The time now, by the service's clock. */
export const nowOf = (deps: Pick<AppDeps, 'now'>): Date => deps.now?.() ?? new Date();
