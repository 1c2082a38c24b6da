// RFC 9457 problem responses: one error class for handlers and one mapper for everything Fastify throws.
import type { FastifyError, FastifyReply } from 'fastify';
import type { Problem } from '../../src/api/wire.js';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  431: 'Request Header Fields Too Large',
  417: 'Expectation Failed',
  421: 'Misdirected Request',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export function problemBody(status: number, detail: string, field?: string): Problem {
  return {
    type: 'about:blank',
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    ...(field ? { field } : {}),
  };
}

export function sendProblem(reply: FastifyReply, status: number, detail: string, field?: string) {
  return reply
    .code(status)
    .type('application/problem+json')
    .send(problemBody(status, detail, field));
}

/** Maps any error thrown while handling a request to a problem: client mistakes become the right 4xx. */
export function toProblem(
  error: FastifyError | HttpProblem | Error,
  bodyLimit?: number,
): { status: number; detail: string; field?: string; headers?: Record<string, string> } {
  if (error instanceof HttpProblem) return error;
  const e = error as FastifyError;
  if (e.validation && e.validation.length > 0) {
    const issue = e.validation[0];
    const path = issue.instancePath?.replace(/^\//, '').replace(/\//g, '.');
    const missing = (issue.params as { missingProperty?: string } | undefined)?.missingProperty;
    const extra = (issue.params as { additionalProperty?: string } | undefined)?.additionalProperty;
    const field = [path, missing ?? extra].filter(Boolean).join('.') || (e.validationContext ?? 'body');
    const where = e.validationContext ?? 'body';
    const detail = missing
      ? `${where} field "${field}" is required`
      : extra
        ? `${where} field "${field}" is not allowed`
        : issue.keyword === 'pattern'
          ? `${where} field "${field}" must not contain control characters`
          : `${where} field "${field}" ${issue.message ?? 'is invalid'}`;
    return { status: 400, detail, field };
  }
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        status: 413,
        detail: `The request body is larger than the limit${bodyLimit ? ` of ${bodyLimit} bytes` : ''}; send less at a time.`,
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, detail: 'Send the body as JSON with "Content-Type: application/json".' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, detail: 'The body is empty; send a JSON object.', field: 'body' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, detail: `The body is not valid JSON: ${e.message}`, field: 'body' };
  }
  if (error instanceof SyntaxError || e.statusCode === 400) {
    return { status: 400, detail: `The body is not valid JSON: ${e.message}`, field: 'body' };
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return { status: e.statusCode, detail: e.message };
  }
  if (isDatabaseUnavailable(error)) {
    return {
      status: 503,
      detail: 'The database is unavailable for a moment; retry in 1 s.',
      headers: { 'Retry-After': '1' },
    };
  }
  return { status: 500, detail: 'The service failed to handle this request; it has been logged.' };
}

/** PostgreSQL going away (a restart, a failover, a refused connection): a passing state, answered 503, not a bug. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

function isDatabaseUnavailable(error: Error): boolean {
  const code = (error as { code?: string }).code;
  return (
    (code !== undefined && UNAVAILABLE_CODES.has(code)) ||
    /Connection terminated|connection timeout|Client has encountered a connection error/i.test(error.message)
  );
}
