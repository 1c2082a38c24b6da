// Users and groups on the wire: POST /v1/public/users, sessions, groups, userGroups; the private key's /v1/users.
import type { ExperimentExposure } from './experiments.js';
import type { ActionType, Properties, TrackingEvent } from './common.js';
import type { FlowStatesResponse } from './flow-states.js';

export interface UserUpsertRequest {
  /** Required unless the older alias `foreignId` is sent instead. */
  userId: string;
  /** hex(HMAC-SHA256(identity secret, userId)), computed by the customer's backend; see docs/security.md. */
  userHash?: string;
  properties?: Properties;
  events?: TrackingEvent[];
  bootstrapFlowStates?: boolean;
  linkGuestId?: string;
}

export interface UserUpsertResponse {
  userId: string;
  guestLinked: boolean;
  flowStates: FlowStatesResponse;
}

/** `POST /v1/public/sessions`: one users upsert plus, with `groupId`, one groups upsert with membership, in one transaction. */
export interface SessionRequest {
  userId: string;
  /** hex(HMAC-SHA256(identity secret, userId)), computed by the customer's backend; see docs/security.md. */
  userHash?: string;
  groupId?: string;
  userProperties?: Properties;
  userEvents?: TrackingEvent[];
  groupProperties?: Properties;
  groupEvents?: TrackingEvent[];
  linkGuestId?: string;
  bootstrapFlowStates?: boolean;
}

/** `POST /v1/public/sessions` answers 201 like the users upsert, with flow states read with the session's group. */
export type SessionResponse = UserUpsertResponse;

export interface GroupUpsertRequest {
  groupId: string;
  userId?: string;
  /** The hash of `userId`, when it names one. */
  userHash?: string;
  properties?: Properties;
  events?: TrackingEvent[];
}

/** `POST /v1/public/groups` answers 201 with an empty object. */
export type GroupUpsertResponse = Record<string, never>;

/** `POST /v1/public/userGroups` (older clients): a groups upsert with the user as a member. */
export interface UserGroupRequest {
  foreignUserId: string;
  /** hex(HMAC-SHA256(identity secret, userId)), computed by the customer's backend; see docs/security.md. */
  userHash?: string;
  foreignUserGroupId: string;
  properties?: Properties;
  events?: TrackingEvent[];
}

/** Query of `DELETE /v1/users` (private key only). */
export interface DeleteUserQuery {
  /** The user's ID in the customer application. */
  foreignId: string;
}

/** `GET /v1/users?foreignId=` (private key): everything stored about one user, for export. */
export interface UserRecord {
  userId: string;
  properties: Properties;
  createdAt: string;
  updatedAt: string;
  events: Array<{ event: string; properties: Properties; createdAt: string }>;
  groups: Array<{ groupId: string; properties: Properties }>;
  /** The user's response log, oldest first: every transition with its `data` (form and survey answers), time and page. */
  flowResponses: UserFlowResponse[];
  /** The experiments the user was exposed to, with the variant and the time, oldest first. */
  experiments: ExperimentExposure[];
}

export interface UserFlowResponse {
  flowSlug: string;
  stepId: string;
  actionType: ActionType;
  data: unknown;
  createdAt: string;
  url: string | null;
  /** The flow version it was made on; null for responses recorded before versions were. */
  flowVersion: number | null;
  /** The locale of the request that made it, a canonical code (`fr-CA`); `""` for none, and for responses recorded before locales were. */
  locale: string;
}
