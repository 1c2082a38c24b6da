// The dashboard's calls to the analytics, experiments, collections and explain API, made with the private key pasted at sign-in (kept in sessionStorage, never in a URL).
import type {
  AnalyticsFlowResponse,
  AnalyticsFlowsResponse,
  AnalyticsResponsesResponse,
  CollectionsResponse,
  ExperimentReport,
  ExperimentsReportResponse,
  ExplainResponse,
  Problem,
} from '../../src/api/wire.js';

const KEY = 'onboarding-dashboard:key';

/** The pasted key, for this tab only: sessionStorage is dropped when the tab closes and is never sent anywhere but the header. */
export const session = {
  get key(): string | null {
    try {
      return sessionStorage.getItem(KEY);
    } catch {
      return null;
    }
  },
  set(key: string): void {
    sessionStorage.setItem(KEY, key);
  },
  clear(): void {
    sessionStorage.removeItem(KEY);
  },
};

/** A refused call: `status` 401 or 403 means the key is not a private key of this service. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The window and filters of a report. */
export interface ReportQuery {
  /** Days up to and including today. */
  days: number;
  version?: number;
}

/** `from` is midnight UTC `days - 1` days ago; `to` is left to the service (the end of today). */
function search(query: ReportQuery, extra: Record<string, string | undefined> = {}): string {
  const from = new Date(Date.now() - (query.days - 1) * 86_400_000).toISOString().slice(0, 10);
  const params = new URLSearchParams({ from });
  if (query.version) params.set('version', String(query.version));
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) params.set(name, value);
  return params.toString();
}

async function call(path: string, accept: string, key = session.key): Promise<Response> {
  const response = await fetch(path, {
    headers: { Authorization: `Bearer ${key ?? ''}`, Accept: accept },
    cache: 'no-store',
  });
  if (!response.ok) {
    const problem = (await response.json().catch(() => undefined)) as Problem | undefined;
    throw new ApiError(response.status, problem?.detail ?? `The service answered ${response.status}.`);
  }
  return response;
}

/** Hands a fetched file to the browser as a download: the key stays in the header, never in an address. */
async function saveAs(response: Response, fallbackName: string): Promise<void> {
  const name = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await response.blob());
  const link = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const json = async <T>(path: string, key?: string) => (await (await call(path, 'application/json', key)).json()) as T;

export const api = {
  /** Checks a key by asking for the smallest report; throws ApiError when it is refused. */
  check: (key: string) => json<AnalyticsFlowsResponse>(`/v1/analytics/flows?${search({ days: 1 })}`, key),
  flows: (query: ReportQuery) => json<AnalyticsFlowsResponse>(`/v1/analytics/flows?${search(query)}`),
  flow: (slug: string, query: ReportQuery) =>
    json<AnalyticsFlowResponse>(`/v1/analytics/flows/${encodeURIComponent(slug)}?${search(query)}`),
  collections: () => json<CollectionsResponse>('/v1/collections'),
  answers: (slug: string, query: ReportQuery, cursor?: string) =>
    json<AnalyticsResponsesResponse>(
      `/v1/analytics/flows/${encodeURIComponent(slug)}/responses?${search(query, { cursor, limit: '25' })}`,
    ),
  experiments: () => json<ExperimentsReportResponse>('/v1/analytics/experiments'),
  experiment: (id: string) => json<ExperimentReport>(`/v1/analytics/experiments/${encodeURIComponent(id)}`),
  /** Why each flow is or is not shown to the user now (as a read with the group, if given), with what the rules read. */
  explain: (userId: string, groupId?: string) =>
    json<ExplainResponse>(
      `/v1/users/${encodeURIComponent(userId)}/explain${groupId ? `?${new URLSearchParams({ groupId })}` : ''}`,
    ),
  /** Fetches the answers' CSV with the key in the header and hands it to the browser as a download. */
  async downloadCsv(slug: string, query: ReportQuery): Promise<void> {
    const path = `/v1/analytics/flows/${encodeURIComponent(slug)}/responses?${search(query)}`;
    await saveAs(await call(path, 'text/csv'), `${slug}-answers.csv`);
  },
  /** Fetches an experiment's participants (user, variant, exposed at, converted at) as CSV, as a download. */
  async downloadParticipants(id: string): Promise<void> {
    const path = `/v1/analytics/experiments/${encodeURIComponent(id)}/participants.csv`;
    await saveAs(await call(path, 'text/csv'), `${id}-participants.csv`);
  },
};
