// Requests from chosen loopback addresses (every 127.x.y.z reaches the loopback device), so one test process is many visitors.
import { Agent, request as httpRequest } from 'node:http';
import { PUBLIC_KEY, type TestService } from './service.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request from a chosen loopback address, optionally with headers. */
export function send(
  service: TestService,
  method: string,
  path: string,
  from: string,
  body?: unknown,
  headers: Record<string, string> = {},
  agent?: Agent,
): Promise<Answer> {
  const url = new URL(service.url + path);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress: from,
        // A connection of its own per request, unless the caller keeps connections open.
        agent: agent ?? false,
        headers: {
          Authorization: `Bearer ${PUBLIC_KEY}`,
          ...(payload ? { 'Content-Type': 'application/json' } : {}),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Runs `tasks` with at most `width` at a time. */
export async function pooled<T>(tasks: Array<() => Promise<T>>, width = 32): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const index = next++;
        results[index] = await tasks[index]();
      }
    }),
  );
  return results;
}

/** The nth visitor's address: 127.0.10.1, 127.0.10.2, … */
export const visitor = (n: number) => `127.0.${Math.floor(n / 250) + 10}.${(n % 250) + 1}`;
