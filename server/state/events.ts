// The event vocabulary, read off the responses a change appends, and emitEvents: the one place events enter the webhook outbox.
import { randomUUID } from 'node:crypto';
import type { ActionType, FlowType, FlowWebhookEvent, WebhookEvent } from '../../src/api/wire.js';
import type { Queryable } from '../storage/store.js';

/** A response as the state layer appends it (see user-rows.ts). */
export interface EventResponse {
  stepId: string;
  actionType: ActionType;
  data: unknown;
  at: Date;
  url: string | null;
}

const FLOW_EVENTS: Partial<Record<ActionType, FlowWebhookEvent['type']>> = {
  STARTED_FLOW: 'flow.started',
  COMPLETED_FLOW: 'flow.completed',
  SKIPPED_FLOW: 'flow.skipped',
  COMPLETED_STEP: 'step.completed',
  SKIPPED_STEP: 'step.skipped',
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The events of the responses one change appended to a flow, in order. A completed step of a FORM flow is
 * also `form.submitted` (when it carries values), and of a SURVEY flow `survey.answered` (when it carries a
 * `value` or fields). `startedNow` says the change started a flow that was not started, without a STARTED_FLOW of its
 * own (a first step action does that): it comes first, as `flow.started`. `answers: false` leaves out the
 * answer events, for completions the service made itself (bootstrap), whose data is no answer.
 */
export function progressEvents(
  userId: string,
  flow: { slug: string; version: number; type: FlowType },
  responses: EventResponse[],
  { startedNow = false, answers = true }: { startedNow?: boolean; answers?: boolean } = {},
): FlowWebhookEvent[] {
  const events: FlowWebhookEvent[] = [];
  const event = (type: FlowWebhookEvent['type'], response: EventResponse): FlowWebhookEvent => ({
    id: randomUUID(),
    type,
    createdAt: response.at.toISOString(),
    userId,
    flowSlug: flow.slug,
    flowVersion: flow.version,
    stepId: response.stepId,
    data: response.data === undefined ? null : response.data,
    url: response.url,
  });
  if (startedNow && responses.length > 0 && !responses.some((r) => r.actionType === 'STARTED_FLOW'))
    events.push(event('flow.started', responses[0]));
  for (const response of responses) {
    const type = FLOW_EVENTS[response.actionType];
    if (!type) continue;
    events.push(event(type, response));
    if (type !== 'step.completed' || !answers) continue;
    // Answers: data with values, a SURVEY's `{ value }` or its fields in Frigade's shape (`{ "nps-score": 9 }`), as analytics counts them.
    if (isObject(response.data) && Object.keys(response.data).length > 0) {
      if (flow.type === 'FORM') events.push(event('form.submitted', response));
      if (flow.type === 'SURVEY') events.push(event('survey.answered', response));
    }
  }
  return events;
}

/** A user event: `user.linked` (with the guest) or `user.deleted`. */
export function userEvent(type: 'user.linked' | 'user.deleted', userId: string, guestId?: string): WebhookEvent {
  const base = { id: randomUUID(), createdAt: new Date().toISOString(), userId };
  return type === 'user.linked' ? { ...base, type, guestId: guestId! } : { ...base, type };
}

/**
 * Queues events in the webhook outbox, in the transaction of the change that caused them, one row per
 * endpoint that takes the event's type; so they are kept, or rolled back, with the change. Without
 * endpoints it does nothing. A `user.deleted` row is tied to no user, so it outlives the user it names.
 */
export async function emitEvents(tx: Queryable, events: WebhookEvent[]): Promise<void> {
  const sink = tx.events;
  if (!sink || events.length === 0) return;
  const rows = events.flatMap((event) => sink.endpointsFor(event.type).map((endpoint) => ({ event, endpoint })));
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO webhook_outbox (event_id, endpoint, event_type, user_id, payload)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])`,
    [
      rows.map((row) => row.event.id),
      rows.map((row) => row.endpoint),
      rows.map((row) => row.event.type),
      rows.map((row) => (row.event.type === 'user.deleted' ? null : row.event.userId)),
      rows.map((row) => JSON.stringify(row.event)),
    ],
  );
  sink.queued();
}
