// Groups: upsert (properties merge, events append) and membership of a user.
import type { GroupUpsertRequest } from '../../src/api/wire.js';
import type { Queryable } from '../storage/store.js';
import { lockUser } from './user-rows.js';
import { appendEvents, refuseOversized, STORED_SIZE, type StoredLimits, type StoredSize } from './users.js';

/**
 * Creates or updates the group; with `userId`, that user (created when unknown) becomes a member. The user's row is
 * locked before the group's, as every transaction does (a session upserts its user, then the group): two writers
 * taking them in opposite orders deadlocked on PostgreSQL.
 */
export async function upsertGroup(
  tx: Queryable,
  body: GroupUpsertRequest,
  limits: StoredLimits,
  now: Date,
): Promise<void> {
  const userId = body.userId !== undefined ? await lockUser(tx, body.userId) : undefined;
  tx.touchGroup?.(body.groupId);
  const [stored] = await tx.query<StoredSize>(
    `INSERT INTO groups (id, properties) VALUES ($1, $2::jsonb)
     ON CONFLICT (id) DO UPDATE SET properties = groups.properties || EXCLUDED.properties, updated_at = now(),
       state_version = nextval('state_versions')
     RETURNING ${STORED_SIZE}`,
    [body.groupId, JSON.stringify(body.properties ?? {})],
  );
  tx.versionMoved?.('group', body.groupId);
  if (body.properties && Object.keys(body.properties).length > 0)
    refuseOversized('group', body.groupId, stored, limits);
  await appendEvents(tx, 'group', body.groupId, body.events, now, limits);
  if (userId !== undefined) {
    tx.touchUser?.(userId);
    await tx.query('INSERT INTO group_members (group_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      body.groupId,
      userId,
    ]);
  }
}
