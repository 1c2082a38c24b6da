// Users: create or update with merged properties and appended events.
import type { UserUpsertRequest } from '../../src/api/wire.js';
import type { Queryable } from '../storage/database.js';

/** Upserts the user; returns whether a guest was linked into it. */
export async function upsertUser(tx: Queryable, body: UserUpsertRequest): Promise<boolean> {
  await tx.query(
    `INSERT INTO users (id, properties) VALUES ($1, $2)
     ON CONFLICT (id) DO UPDATE SET properties = users.properties || EXCLUDED.properties, updated_at = now()`,
    [body.userId, JSON.stringify(body.properties ?? {})],
  );
  for (const event of body.events ?? []) {
    await tx.query('INSERT INTO user_events (user_id, event, properties) VALUES ($1, $2, $3)', [
      body.userId,
      event.event,
      JSON.stringify(event.properties ?? {}),
    ]);
  }
  return false;
}
