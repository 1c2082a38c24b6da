// Webhook endpoints from flags, environment variables and webhooks.yaml beside the flows: each a URL, a signing secret and the events it takes.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../src/api/wire.js';
import { WEBHOOK_FILES } from '../flows/definitions.js';

export interface WebhookEndpoint {
  /** Where events are POSTed; it also names the endpoint in the outbox. */
  url: string;
  /** The HMAC-SHA256 key deliveries are signed with. */
  secret: string;
  /** The event types it takes; null takes every type. */
  events: readonly WebhookEventType[] | null;
}
/** The shortest secret taken: shorter ones are guessable. */
export const MIN_SECRET_LENGTH = 16;

function checkUrl(where: string, url: unknown): string {
  if (typeof url !== 'string') throw new Error(`${where} needs a "url"`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${where} url "${url}" is not a URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new Error(`${where} url "${url}" must be http or https`);
  return url;
}

function checkSecret(where: string, secret: unknown): string {
  if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) {
    throw new Error(
      `${where} needs a secret of at least ${MIN_SECRET_LENGTH} characters (openssl rand -hex 32 makes one)`,
    );
  }
  return secret;
}

function checkEvents(where: string, events: unknown): readonly WebhookEventType[] | null {
  if (events === undefined || events === null) return null;
  const list =
    typeof events === 'string'
      ? events
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean)
      : events;
  if (!Array.isArray(list) || list.length === 0) throw new Error(`${where} events must be a list of event types`);
  for (const event of list) {
    if (!(WEBHOOK_EVENT_TYPES as readonly unknown[]).includes(event)) {
      throw new Error(
        `${where} has unknown event "${String(event)}"; expected one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
      );
    }
  }
  return list as WebhookEventType[];
}

/**
 * Endpoints from `--webhook` (repeatable) or `ONBOARDING_WEBHOOK_URLS` (comma-separated), all signed with
 * `--webhook-secret` / `ONBOARDING_WEBHOOK_SECRET` and filtered by `--webhook-events` / `ONBOARDING_WEBHOOK_EVENTS`
 * (comma-separated; every event when absent). A flag wins over its variable. Throws an Error saying what to fix.
 */
export function endpointsFromSettings(
  flags: { urls?: string[]; secret?: string; events?: string },
  env: NodeJS.ProcessEnv,
): WebhookEndpoint[] {
  const urls = flags.urls?.length
    ? flags.urls
    : (env.ONBOARDING_WEBHOOK_URLS ?? '')
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean);
  if (urls.length === 0) return [];
  const secret = checkSecret('--webhook (ONBOARDING_WEBHOOK_URLS)', flags.secret ?? env.ONBOARDING_WEBHOOK_SECRET);
  const events = checkEvents(
    '--webhook-events (ONBOARDING_WEBHOOK_EVENTS)',
    flags.events ?? env.ONBOARDING_WEBHOOK_EVENTS,
  );
  return urls.map((url) => ({ url: checkUrl('--webhook', url), secret, events }));
}

/**
 * Endpoints from `webhooks.yaml` (or `.yml`) in the flow folder; none when there is no such file. Throws an
 * Error naming the file and the problem.
 *
 * ```yaml
 * endpoints:
 *   - url: https://hooks.example.com/onboarding
 *     secretEnv: CRM_WEBHOOK_SECRET        # the environment variable that holds the secret
 *     events: [flow.completed, survey.answered]
 * ```
 */
export function endpointsFromFile(dir: string, env: NodeJS.ProcessEnv): WebhookEndpoint[] {
  const file = WEBHOOK_FILES.find((name) => existsSync(join(dir, name)));
  if (!file) return [];
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(join(dir, file), 'utf8'));
  } catch (error) {
    throw new Error(`${file}: bad YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, {
      cause: error,
    });
  }
  const list = (doc as { endpoints?: unknown } | null)?.endpoints;
  if (!Array.isArray(list))
    throw new Error(`${file} must hold "endpoints:", a list of { url, secretEnv or secret, events }`);
  return list.map((entry: unknown, index) => {
    const where = `${file} endpoint ${index + 1}`;
    if (typeof entry !== 'object' || entry === null)
      throw new Error(`${where} must be a mapping with url, secretEnv and events`);
    const { url, secret, secretEnv, events, ...rest } = entry as Record<string, unknown>;
    const unknown = Object.keys(rest)[0];
    if (unknown)
      throw new Error(`${where} has unknown key "${unknown}"; expected url, secretEnv (or secret) and events`);
    if (secretEnv !== undefined && typeof secretEnv !== 'string')
      throw new Error(`${where} secretEnv must name an environment variable`);
    const value = secretEnv ? env[secretEnv] : secret;
    if (secretEnv && value === undefined)
      throw new Error(`${where}: the environment variable ${secretEnv} (its secretEnv) is not set`);
    return { url: checkUrl(where, url), secret: checkSecret(where, value), events: checkEvents(where, events) };
  });
}

/** Refuses two endpoints with one URL: the URL names an endpoint in the outbox. */
export function checkDistinct(endpoints: WebhookEndpoint[]): WebhookEndpoint[] {
  const seen = new Set<string>();
  for (const endpoint of endpoints) {
    if (seen.has(endpoint.url))
      throw new Error(`webhook endpoint ${endpoint.url} is configured twice; give it once, with every event it takes`);
    seen.add(endpoint.url);
  }
  return endpoints;
}
