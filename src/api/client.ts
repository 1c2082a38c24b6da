// HTTP client for the onboarding service: one function per endpoint, Bearer auth, problem bodies as ApiError.
import type {
  FlowsResponse,
  FlowStatesResponse,
  FlowStateWriteRequest,
  GroupUpsertRequest,
  Problem,
  UserUpsertRequest,
  UserUpsertResponse,
} from './wire.js';

export interface ClientConfig {
  apiUrl: string;
  publicKey: string;
  /** The fetch to use. @default globalThis.fetch */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  idempotencyKey?: string;
  /** Let the request outlive the page (used when flushing on pagehide). */
  keepalive?: boolean;
  signal?: AbortSignal;
}

/** A response the service answered with a non-2xx status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Partial<Problem>,
    readonly retryAfterMs?: number,
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
    this.name = 'ApiError';
  }
}

export interface ApiClient {
  upsertUser(body: UserUpsertRequest, options?: RequestOptions): Promise<UserUpsertResponse | null>;
  upsertGroup(body: GroupUpsertRequest, options?: RequestOptions): Promise<void>;
  writeFlowState(body: FlowStateWriteRequest, options?: RequestOptions): Promise<FlowStatesResponse | null>;
  getFlowStates(userId: string, groupId?: string, options?: RequestOptions): Promise<FlowStatesResponse>;
  getFlows(options?: RequestOptions): Promise<FlowsResponse>;
}

export function createApiClient(config: ClientConfig): ApiClient {
  const base = config.apiUrl.replace(/\/+$/, '');
  const doFetch = config.fetch ?? ((input, init) => globalThis.fetch(input, init));

  async function request<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T | null> {
    const headers: Record<string, string> = { Authorization: `Bearer ${config.publicKey}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
    const response = await doFetch(base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      keepalive: options.keepalive,
      signal: options.signal,
      credentials: 'omit',
    });
    const text = await response.text();
    if (!response.ok) {
      let problem: Partial<Problem> = { status: response.status };
      try {
        problem = JSON.parse(text) as Problem;
      } catch {
        // Not a problem body (a proxy's HTML page, say); the status says enough.
      }
      const retryAfter = Number(response.headers.get('Retry-After'));
      throw new ApiError(response.status, problem, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined);
    }
    // A service that follows only the spec may answer a write with an empty body.
    if (!text.trim()) return null;
    const parsed = JSON.parse(text) as T;
    return parsed && typeof parsed === 'object' && Object.keys(parsed).length === 0 ? null : parsed;
  }

  const query = (params: Record<string, string | undefined>) =>
    Object.entries(params)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value!)}`)
      .join('&');

  return {
    upsertUser: (body, options) => request<UserUpsertResponse>('POST', '/v1/public/users', body, options),
    upsertGroup: async (body, options) => {
      await request('POST', '/v1/public/groups', body, options);
    },
    writeFlowState: (body, options) => request<FlowStatesResponse>('POST', '/v1/public/flowStates', body, options),
    getFlowStates: async (userId, groupId, options) =>
      (await request<FlowStatesResponse>('GET', `/v1/public/flowStates?${query({ userId, groupId })}`, undefined, options)) ?? {
        eligibleFlows: [],
        ineligibleFlows: [],
      },
    getFlows: async (options) =>
      (await request<FlowsResponse>('GET', '/v1/public/flows?limit=1000', undefined, options)) ?? { data: [], offset: 0, limit: 0 },
  };
}
