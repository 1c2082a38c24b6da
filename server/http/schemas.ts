// JSON Schemas for request bodies and queries, built from the configured limits.
import type { Limits } from '../shared/limits.js';

/** IDs chosen by the customer application: 1 to 256 characters, no control characters. */
export const MAX_ID_LENGTH = 256;
export const idSchema = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_ID_LENGTH,
  pattern: '^[^\\u0000-\\u001F\\u007F]*$',
} as const;

export function propertiesSchema(limits: Limits) {
  return { type: 'object', maxProperties: limits.propertiesPerObject } as const;
}

export function eventsSchema(limits: Limits) {
  return {
    type: 'array',
    maxItems: limits.eventsPerRequest,
    items: {
      type: 'object',
      required: ['event'],
      additionalProperties: false,
      properties: {
        event: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH },
        properties: propertiesSchema(limits),
      },
    },
  } as const;
}

/**
 * Where the client is (Frigade's SDKs send `url`, `userAgent` and `registeredCollectionIds`). Any
 * object is taken; only a string `url` is kept, with each flow response.
 */
export const contextSchema = { type: 'object' } as const;

/** The locale a state answer comes in: any string; one that is no locale code reads as none (see state-query.ts). */
export const localeSchema = { type: 'string', maxLength: 1024 } as const;

/**
 * The query of any endpoint that answers flow states: `content=none` leaves the flows' definitions out,
 * `targetedOut` says whether ACTIVE flows the user is targeted out of come, hidden, and `locale` which language the
 * text comes in (see state-query.ts).
 */
export const contentQuerySchema = {
  type: 'object',
  properties: {
    content: { type: 'string', enum: ['all', 'none'] },
    targetedOut: { type: 'string', enum: ['hidden', 'omit'] },
    locale: localeSchema,
  },
} as const;

/** Flow versions a client holds, by slug (the content's hash, or the version number), so their definitions are left out of the answer. */
export const knownVersionsSchema = {
  type: 'object',
  maxProperties: 10_000,
  additionalProperties: {
    anyOf: [
      { type: 'integer', minimum: 0, maximum: 2_147_483_647 },
      { type: 'string', pattern: '^[0-9a-f]{16}$' },
    ],
  },
} as const;

/** `userHash`: hex(HMAC-SHA256(identity secret, userId)), for identity verification. Checked against the secrets, not here. */
export const userHashSchema = { type: 'string', maxLength: 128 } as const;

/** The Idempotency-Key format, as the header takes it: 1 to 255 visible ASCII characters. */
export const idempotencyKeySchema = { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' } as const;

/** A users upsert as a batch write takes it: the script's spelling (`userId`; no `foreignId`). */
export function userWriteSchema(limits: Limits) {
  return {
    type: 'object',
    required: ['userId'],
    additionalProperties: false,
    properties: {
      userId: idSchema,
      userHash: userHashSchema,
      properties: propertiesSchema(limits),
      events: eventsSchema(limits),
      bootstrapFlowStates: { type: 'boolean' },
      linkGuestId: idSchema,
    },
  } as const;
}

/** A groups upsert as a batch write takes it. */
export function groupWriteSchema(limits: Limits) {
  return {
    type: 'object',
    required: ['groupId'],
    additionalProperties: false,
    properties: {
      groupId: idSchema,
      userId: idSchema,
      userHash: userHashSchema,
      properties: propertiesSchema(limits),
      events: eventsSchema(limits),
    },
  } as const;
}

/** The fields of a transition, as POST /v1/public/flowStates and a batch write take them. */
export function transitionProperties(actionTypes: readonly string[]) {
  return {
    userId: idSchema,
    userHash: userHashSchema,
    groupId: idSchema,
    flowSlug: idSchema,
    // Flow actions may leave it out or send ""; step actions need a step of the flow.
    stepId: { ...idSchema, minLength: 0 },
    actionType: { type: 'string', enum: [...actionTypes] },
    data: {},
    createdAt: { type: 'string', format: 'date-time', maxLength: 64 },
    context: contextSchema,
  } as const;
}

/** A transition as a batch write takes it (`actionType` required: a batch holds no reads). */
export function transitionWriteSchema(actionTypes: readonly string[]) {
  return {
    type: 'object',
    required: ['userId', 'flowSlug', 'actionType'],
    additionalProperties: false,
    properties: transitionProperties(actionTypes),
  } as const;
}
