// The embedded store's cache of what a read needs about a user and a group, so a read of someone seen before runs no SQL.
// Only for PGlite: one process owns the data directory (it is locked) and every write goes through it, so the cache can
// be kept exact by dropping what each write touches. Several instances on PostgreSQL never use it.
import type { FactsRow } from '../analytics/progress.js';

/** What a read needs about a user, as loaded; the reader copies what it changes. */
export interface CachedUser {
  /** The user's analytics facts by flow, which a transition updates (loaded with the rest on the embedded store). */
  progress?: FactsRow[];
  exists: boolean;
  properties: Record<string, unknown>;
  createdAt: Date | null;
  events: Record<string, number>;
  groups: string[];
  flows: Array<[string, string | null, boolean, boolean, boolean, string | null]>;
  steps: Array<[string, string, boolean, boolean, boolean, unknown, string | null]>;
  responses: Array<[string, string, string, string, string]>;
}

export interface CachedGroup {
  properties: Record<string, unknown>;
  createdAt: Date | null;
  events: Record<string, number>;
}

/**
 * A bounded map from user ID (and group ID) to its rows, least recently used out first. A load
 * stores its result only when no write touched anything since the load began (the generation is
 * unchanged), so a read that raced a write can never put old rows back.
 */
export class SnapshotCache {
  private readonly users = new Map<string, CachedUser>();
  private readonly groups = new Map<string, CachedGroup>();
  private generation = 0;

  constructor(private readonly maxUsers: number) {}

  /** Call before loading; pass the result to `store`. */
  begin(): number {
    return this.generation;
  }

  user(userId: string): CachedUser | undefined {
    const entry = this.users.get(userId);
    if (entry) {
      // Most recently used last.
      this.users.delete(userId);
      this.users.set(userId, entry);
    }
    return entry;
  }

  group(groupId: string): CachedGroup | undefined {
    return this.groups.get(groupId);
  }

  store(generation: number, userId: string, user: CachedUser, group?: { id: string; rows: CachedGroup }): void {
    if (generation !== this.generation || this.maxUsers <= 0) return;
    this.users.set(userId, user);
    while (this.users.size > this.maxUsers) this.users.delete(this.users.keys().next().value!);
    if (group) {
      this.groups.set(group.id, group.rows);
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
