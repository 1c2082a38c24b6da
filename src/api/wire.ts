// Wire types of the onboarding service: declared once, by endpoint, in wire/, and re-exported here for every importer.
export * from './wire/common.js';
export type * from './wire/users.js';
export type * from './wire/flow-states.js';
export * from './wire/batch.js';
export type * from './wire/flows.js';
export * from './wire/collections.js';
export type * from './wire/analytics.js';
export * from './wire/webhooks.js';
export * from './wire/flow-file.js';
export * from './wire/flow-file-steps.js';
export * from './wire/flow-file-fields.js';
export type * from './wire/flow-file-props.js';
export type * from './wire/flow-file-resource-center.js';
export * from './wire/experiments.js';
export * from './wire/explain.js';
export type * from './wire/mcp.js';
