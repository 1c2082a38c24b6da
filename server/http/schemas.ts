// JSON Schemas for request bodies and queries, built from the configured limits.
import type { Limits } from '../app.js';

export const idSchema = { type: 'string', minLength: 1, maxLength: 256 } as const;

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
      properties: {
        event: { type: 'string', minLength: 1, maxLength: 256 },
        properties: propertiesSchema(limits),
      },
    },
  } as const;
}
