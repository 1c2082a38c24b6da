// What a request for flow states asks of the answer: its content mode, its locale, and whether flows the user is targeted out of come hidden.
import type { IncomingHttpHeaders } from 'node:http';
import type { FlowContentMode, TargetedOutMode } from '../../src/api/wire.js';
import { canonicalLocale } from '../flows/translations.js';

/** The query fields every endpoint that answers flow states takes (validated by `contentQuerySchema`). */
export interface StateQuery {
  content?: FlowContentMode;
  targetedOut?: TargetedOutMode;
  locale?: string;
}

/**
 * The answer's modes for a request. Without `targetedOut` in the query, Frigade's SDKs (every @frigade/js version
 * sends these headers) get `hidden`: they follow only flows an answer has listed, so a flow that becomes eligible
 * later must be listed before it is. Other clients get `omit`.
 */
export function stateAnswerModes(request: { query: StateQuery; headers: IncomingHttpHeaders }): {
  content?: FlowContentMode;
  targetedOut: TargetedOutMode;
  locale?: string;
} {
  const { content, targetedOut } = request.query;
  // A code that is not one reads as none: the source text, as a client with no locale gets (not a 400: the page
  // may pass on whatever the browser or a user property says).
  const locale = canonicalLocale(request.query.locale);
  if (targetedOut !== undefined) return { content, targetedOut, locale };
  const { headers } = request;
  const fromSdk = headers['x-frigade-sdk-version'] !== undefined || headers['x-frigade-sdk-platform'] !== undefined;
  return { content, targetedOut: fromSdk ? 'hidden' : 'omit', locale };
}
