// The cache of what a read needs about a user and a group, so a read of someone seen before runs no SQL (embedded
// store) or one primary-key lookup (PostgreSQL).
// - The embedded store's process owns its data directory (it is locked) and every write goes through it, so the
//   cache is kept exact by dropping what each write touches.
// - On PostgreSQL, other instances write too. There each entry carries the row's state version it was loaded
//   with, and a read uses it only after checking that the row still has that version (see context.ts).
import type { FactsRow } from '../analytics/progress.js';

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
  events: Record<string, number>;
  groups: string[];
  flows: Array<[string, string | null, boolean, boolean, boolean, string | null]>;
  steps: Array<[string, string, boolean, boolean, boolean, unknown, string | null]>;
  responses: Array<[string, string, string, string, string]>;
}

export interface CachedGroup {
  /** The groups row's `state_version` (PostgreSQL); null when there is no row. */
  version?: string | null;
  properties: Record<string, unknown>;
  /** ISO time; null without a row. */
  createdAt: string | null;
  events: Record<string, number>;
}

/** An entry as kept: the rows as JSON text (a fraction of the memory of the objects), parsed anew for every use. */
interface Entry {
  version: string | null;
  exists: boolean;
  text: string;
}

/**
 * A bounded map from user ID (and group ID) to its rows, least recently used out first. Each use
 * gets objects of its own, which it may change. Without
 * versions, a load stores its result only when no write touched anything since the load began (the
 * generation is unchanged), so a read that raced a write can never put old rows back. With versions
 * (`versioned`), every entry is checked against its row before use, so any load may be stored.
 */
export class SnapshotCache {
  private readonly users = new Map<string, Entry>();
  private readonly groups = new Map<string, Entry>();
  private generation = 0;

  constructor(
    private readonly maxUsers: number,
    /** Entries carry row versions and are checked before use (PostgreSQL). */
    readonly versioned = false,
  ) {}

  /** Call before loading; pass the result to `store`. */
  begin(): number {
    return this.generation;
  }

  user(userId: string): CachedUser | undefined {
    const entry = this.users.get(userId);
    if (!entry) return undefined;
    // Most recently used last.
    this.users.delete(userId);
    this.users.set(userId, entry);
    return { ...(JSON.parse(entry.text) as CachedUser), version: entry.version };
  }

  /** Whether the cache holds a user that has a row (true), one that has none (false), or nothing (undefined). */
  userExists(userId: string): boolean | undefined {
    return this.users.get(userId)?.exists;
  }

  group(groupId: string): CachedGroup | undefined {
    const entry = this.groups.get(groupId);
    return entry && { ...(JSON.parse(entry.text) as CachedGroup), version: entry.version };
  }

  store(generation: number, userId: string, user: CachedUser, group?: { id: string; rows: CachedGroup }): void {
    if ((!this.versioned && generation !== this.generation) || this.maxUsers <= 0) return;
    this.users.set(userId, entryOf(user, user.exists));
    while (this.users.size > this.maxUsers) this.users.delete(this.users.keys().next().value!);
    if (group) {
      this.groups.set(group.id, entryOf(group.rows, true));
      while (this.groups.size > this.maxUsers) this.groups.delete(this.groups.keys().next().value!);
    }
  }

  dropUser(userId: string): void {
    this.generation++;
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

function entryOf({ version, ...rows }: CachedUser | CachedGroup, exists: boolean): Entry {
  return { version: version ?? null, exists, text: JSON.stringify(rows) };
}
