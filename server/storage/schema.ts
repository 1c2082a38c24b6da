// Database schema, applied in numbered steps so an existing data directory is upgraded in place.
import type { Database } from './store.js';

/** The columns a response adds to flow_latest_responses from `r`, a row of flow_responses, in the table's order. */
const LATEST_COLUMNS = `r.user_id, r.flow_slug, r.action_type LIKE '%FLOW',
         CASE WHEN r.action_type LIKE '%FLOW' THEN '' ELSE r.step_id END, r.id, r.step_id, r.action_type, r.data, r.created_at`;

/** The newest of `rows` (flow_responses rows, as `r`) per user, flow and key, as rows of flow_latest_responses. */
const latestOf = (rows: string) => `SELECT DISTINCT ON (1, 2, 3, 4) ${LATEST_COLUMNS}
  FROM ${rows} AS r ORDER BY 1, 2, 3, 4, r.id DESC`;

/**
 * How many of a name's latest event times its count row keeps (migration 19). A read counts in a window from them
 * when they reach back past the window's start, or are all the name's events; otherwise it ranges over the log.
 */
export const KEPT_EVENT_TIMES = 32;

/** The latest KEPT_EVENT_TIMES times of one name of `log` (events of `key` = c's), epoch ms, oldest first. */
const latestTimesOf = (log: string, key: string) => `(SELECT coalesce(array_agg(t ORDER BY t), '{}') FROM (
      SELECT (extract(epoch FROM e.created_at) * 1000)::float8 AS t FROM ${log} AS e
      WHERE e.${key} = c.${key} AND e.event = c.event ORDER BY e.created_at DESC LIMIT ${KEPT_EVENT_TIMES}) AS kept)`;

/**
 * The times kept beside one event log's counts (`counts`, the rows of entities keyed by `key`): made from the log
 * once, then kept by two triggers on the log. Appended events merge into their name's times; events changed in place
 * (moved to another user, a guest linked; a time set by hand) make the times of every name they touch again.
 */
const keptTimes = (log: string, counts: string, key: string) => `
  ALTER TABLE ${counts} ADD COLUMN times float8[] NOT NULL DEFAULT '{}';
  UPDATE ${counts} AS c SET times = ${latestTimesOf(log, key)};
  CREATE FUNCTION ${counts}_append() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE ${counts} AS c SET times = (SELECT array_agg(t ORDER BY t) FROM (
        SELECT t FROM unnest(c.times || a.times) AS t ORDER BY t DESC LIMIT ${KEPT_EVENT_TIMES}) AS kept)
      FROM (SELECT ${key}, event, array_agg((extract(epoch FROM created_at) * 1000)::float8) AS times
            FROM appended GROUP BY ${key}, event) AS a
      WHERE c.${key} = a.${key} AND c.event = a.event;
    RETURN NULL;
  END $$;
  CREATE TRIGGER ${log}_times AFTER INSERT ON ${log}
    REFERENCING NEW TABLE AS appended FOR EACH STATEMENT EXECUTE FUNCTION ${counts}_append();
  CREATE FUNCTION ${counts}_remake() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE ${counts} AS c SET times = ${latestTimesOf(log, key)}
      WHERE (c.${key}, c.event) IN (SELECT ${key}, event FROM old_rows UNION SELECT ${key}, event FROM new_rows);
    RETURN NULL;
  END $$;
  CREATE TRIGGER ${log}_times_changed AFTER UPDATE ON ${log}
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${counts}_remake();
`;

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
  // 6: analytics. Each new response records the flow version it was made on (older rows stay NULL: unknown).
  // Each user's first start, completion and skip of a flow and of its steps (the facts), and counts per flow,
  // UTC day of first start, version and step (the rollups), kept at write time so a report reads a few rows
  // per day instead of the response log. The facts go with the user; the rollups are counts, and a deleted
  // user is subtracted from them. The existing log is folded in once, as version 0 (unknown); the service's
  // own bootstrap completions are not views, so they are left out.
  `
  ALTER TABLE flow_responses ADD COLUMN flow_version integer;
  CREATE INDEX flow_responses_answers ON flow_responses (flow_slug, created_at, id) WHERE action_type = 'COMPLETED_STEP';
  CREATE TABLE analytics_flow_users (
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
    flow_slug text NOT NULL,
    flow_version integer NOT NULL,
    started_at timestamptz NOT NULL,
    completed_at timestamptz,
    skipped_at timestamptz,
    PRIMARY KEY (user_id, flow_slug)
  );
  CREATE TABLE analytics_step_users (
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
    flow_slug text NOT NULL,
    step_id text NOT NULL,
    reached_at timestamptz NOT NULL,
    completed_at timestamptz,
    skipped_at timestamptz,
    PRIMARY KEY (user_id, flow_slug, step_id)
  );
  CREATE TABLE analytics_daily (
    flow_slug text NOT NULL,
    day date NOT NULL,
    flow_version integer NOT NULL,
    step_id text NOT NULL,
    started bigint NOT NULL DEFAULT 0,
    completed bigint NOT NULL DEFAULT 0,
    skipped bigint NOT NULL DEFAULT 0,
    reached bigint NOT NULL DEFAULT 0,
    dropped bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (flow_slug, day, flow_version, step_id)
  );
  CREATE INDEX analytics_daily_flows ON analytics_daily (day) WHERE step_id = '';
  CREATE TABLE analytics_durations (
    flow_slug text NOT NULL,
    day date NOT NULL,
    flow_version integer NOT NULL,
    bucket smallint NOT NULL,
    count bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (flow_slug, day, flow_version, bucket)
  );
  CREATE INDEX analytics_durations_day ON analytics_durations (day);
  INSERT INTO analytics_flow_users (user_id, flow_slug, flow_version, started_at, completed_at, skipped_at)
    SELECT user_id, flow_slug, 0, min(created_at),
           min(created_at) FILTER (WHERE action_type = 'COMPLETED_FLOW'), min(created_at) FILTER (WHERE action_type = 'SKIPPED_FLOW')
    FROM flow_responses
    WHERE action_type NOT IN ('NOT_STARTED_FLOW', 'NOT_STARTED_STEP') AND data <> '{"reason":"bootstrap"}'
    GROUP BY user_id, flow_slug;
  INSERT INTO analytics_step_users (user_id, flow_slug, step_id, reached_at, completed_at, skipped_at)
    SELECT r.user_id, r.flow_slug, r.step_id, min(r.created_at),
           min(r.created_at) FILTER (WHERE r.action_type = 'COMPLETED_STEP'), min(r.created_at) FILTER (WHERE r.action_type = 'SKIPPED_STEP')
    FROM flow_responses r JOIN analytics_flow_users f ON f.user_id = r.user_id AND f.flow_slug = r.flow_slug
    WHERE r.action_type IN ('STARTED_STEP', 'COMPLETED_STEP', 'SKIPPED_STEP') AND r.data <> '{"reason":"bootstrap"}'
    GROUP BY r.user_id, r.flow_slug, r.step_id;
  INSERT INTO analytics_daily (flow_slug, day, flow_version, step_id, started, completed, skipped)
    SELECT flow_slug, (started_at AT TIME ZONE 'UTC')::date, flow_version, '', count(*), count(completed_at), count(skipped_at)
    FROM analytics_flow_users GROUP BY 1, 2, 3;
  INSERT INTO analytics_daily (flow_slug, day, flow_version, step_id, reached, completed, skipped, dropped)
    SELECT s.flow_slug, (f.started_at AT TIME ZONE 'UTC')::date, f.flow_version, s.step_id, count(*), count(s.completed_at), count(s.skipped_at),
           count(*) FILTER (WHERE s.completed_at IS NULL AND s.skipped_at IS NULL AND f.completed_at IS NULL)
    FROM analytics_step_users s JOIN analytics_flow_users f ON f.user_id = s.user_id AND f.flow_slug = s.flow_slug
    GROUP BY 1, 2, 3, 4;
  INSERT INTO analytics_durations (flow_slug, day, flow_version, bucket, count)
    SELECT flow_slug, day, flow_version, bucket, count(*) FROM (
      SELECT flow_slug, (started_at AT TIME ZONE 'UTC')::date AS day, flow_version,
             CASE WHEN completed_at - started_at < interval '1 second' THEN 0
                  ELSE LEAST(1 + floor(4 * log(2.0, extract(epoch FROM completed_at - started_at)::numeric)), 127) END AS bucket
      FROM analytics_flow_users WHERE completed_at IS NOT NULL
    ) AS d GROUP BY 1, 2, 3, 4;
  `,
  // 7: the webhook outbox: one row per event and endpoint, written in the transaction that made the change,
  // claimed by one instance at a time (a lease in next_attempt_at), deleted once delivered. Rows that ran out
  // of attempts keep failed_at for a week. user_id ties a row to its user, so deleting the user deletes it.
  `
  CREATE TABLE webhook_outbox (
    id bigserial PRIMARY KEY,
    event_id text NOT NULL,
    endpoint text NOT NULL,
    event_type text NOT NULL,
    user_id text,
    payload text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_error text,
    failed_at timestamptz,
    UNIQUE (event_id, endpoint)
  );
  CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at, id) WHERE failed_at IS NULL;
  CREATE INDEX webhook_outbox_failed ON webhook_outbox (failed_at) WHERE failed_at IS NOT NULL;
  CREATE INDEX webhook_outbox_user ON webhook_outbox (user_id);
  `,
  // 8: survey answers counted at write time, so a survey's report reads a few rows a day instead of every answer:
  // per flow, UTC day of the answer, version (0: unknown) and step, the step's answers (value '') and how often each
  // value came (JSON text; a list counts each item; strings over 100 characters are comments, not counted). A
  // deleted user's answers are subtracted. The log is folded in once. The latest comments of a step are read
  // from the log through an index by step.
  `
  CREATE TABLE analytics_answers (
    flow_slug text NOT NULL,
    day date NOT NULL,
    flow_version integer NOT NULL,
    step_id text NOT NULL,
    value text NOT NULL,
    count bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (flow_slug, day, flow_version, step_id, value)
  );
  CREATE INDEX flow_responses_step_answers ON flow_responses (flow_slug, step_id, created_at, id) WHERE action_type = 'COMPLETED_STEP';
  INSERT INTO analytics_answers (flow_slug, day, flow_version, step_id, value, count)
    SELECT r.flow_slug, (r.created_at AT TIME ZONE 'UTC')::date, coalesce(r.flow_version, 0), r.step_id, v.value, count(*)
    FROM flow_responses AS r
    CROSS JOIN LATERAL (SELECT r.data::jsonb AS doc) AS d
    CROSS JOIN LATERAL (
      SELECT '' AS value
      UNION ALL
      SELECT e::text FROM jsonb_array_elements(CASE jsonb_typeof(d.doc -> 'value') WHEN 'array' THEN d.doc -> 'value' ELSE jsonb_build_array(d.doc -> 'value') END) AS e
      WHERE jsonb_typeof(e) IN ('number', 'boolean') OR (jsonb_typeof(e) = 'string' AND length(e #>> '{}') <= 100)
    ) AS v
    WHERE r.action_type = 'COMPLETED_STEP' AND jsonb_typeof(d.doc) = 'object' AND d.doc ? 'value'
    GROUP BY 1, 2, 3, 4, 5;
  `,
  // 9: state versions. Every write to what a read of a user (or a group) returns moves its row's version on to a
  // new number from one sequence, in the write's transaction, so an instance that kept a user's rows in memory
  // checks with one primary-key lookup that they are still current. Numbers are never reused, so a user
  // deleted and made again cannot pass for the old one.
  `
  CREATE SEQUENCE state_versions;
  ALTER TABLE users ADD COLUMN state_version bigint NOT NULL DEFAULT nextval('state_versions');
  ALTER TABLE groups ADD COLUMN state_version bigint NOT NULL DEFAULT nextval('state_versions');
  `,
  // 10: missing targets. The script reports a step whose target is not on the page as the tracking event
  // onboarding:target-missing; each user is recorded once per flow step, at the first report (the facts, gone with
  // the user), and counted per flow, UTC day of that report, the version then served, and step (the rollup; a
  // deleted user is subtracted). The event is new with this schema, so there is no log to fold in.
  `
  CREATE TABLE analytics_target_missing_users (
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
    flow_slug text NOT NULL,
    step_id text NOT NULL,
    flow_version integer NOT NULL,
    missing_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, flow_slug, step_id)
  );
  CREATE TABLE analytics_target_missing (
    flow_slug text NOT NULL,
    day date NOT NULL,
    flow_version integer NOT NULL,
    step_id text NOT NULL,
    users bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (flow_slug, day, flow_version, step_id)
  );
  `,
  // 11: events over time in targeting (CEL's eventCount and lastEventAt): a read counts one event of one user or
  // group within a window, or finds its latest, by a range of this index, never by reading the whole log. They
  // serve what the ID indexes served, so those go.
  `
  CREATE INDEX user_events_user_event_time ON user_events(user_id, event, created_at);
  DROP INDEX user_events_user;
  CREATE INDEX group_events_group_event_time ON group_events(group_id, event, created_at);
  DROP INDEX group_events_group;
  `,
  // 12: flows that come back (reshow): how many times the user's dismissed flow has come back and been acted on
  // again. A restart deletes the row, and the count with it.
  `
  ALTER TABLE flow_states ADD COLUMN reshows integer NOT NULL DEFAULT 0;
  `,
  // 13: reshowings in analytics. Each user's first action in a flow after it came back, the most comebacks they acted
  // on, and their first completion and first dismissal after a comeback (the facts), counted on the flow's rollup row
  // of their first start (step_id ''), so a report tells a showing from a reshowing. Comebacks are recorded from this
  // schema on (reshow came with migration 12, in the same release), so there is no history to fold in.
  `
  ALTER TABLE analytics_flow_users ADD COLUMN reshown_at timestamptz, ADD COLUMN reshows integer NOT NULL DEFAULT 0,
    ADD COLUMN reshow_completed_at timestamptz, ADD COLUMN reshow_skipped_at timestamptz;
  ALTER TABLE analytics_daily ADD COLUMN reshown bigint NOT NULL DEFAULT 0, ADD COLUMN comebacks bigint NOT NULL DEFAULT 0,
    ADD COLUMN reshow_completed bigint NOT NULL DEFAULT 0, ADD COLUMN reshow_skipped bigint NOT NULL DEFAULT 0;
  `,
  // 14: answers to SURVEY steps given as fields (Frigade's shape, `{ "nps-score": 9 }`) are counted too: the step's
  // answers (value ''), and each field's value as a JSON object of the field and the value (`{"nps-score": 9}`), on
  // the versions of the flow that are SURVEYs. The log is folded in once, added to the counts already kept (which
  // held only answers with a `value`).
  `
  INSERT INTO analytics_answers (flow_slug, day, flow_version, step_id, value, count)
    SELECT r.flow_slug, (r.created_at AT TIME ZONE 'UTC')::date, coalesce(r.flow_version, 0), r.step_id, v.value, count(*)
    FROM flow_responses AS r
    CROSS JOIN LATERAL (SELECT r.data::jsonb AS doc) AS d
    CROSS JOIN LATERAL (
      SELECT '' AS value
      UNION ALL
      SELECT jsonb_build_object(f.key, e)::text FROM jsonb_each(d.doc) AS f(key, answer)
      CROSS JOIN LATERAL jsonb_array_elements(CASE jsonb_typeof(f.answer) WHEN 'array' THEN f.answer ELSE jsonb_build_array(f.answer) END) AS e
      WHERE jsonb_typeof(e) IN ('number', 'boolean') OR (jsonb_typeof(e) = 'string' AND length(e #>> '{}') <= 100)
    ) AS v
    WHERE r.action_type = 'COMPLETED_STEP' AND jsonb_typeof(d.doc) = 'object' AND NOT d.doc ? 'value' AND d.doc <> '{}'::jsonb
      AND r.data <> '{"reason":"bootstrap"}'
      AND EXISTS (SELECT 1 FROM flows AS fl WHERE fl.slug = r.flow_slug AND fl.version = r.flow_version AND fl.type = 'SURVEY')
    GROUP BY 1, 2, 3, 4, 5
  ON CONFLICT (flow_slug, day, flow_version, step_id, value) DO UPDATE SET count = analytics_answers.count + EXCLUDED.count;
  `,
  // 15: analytics by locale. Each response records the canonical locale its request was made in ('' for none), and
  // each user's run of a flow the locale of its first start, which the rollups are counted under (as they are under
  // the day of that start); the answer counts go by each answer's own locale. The locale joins the rollups' keys,
  // last, so the reports' range reads by flow and day keep their index. Existing rows keep their counts, under ''.
  // A constant default adds each column without rewriting the table.
  `
  ALTER TABLE flow_responses ADD COLUMN locale text NOT NULL DEFAULT '';
  ALTER TABLE analytics_flow_users ADD COLUMN locale text NOT NULL DEFAULT '';
  ALTER TABLE analytics_daily ADD COLUMN locale text NOT NULL DEFAULT '';
  ALTER TABLE analytics_daily DROP CONSTRAINT analytics_daily_pkey;
  ALTER TABLE analytics_daily ADD PRIMARY KEY (flow_slug, day, flow_version, step_id, locale);
  ALTER TABLE analytics_durations ADD COLUMN locale text NOT NULL DEFAULT '';
  ALTER TABLE analytics_durations DROP CONSTRAINT analytics_durations_pkey;
  ALTER TABLE analytics_durations ADD PRIMARY KEY (flow_slug, day, flow_version, bucket, locale);
  ALTER TABLE analytics_answers ADD COLUMN locale text NOT NULL DEFAULT '';
  ALTER TABLE analytics_answers DROP CONSTRAINT analytics_answers_pkey;
  ALTER TABLE analytics_answers ADD PRIMARY KEY (flow_slug, day, flow_version, step_id, value, locale);
  `,
  // 16: resource centres in analytics. The script tracks a click or a search in a centre as the event
  // onboarding:resource-center, whose properties (flow, action, block, item, query, results) the event log keeps;
  // a centre's report reads its events by this partial index, which no other event pays for.
  `
  CREATE INDEX user_events_resource_center ON user_events ((properties->>'flow'), created_at)
    WHERE event = 'onboarding:resource-center';
  `,
  // 17: experiments. Each user's exposure to an experiment of experiments.yaml, once, with the variant they were put in
  // and when (the first answer that found them in its audience); a linked guest's exposures go to the user, and keep
  // their variant. A user who has no row yet is exposed all the same, so the rows name users without a key; deleting
  // a user deletes them by hand. A report reads an experiment's rows by the second index, in order of exposure. A flow's
  // goal is counted over the users whose first start is in a window, found by the last.
  `
  CREATE TABLE experiment_exposures (
    user_id text NOT NULL,
    experiment_id text NOT NULL,
    variant text NOT NULL,
    exposed_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, experiment_id)
  );
  CREATE INDEX experiment_exposures_experiment ON experiment_exposures (experiment_id, exposed_at, user_id);
  CREATE INDEX analytics_flow_users_flow_start ON analytics_flow_users (flow_slug, started_at);
  `,
  // 18: each user's latest response per step of a flow, and per flow for the flow's own actions (…_FLOW), kept beside
  // the response log. A state read needs only these; picked out of the log, every read and every write of a user cost
  // as much as the user's whole history (3,000 responses: a read took 4.3 ms, not 0.7). Triggers keep the table from
  // whatever writes the log, instances of an older version during an upgrade among them: appended responses replace
  // older ones of their key, and responses moved to another user (a guest linked) make both users' rows again. Rows
  // go with their user. The log keeps every response, for analytics and exports.
  `
  CREATE TABLE flow_latest_responses (
    user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
    flow_slug text NOT NULL,
    flow_action boolean NOT NULL,
    step_key text NOT NULL,
    response_id bigint NOT NULL,
    step_id text NOT NULL,
    action_type text NOT NULL,
    data text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, flow_slug, flow_action, step_key)
  );
  INSERT INTO flow_latest_responses ${latestOf('flow_responses')};
  CREATE FUNCTION flow_latest_responses_append() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO flow_latest_responses ${latestOf('appended')}
    ON CONFLICT (user_id, flow_slug, flow_action, step_key) DO UPDATE SET response_id = EXCLUDED.response_id,
      step_id = EXCLUDED.step_id, action_type = EXCLUDED.action_type, data = EXCLUDED.data, created_at = EXCLUDED.created_at
    WHERE EXCLUDED.response_id > flow_latest_responses.response_id;
    RETURN NULL;
  END $$;
  CREATE TRIGGER flow_responses_latest AFTER INSERT ON flow_responses
    REFERENCING NEW TABLE AS appended FOR EACH STATEMENT EXECUTE FUNCTION flow_latest_responses_append();
  CREATE FUNCTION flow_latest_responses_remake() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM flow_latest_responses
      WHERE user_id IN (SELECT user_id FROM old_rows UNION SELECT user_id FROM new_rows);
    INSERT INTO flow_latest_responses ${latestOf(
      '(SELECT * FROM flow_responses WHERE user_id IN (SELECT user_id FROM old_rows UNION SELECT user_id FROM new_rows))',
    )};
    RETURN NULL;
  END $$;
  CREATE TRIGGER flow_responses_latest_moved AFTER UPDATE ON flow_responses
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION flow_latest_responses_remake();
  `,
  // 19: the latest times of each event name, kept in its count row, so a read counts events over time (eventCount,
  // lastEventAt) from the row it looks up instead of ranging over the log's index: on the collections bench's data, the
  // ranges cost a read on the embedded store about 120 µs of its 600, the kept times about 30. Triggers keep them from
  // whatever writes the log, as migration 18's do.
  `${keptTimes('user_events', 'user_event_counts', 'user_id')}${keptTimes('group_events', 'group_event_counts', 'group_id')}`,
];

/**
 * A migration's statements, one by one (the extended protocol takes one at a time): split at each semicolon outside a
 * function body quoted with $$ (the migrations quote no semicolon in a string).
 */
export function statements(sql: string): string[] {
  const found: string[] = [];
  let current = '';
  sql.split('$$').forEach((chunk, i) => {
    // Odd chunks are the inside of a $$ … $$ body, kept whole; the others' semicolons end statements.
    if (i % 2 === 1) {
      current += `$$${chunk}$$`;
      return;
    }
    const [first, ...rest] = chunk.split(';');
    current += first;
    for (const piece of rest) {
      found.push(current);
      current = piece;
    }
  });
  found.push(current);
  return found.map((statement) => statement.trim()).filter(Boolean);
}

/** The schema version this build needs: `/readyz` answers 503 until the database has it. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the schema up to date, in one transaction under an advisory lock: several instances
 * starting at once on one PostgreSQL run the migrations once, and the others wait and find them done.
 * Returns the versions it applied. `upTo` stops after that version (tests of a migration start from the one before).
 */
export async function migrate(db: Database, upTo = MIGRATIONS.length): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('onboarding:migrate'))");
    await tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const applied = new Set(
      (await tx.query<{ version: number }>('SELECT version FROM schema_migrations')).map((row) => row.version),
    );
    const done: number[] = [];
    for (const [index, sql] of MIGRATIONS.entries()) {
      const version = index + 1;
      if (applied.has(version) || version > upTo) continue;
      for (const statement of statements(sql)) await tx.query(statement);
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
