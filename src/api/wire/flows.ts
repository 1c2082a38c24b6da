// GET /v1/public/flows on the wire: the flow definitions, paged (and one by slug, /v1/public/flows/{slug}).
import type { FlowStatus, FlowType } from './common.js';

export interface FlowsQuery {
  offset?: number;
  limit?: number;
}

/** A flow definition as listed by `GET /v1/public/flows`. */
export interface Flow {
  id: number;
  name: string;
  /** JSON-encoded FlowData. */
  data: string;
  targetingLogic: string;
  type: FlowType;
  slug: string;
  createdAt: string;
  modifiedAt: string;
  version: number;
  status: FlowStatus;
  codeSnippet: string;
}

export interface FlowsResponse {
  data: Flow[];
  offset: number;
  /** The number of records in this response. */
  limit: number;
}
