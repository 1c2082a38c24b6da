// A real HTTP receiver of webhooks on loopback: records every delivery, and answers with whatever status a test sets.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookEvent } from '../../src/api/wire.js';

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status the receiver answered with. */
  status: number;
}

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  /** The events the receiver accepted (answered 2xx), in order. */
  accepted(): WebhookEvent[];
  /** The status of the next answers (200 unless set); a function decides per delivery. */
  answer(status: number | ((delivery: Omit<Delivery, 'status'>) => number)): void;
  /** Waits before answering each delivery. */
  delay(ms: number): void;
  /** Resolves once `predicate` holds, or rejects after `ms`. */
  waitFor(predicate: (receiver: WebhookReceiver) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** Checks a delivery's signature as docs/analytics.md tells receivers to: HMAC-SHA256 over "<t>.<body>", within five minutes. */
export function verifySignature(secret: string, header: string | undefined, body: string, now = Date.now()): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((part) => part.split('=') as [string, string]));
  const timestamp = Number(parts.t);
  if (!Number.isInteger(timestamp) || Math.abs(now / 1000 - timestamp) > 300 || !parts.v1) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  let status: number | ((delivery: Omit<Delivery, 'status'>) => number) = 200;
  let delayMs = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const delivery = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      const code = typeof status === 'function' ? status(delivery) : status;
      deliveries.push({ ...delivery, status: code });
      setTimeout(() => response.writeHead(code, { 'Content-Type': 'text/plain' }).end('ok'), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    deliveries,
    accepted: () =>
      deliveries.filter((d) => d.status >= 200 && d.status < 300).map((d) => JSON.parse(d.body) as WebhookEvent),
    answer(next) {
      status = next;
    },
    delay(ms) {
      delayMs = ms;
    },
    async waitFor(predicate, ms = 15_000) {
      const deadline = Date.now() + ms;
      while (!predicate(receiver)) {
        if (Date.now() > deadline)
          throw new Error(
            `the receiver did not get what was expected within ${ms} ms (${deliveries.length} deliveries)`,
          );
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
