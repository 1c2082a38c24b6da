// The cache of what a read needs about a user and a group, so a read of someone seen before runs no SQL (embedded
// store) or one primary-key lookup (PostgreSQL).
// - The embedded store's process owns its data directory (it is locked) and every write goes through it, so the
//   cache is kept exact by dropping what each write touches.
// - On PostgreSQL, other instances write too. There each entry carries the row's state version it was loaded
//   with, and a read uses it only after checking that the row still has that version (see state/snapshot.ts).
// - Events over time (CEL's eventCount) change with no write, as events leave their windows: those values carry the
//   time they stop holding, and a read past it loads the entry again (see state/event-window-values.ts).
// - A user's entry also keeps the state answers rendered from it, each until the clock alone could change it (see
//   state/answer-memo.ts): they go with the entry.

import type { RawJson } from '../shared/raw-json.js';

/** One user's facts about one flow, as stored (analytics/progress.ts keeps them; progress-facts.ts reads them). */
export interface FactsRow {
  flow_slug: string;
  flow_version: number;
  /** The locale of the first start ('' for none). */
  locale: string;
  started_at: Date | string;
  completed_at: Date | string | null;
  skipped_at: Date | string | null;
  /** The first action after the flow came back (reshow), the most comebacks acted on, and the first completion and dismissal after one. */
  reshown_at: Date | string | null;
  reshows: number;
  reshow_completed_at: Date | string | null;
  reshow_skipped_at: Date | string | null;
  /** [step_id, reached_at, completed_at, skipped_at] */
  steps: Array<[string, string, string | null, string | null]> | null;
}

/**
 * A user's or group's events over time that the catalog's CEL asks about (eventCount, lastEventAt), as loaded at one
 * time. Unlike the rest of an entry they change with no write, when an event leaves its window: `expiresAt` says when.
 */
export interface CachedWindows {
  /** The set of calls (EventWindowSet.key) these answer: values loaded for another catalog are never read. */
  key: string;
  /** [count key, count] */
  counts: Array<[string, number]>;
  /** [event, ISO time of its latest], for the events it has */
  last: Array<[string, string]>;
  /** Epoch milliseconds of the read time the values were measured at: a clock set back before it loads them again. */
  loadedAt: number;
  /** Epoch milliseconds at which a value first changes (an event leaves a window or enters one); null for never. */
  expiresAt: number | null;
}

/** What a read needs about a user, as loaded: plain JSON values, so an entry can be kept as JSON text. */
export interface CachedUser {
  /** The user's analytics facts by flow, which a transition updates (loaded with the rest on the embedded store). */
  progress?: FactsRow[];
  /** The users row's `state_version` these rows were read with (PostgreSQL); null when there is no row. */
  version?: string | null;
  exists: boolean;
  properties: Record<string, unknown>;
  /** ISO time; null without a row. */
  createdAt: string | null;
  /** The kept counts of the names the catalog's CEL reads (see state/snapshot.ts). */
  events: Record<string, number>;
  /** The set of names (EventNameSet.key) `events` was loaded for: counts loaded for another catalog are never read. */
  eventsKey: string;
  groups: string[];
  /** Loaded when the catalog's CEL counts events over time; shared by every use of the entry, so never changed. */
  windows?: Readonly<CachedWindows>;
  /** [flow_slug, current_step_id, started, completed, skipped, last_action_at (ISO), reshows] */
  flows: Array<[string, string | null, boolean, boolean, boolean, string | null, number]>;
  /** [flow_slug, step_id, started, completed, skipped, data, last_action_at (ISO)] */
  steps: Array<[string, string, boolean, boolean, boolean, unknown, string | null]>;
  /** [flow_slug, step_id, action_type, data, created_at (ISO)], oldest first */
  responses: Array<[string, string, string, string, string]>;
  /**
   * [experiment_id, variant, exposed_at (ISO)]: loaded while an experiment runs (absent otherwise). A read that
   * records a new exposure adds it here once it is committed.
   */
  exposures?: Array<[string, string, string]>;
  /** [flow_slug, first started_at (ISO)]: loaded while a global limit is in force (absent otherwise). */
  starts?: Array<[string, string]>;
}

export interface CachedGroup {
  /** The groups row's `state_version` (PostgreSQL); null when there is no row. */
  version?: string | null;
  properties: Record<string, unknown>;
  /** ISO time; null without a row. */
  createdAt: string | null;
  events: Record<string, number>;
  eventsKey: string;
  /** Loaded when the catalog's CEL counts events over time; shared by every use of the entry, so never changed. */
  windows?: Readonly<CachedWindows>;
}

/**
 * An entry as kept: the rows as the JSON text of an array, its fields in a fixed order (a fraction of the memory
 * of the objects, and no field names), parsed anew for every use. What no use changes is kept as it is and shared:
 * the keys of the sets the values were loaded for (one string per catalog, not a copy per entry) and the events over
 * time, which a read only looks up.
 */
export interface CacheEntry {
  readonly version: string | null;
  readonly text: string;
  readonly eventsKey: string;
  readonly windows: Readonly<CachedWindows> | undefined;
  /**
   * The user's exposures to experiments (see CachedUser), kept beside the text: a read that records a new one adds it
   * here, so the next read knows without loading the rows again. Every use shares this list.
   */
  readonly exposures?: Array<[string, string, string]>;
  /** The user's first starts (see CachedUser), kept beside the text: only a write changes them, and it drops the entry. */
  readonly starts?: ReadonlyArray<[string, string]>;
  /** State answers rendered from this entry's rows (a user's only), newest last: see keepAnswer. */
  answers?: KeptAnswer[];
}

/** A state answer kept with the user's entry: valid for the same catalog, group entry and key, from `from` until `until`. */
interface KeptAnswer {
  key: string;
  catalog: object;
  group: CacheEntry | undefined;
  from: number;
  until: number;
  json: RawJson;
  /** Its estimated memory beyond the shared parts. */
  bytes: number;
}

/** Answers kept per user: one read with a group and one without, in two or so modes. */
const ANSWERS_PER_USER = 4;

/**
 * A bounded map from user ID (and group ID) to its rows, least recently used out first. Each use gets
 * objects of its own, which it may change. Without versions, a load stores its result only when no write
 * touched anything since the load began (the generation is unchanged), so a read that raced a write can
 * never put old rows back. With versions (`versioned`), every entry is checked against its row before
 * use, so any load may be stored.
 */
export class SnapshotCache {
  private readonly users = new Map<string, CacheEntry>();
  private readonly groups = new Map<string, CacheEntry>();
  private generation = 0;
  /** The estimated memory of every kept answer (see keepAnswer). */
  private answerBytes = 0;

  constructor(
    private readonly maxUsers: number,
    /** Entries carry row versions and are checked before use (PostgreSQL). */
    readonly versioned = false,
    /** The most memory kept answers may take, estimated; past it, the least recently read users' answers go. */
    private readonly maxAnswerBytes = 64 * 1024 * 1024,
  ) {}

  /** Call before loading; pass the result to `store`. */
  begin(): number {
    return this.generation;
  }

  user(userId: string): CachedUser | undefined {
    const entry = this.userEntry(userId);
    return entry && this.userRows(entry);
  }

  /** The user's entry, unparsed (what a read checks before it uses the rows), now the most recently used. */
  userEntry(userId: string): CacheEntry | undefined {
    const entry = this.users.get(userId);
    if (!entry) return undefined;
    // Most recently used last.
    this.users.delete(userId);
    this.users.set(userId, entry);
    return entry;
  }

  /** An entry's rows, as objects of the caller's own. */
  userRows(entry: CacheEntry): CachedUser {
    const [exists, properties, createdAt, events, groups, flows, steps, responses, progress] = JSON.parse(
      entry.text,
    ) as UserFields;
    const { eventsKey, windows } = entry;
    return {
      version: entry.version,
      exists,
      properties,
      createdAt,
      events,
      eventsKey,
      groups,
      flows,
      steps,
      responses,
      ...(windows ? { windows } : {}),
      ...(progress ? { progress } : {}),
      ...(entry.exposures ? { exposures: entry.exposures } : {}),
      ...(entry.starts ? { starts: entry.starts as Array<[string, string]> } : {}),
    };
  }

  group(groupId: string): CachedGroup | undefined {
    const entry = this.groupEntry(groupId);
    return entry && this.groupRows(entry);
  }

  groupEntry(groupId: string): CacheEntry | undefined {
    return this.groups.get(groupId);
  }

  groupRows(entry: CacheEntry): CachedGroup {
    const [properties, createdAt, events] = JSON.parse(entry.text) as GroupFields;
    const { eventsKey, windows } = entry;
    return { version: entry.version, properties, createdAt, events, eventsKey, ...(windows ? { windows } : {}) };
  }

  /** Keeps loaded rows; returns the entries made, or undefined when a write since `generation` makes them stale. */
  store(
    generation: number,
    userId: string,
    user: CachedUser,
    group?: { id: string; rows: CachedGroup },
  ): { user: CacheEntry; group: CacheEntry | undefined } | undefined {
    if ((!this.versioned && generation !== this.generation) || this.maxUsers <= 0) return undefined;
    const fields: UserFields = [
      user.exists,
      user.properties,
      user.createdAt,
      user.events,
      user.groups,
      user.flows,
      user.steps,
      user.responses,
    ];
    if (user.progress) fields.push(user.progress);
    const userEntry: CacheEntry = {
      version: user.version ?? null,
      text: JSON.stringify(fields),
      eventsKey: user.eventsKey,
      windows: user.windows,
      ...(user.exposures ? { exposures: user.exposures } : {}),
      ...(user.starts ? { starts: user.starts } : {}),
    };
    this.forgetAnswers(this.users.get(userId));
    this.users.set(userId, userEntry);
    while (this.users.size > this.maxUsers) this.dropOldestUser();
    let groupEntry: CacheEntry | undefined;
    if (group) {
      const { version, properties, createdAt, events, eventsKey, windows } = group.rows;
      groupEntry = {
        version: version ?? null,
        text: JSON.stringify([properties, createdAt, events] satisfies GroupFields),
        eventsKey,
        windows,
      };
      this.groups.set(group.id, groupEntry);
      while (this.groups.size > this.maxUsers) this.groups.delete(this.groups.keys().next().value!);
    }
    return { user: userEntry, group: groupEntry };
  }

  /**
   * A state answer kept with `user` for this catalog version, group entry and key (the read's group and modes), if
   * it holds at `at` (epoch milliseconds). Kept with the entry, it goes when a write drops the entry or a load
   * replaces it, as the group's does; a catalog reload makes a new version.
   */
  answer(
    user: CacheEntry,
    group: CacheEntry | undefined,
    catalog: object,
    key: string,
    at: number,
  ): RawJson | undefined {
    const answers = user.answers;
    const index = answers ? answers.findIndex((answer) => answer.key === key) : -1;
    if (index < 0) return undefined;
    const kept = answers![index];
    if (kept.catalog !== catalog || kept.group !== group || at < kept.from || at >= kept.until) return undefined;
    // Most recently used last: a user's usual read outlasts reads with other groups.
    if (index !== answers!.length - 1) answers!.push(...answers!.splice(index, 1));
    return kept.json;
  }

  /**
   * Keeps an answer rendered from these entries at `from` (epoch milliseconds), which holds until `until`. `bytes` is
   * its memory beyond the parts every answer shares (a flow's content, kept per version): the parts made for this
   * read. Past `maxAnswerBytes` in all, the answers of the users read least recently go first.
   */
  keepAnswer(
    user: CacheEntry,
    group: CacheEntry | undefined,
    catalog: object,
    key: string,
    { from, until, bytes }: { from: number; until: number; bytes: number },
    json: RawJson,
  ): void {
    if (!(until > from) || bytes > this.maxAnswerBytes) return;
    const kept: KeptAnswer[] = [];
    for (const answer of user.answers ?? []) {
      if (answer.key === key) this.answerBytes -= answer.bytes;
      else kept.push(answer);
    }
    kept.push({ key, catalog, group, from, until, json, bytes });
    this.answerBytes += bytes;
    while (kept.length > ANSWERS_PER_USER) this.answerBytes -= kept.shift()!.bytes;
    user.answers = kept;
    if (this.answerBytes > this.maxAnswerBytes) this.trimAnswers(user);
  }

  /** Drops the answers of the users read least recently until a tenth of the budget is free (not `keeping`'s). */
  private trimAnswers(keeping: CacheEntry): void {
    const goal = this.maxAnswerBytes * 0.9;
    for (const entry of this.users.values()) {
      if (this.answerBytes <= goal) return;
      if (entry !== keeping) this.forgetAnswers(entry);
    }
  }

  private forgetAnswers(entry: CacheEntry | undefined): void {
    if (!entry?.answers) return;
    for (const answer of entry.answers) this.answerBytes -= answer.bytes;
    entry.answers = undefined;
  }

  private dropOldestUser(): void {
    const userId = this.users.keys().next().value!;
    this.forgetAnswers(this.users.get(userId));
    this.users.delete(userId);
  }

  /** Whether it keeps anything (a cache of 0 users is off). */
  get enabled(): boolean {
    return this.maxUsers > 0;
  }

  /** The estimated memory of the kept answers. */
  get keptAnswerBytes(): number {
    return this.answerBytes;
  }

  dropUser(userId: string): void {
    this.generation++;
    this.forgetAnswers(this.users.get(userId));
    this.users.delete(userId);
  }

  dropGroup(groupId: string): void {
    this.generation++;
    this.groups.delete(groupId);
  }

  get size(): number {
    return this.users.size;
  }
}

/** A user's fields in the order an entry's text keeps them (the analytics facts last, when loaded). */
type UserFields = [
  CachedUser['exists'],
  CachedUser['properties'],
  CachedUser['createdAt'],
  CachedUser['events'],
  CachedUser['groups'],
  CachedUser['flows'],
  CachedUser['steps'],
  CachedUser['responses'],
  FactsRow[]?,
];
type GroupFields = [CachedGroup['properties'], CachedGroup['createdAt'], CachedGroup['events']];
