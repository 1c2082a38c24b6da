// Database schema, applied in numbered steps so an existing data directory is upgraded in place.
import type { Database } from './database.js';

const MIGRATIONS: string[] = [
  `
  CREATE TABLE api_keys (
    key text PRIMARY KEY,
    scope text NOT NULL CHECK (scope IN ('public', 'private')),
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE users (
    id text PRIMARY KEY,
    properties jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE user_events (
    id bigserial PRIMARY KEY,
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
    event text NOT NULL,
    properties jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX user_events_user ON user_events(user_id);
  CREATE TABLE groups (
    id text PRIMARY KEY,
    properties jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE group_events (
    id bigserial PRIMARY KEY,
    group_id text NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
    event text NOT NULL,
    properties jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX group_events_group ON group_events(group_id);
  CREATE TABLE group_members (
    group_id text NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
    PRIMARY KEY (group_id, user_id)
  );
  CREATE TABLE flows (
    id serial PRIMARY KEY,
    slug text NOT NULL,
    version integer NOT NULL,
    name text NOT NULL,
    type text NOT NULL,
    status text NOT NULL,
    targeting_logic text NOT NULL DEFAULT '',
    data jsonb NOT NULL,
    content_hash text NOT NULL,
    code_snippet text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    modified_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (slug, version)
  );
  CREATE TABLE flow_states (
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
    flow_slug text NOT NULL,
    current_step_id text,
    started boolean NOT NULL DEFAULT false,
    completed boolean NOT NULL DEFAULT false,
    skipped boolean NOT NULL DEFAULT false,
    last_action_at timestamptz,
    PRIMARY KEY (user_id, flow_slug)
  );
  CREATE TABLE step_states (
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
    flow_slug text NOT NULL,
    step_id text NOT NULL,
    started boolean NOT NULL DEFAULT false,
    completed boolean NOT NULL DEFAULT false,
    skipped boolean NOT NULL DEFAULT false,
    data jsonb,
    last_action_at timestamptz,
    PRIMARY KEY (user_id, flow_slug, step_id)
  );
  CREATE TABLE flow_responses (
    id bigserial PRIMARY KEY,
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
    flow_slug text NOT NULL,
    step_id text NOT NULL,
    action_type text NOT NULL,
    data text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX flow_responses_user_flow ON flow_responses(user_id, flow_slug);
  CREATE TABLE idempotency_keys (
    api_key text NOT NULL,
    key text NOT NULL,
    user_id text,
    request_hash text NOT NULL,
    status integer NOT NULL,
    body text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (api_key, key)
  );
  CREATE INDEX idempotency_keys_user ON idempotency_keys(user_id);
  `,
  // 2: the page a flow response was made on (the `context.url` of the write).
  `
  ALTER TABLE flow_responses ADD COLUMN url text;
  `,
  // 3: event counts kept beside the event logs, so a read looks counts up instead of counting the log;
  // the index a read needs to find a user's groups, and the one the hourly sweep of old idempotency keys needs.
  `
  CREATE TABLE user_event_counts (
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
    event text NOT NULL,
    count bigint NOT NULL,
    PRIMARY KEY (user_id, event)
  );
  INSERT INTO user_event_counts (user_id, event, count) SELECT user_id, event, count(*) FROM user_events GROUP BY user_id, event;
  CREATE TABLE group_event_counts (
    group_id text NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
    event text NOT NULL,
    count bigint NOT NULL,
    PRIMARY KEY (group_id, event)
  );
  INSERT INTO group_event_counts (group_id, event, count) SELECT group_id, event, count(*) FROM group_events GROUP BY group_id, event;
  CREATE INDEX group_members_user ON group_members(user_id);
  CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
  `,
  // 4: where each linked guest went, so a guest's write that arrives after the link (a retry, a
  // second tab) lands on the user instead of making an orphan guest.
  `
  CREATE TABLE guest_links (
    guest_id text PRIMARY KEY,
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
    linked_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX guest_links_user ON guest_links(user_id);
  `,
  // 5: rate-limit counters shared by every instance on one PostgreSQL; disposable, so unlogged.
  `
  CREATE UNLOGGED TABLE rate_limits (
    key text PRIMARY KEY,
    window_end timestamptz NOT NULL,
    count integer NOT NULL
  );
  `,
];

/** The schema version this build needs: `/readyz` answers 503 until the database has it. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the schema up to date, in one transaction under an advisory lock: several instances
 * starting at once on one PostgreSQL run the migrations once, and the others wait and find them done.
 * Returns the versions it applied.
 */
export async function migrate(db: Database): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('onboarding:migrate'))");
    await tx.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const applied = new Set((await tx.query<{ version: number }>('SELECT version FROM schema_migrations')).map((row) => row.version));
    const done: number[] = [];
    for (const [index, sql] of MIGRATIONS.entries()) {
      const version = index + 1;
      if (applied.has(version)) continue;
      for (const statement of sql.split(';').map((s) => s.trim()).filter(Boolean)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
      done.push(version);
    }
    return done;
  });
}

/** The newest schema version the database has. */
export async function schemaVersion(db: Pick<Database, 'query'>): Promise<number> {
  const [row] = await db.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  return row?.version ?? 0;
}
