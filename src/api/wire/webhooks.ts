// Webhooks on the wire (see docs/analytics.md): the JSON body of each delivery.

export const WEBHOOK_EVENT_TYPES = [
  'flow.started',
  'flow.completed',
  'flow.skipped',
  'step.completed',
  'step.skipped',
  'form.submitted',
  'survey.answered',
  'user.linked',
  'user.deleted',
  'experiment.exposed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

interface WebhookEventBase {
  /** Unique per event; a receiver that keeps the IDs it has handled sees each event once. */
  id: string;
  /** When it happened: the transition's time (the client's `createdAt`), or the service's clock. */
  createdAt: string;
  userId: string;
}

/** A change in a user's progress through a flow. */
export interface FlowWebhookEvent extends WebhookEventBase {
  type:
    | 'flow.started'
    | 'flow.completed'
    | 'flow.skipped'
    | 'step.completed'
    | 'step.skipped'
    | 'form.submitted'
    | 'survey.answered';
  flowSlug: string;
  flowVersion: number;
  /** The step acted on; for flow events, the step the transition named ("" when none). */
  stepId: string;
  /** The transition's `data`: a form's values, a survey's `{ value }`, `{ "reason": "last-step" }`, …; null when none. */
  data: unknown;
  /** The page it happened on, when the client sent one. */
  url: string | null;
}

/** A guest's progress moved to a user. */
export interface UserLinkedWebhookEvent extends WebhookEventBase {
  type: 'user.linked';
  guestId: string;
}

/** A user and everything stored about them were deleted. */
export interface UserDeletedWebhookEvent extends WebhookEventBase {
  type: 'user.deleted';
}

/** A user entered an experiment's audience for the first time (experiments.yaml): recorded once per user and experiment. */
export interface ExperimentExposedWebhookEvent extends WebhookEventBase {
  type: 'experiment.exposed';
  experimentId: string;
  /** The variant the user is in (a control group's id included). */
  variant: string;
  /** The variant's flow; null for a control group. */
  flowSlug: string | null;
}

/** The JSON body of one webhook delivery. */
export type WebhookEvent =
  FlowWebhookEvent | UserLinkedWebhookEvent | UserDeletedWebhookEvent | ExperimentExposedWebhookEvent;
