// HTTP client for the onboarding service: CORS "simple" requests only (no preflight), answers checked, failures classified as ApiError.
/* eslint-disable no-restricted-syntax -- an ApiError is thrown to the script's own callers (the outbox, the state sync), which catch every one */
import { isBatchResponse, isFlowStates, isObject } from './guards.js';
import { nextTask } from './next-task.js';
import type {
  BatchResponse,
  BatchWrite,
  FlowStatesReadRequest,
  FlowStatesResponse,
  KnownVersions,
  Problem,
} from './wire.js';

export interface ClientConfig {
  apiUrl: string;
  publicKey: string;
  /** The fetch to use. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** The locale every request asks the service to answer in (`?locale=fr-CA`), read as each one is sent. @default none */
  locale?: () => string | undefined;
}

export interface RequestOptions {
  /** Let the request outlive the page (used when flushing on pagehide). */
  keepalive?: boolean;
  /** @default a timeout: 10 s for reads, 20 s for writes */
  signal?: AbortSignal;
}

/**
 * Why a request failed. `network` (no answer: fetch rejected or was aborted) and `retry` (408, 429, 5xx) are
 * worth another try. `refused` (any other 4xx) and `bad-answer` (a 2xx whose body is not JSON or not of the
 * expected shape: the request reached the service) are not.
 */
export type FailureKind = 'network' | 'retry' | 'refused' | 'bad-answer';

/** A request that failed: no answer (status 0), a non-2xx answer, or a 2xx answer the script cannot use. */
export class ApiError extends Error {
  readonly kind: FailureKind;
  constructor(
    readonly status: number,
    readonly problem: Partial<Problem>,
    readonly retryAfterMs?: number,
    kind?: FailureKind,
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
    this.name = 'ApiError';
    this.kind = kind ?? (status >= 500 || status === 408 || status === 429 ? 'retry' : 'refused');
  }
}

/** Only a failure the client classified as the network's or as a retryable status is tried again; nothing else ever is. */
export const isRetryable = (error: unknown): boolean =>
  error instanceof ApiError && (error.kind === 'network' || error.kind === 'retry');

export interface ApiClient {
  /**
   * Writes, in order, each under its own key (`POST /v1/public/batch`). With `knownVersions`, the state read after
   * them carries the content of the flows whose version is not in it; without, no content (`?content=none`).
   */
  sendBatch(writes: BatchWrite[], knownVersions?: KnownVersions, options?: RequestOptions): Promise<BatchResponse>;
  /** The POST read: every flow's state, with the content of flows whose version is not in `knownVersions`. */
  readFlowStates(body: FlowStatesReadRequest, options?: RequestOptions): Promise<FlowStatesResponse>;
}

/**
 * The longest the script waits before trying a request again, whatever a Retry-After asks: 10 minutes. It also keeps
 * every delay far below setTimeout's limit (2^31 - 1 ms), past which browsers fire the timer at once, over and over.
 */
export const MAX_WAIT_MS = 10 * 60_000;

/** A Retry-After header (delta-seconds or an HTTP date) in milliseconds, at most MAX_WAIT_MS; undefined when absent, past or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const ms = /^\s*\d+\s*$/.test(header) ? Number(header) * 1000 : Date.parse(header) - now;
  return ms > 0 ? Math.min(ms, MAX_WAIT_MS) : undefined;
}

/** No request hangs for ever: a read gives up after 10 s, a write (which may carry more, and is retried) after 20 s. */
const READ_TIMEOUT_MS = 10_000;
const WRITE_TIMEOUT_MS = 20_000;
/** The largest answer the script reads: a state answer of a few hundred flows is a fraction of it. */
const MAX_ANSWER_CHARS = 16 << 20;
/** An answer this long (the state of about 50 flows of 20 steps, or more) is checked in a task after the one that parsed it. */
const LARGE_ANSWER_CHARS = 1 << 17;
const timeout = (ms: number) => (typeof AbortSignal.timeout === 'function' ? AbortSignal.timeout(ms) : undefined);

export function createApiClient(config: ClientConfig): ApiClient {
  const base = config.apiUrl.replace(/\/+$/, '');
  const doFetch = config.fetch ?? ((input, init) => globalThis.fetch(input, init));

  /**
   * One POST as a CORS "simple" request, which a browser sends with no preflight: the public key in the query, the
   * JSON as a text/plain body (fetch's default for a string), and no other header. The answer is null when the
   * service sent an empty body or `{}`, and otherwise passes `valid`.
   */
  async function request<T>(
    path: string,
    valid: (value: unknown) => boolean,
    body: unknown,
    options: RequestOptions = {},
    ms = WRITE_TIMEOUT_MS,
  ): Promise<T | null> {
    // Outside the try below: a body that cannot be serialised is not a network failure, and is not retried.
    const payload = JSON.stringify(body);
    const locale = config.locale?.();
    const url = `${base}${path}${path.includes('?') ? '&' : '?'}publicKey=${encodeURIComponent(config.publicKey)}${locale ? `&locale=${encodeURIComponent(locale)}` : ''}`;
    let response: Response;
    let text = '';
    let tooLarge: boolean;
    const badAnswer = (what: string) =>
      new ApiError(
        response.status,
        { detail: `The service's answer to POST ${path.split('?')[0]} ${what}.` },
        undefined,
        'bad-answer',
      );
    try {
      const signal = options.signal ?? timeout(ms);
      response = await doFetch(url, {
        method: 'POST',
        body: payload,
        keepalive: options.keepalive,
        signal,
        credentials: 'omit',
      });
      // A body that could not be a state answer is not read at all.
      tooLarge = Number(response.headers.get('Content-Length')) > MAX_ANSWER_CHARS;
      if (tooLarge) void response.body?.cancel().catch(() => undefined);
      else text = await response.text();
    } catch (error) {
      throw new ApiError(
        0,
        { detail: `No answer from the service: ${error instanceof Error ? error.message : String(error)}` },
        undefined,
        'network',
      );
    }
    if (!response.ok) {
      let problem: unknown;
      try {
        problem = JSON.parse(text);
      } catch {
        // Not a problem body (a proxy's HTML page, say); the status says enough.
      }
      throw new ApiError(
        response.status,
        isObject(problem) ? problem : { status: response.status },
        retryAfterMs(response.headers.get('Retry-After')),
      );
    }
    if (tooLarge || text.length > MAX_ANSWER_CHARS) throw badAnswer('is too large');
    // A service that follows only the spec may answer a write with an empty body.
    if (!text.trim()) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw badAnswer('is not JSON');
    }
    // Parsing a large answer takes up to tens of milliseconds: checking and applying it wait for a task of their own.
    if (text.length > LARGE_ANSWER_CHARS) await nextTask();
    if (isObject(parsed) && Object.keys(parsed).length === 0) return null;
    if (!valid(parsed)) throw badAnswer('does not have the expected shape');
    return parsed as T;
  }

  return {
    sendBatch: async (writes, knownVersions, options) =>
      (await request<BatchResponse>(
        knownVersions ? '/v1/public/batch' : '/v1/public/batch?content=none',
        isBatchResponse,
        { writes, ...(knownVersions ? { knownVersions } : {}) },
        options,
      )) ?? { results: [] },
    readFlowStates: async (body, options) =>
      (await request<FlowStatesResponse>('/v1/public/flowStates', isFlowStates, body, options, READ_TIMEOUT_MS)) ?? {
        eligibleFlows: [],
        ineligibleFlows: [],
      },
  };
}
