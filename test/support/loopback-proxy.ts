// A loopback HTTP proxy in front of the real service, for tests of a network that fails: it can refuse
// connections, hold an answer, lose an answer after the service applied the request, or replace an answer
// (with or without letting the service apply the request first).
import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  idempotencyKey?: string;
  body: string;
  /** Epoch milliseconds the request arrived. */
  at: number;
}

type Match = (request: SeenRequest) => boolean;
type Rule =
  | { kind: 'hold'; match: Match; gate: Promise<void>; arrived: () => void }
  | { kind: 'lose'; match: Match }
  | {
      kind: 'answer';
      match: Match;
      status: number;
      body: string;
      headers: Record<string, string>;
      times: number;
      forward: boolean;
    };

export interface LoopbackProxy {
  url: string;
  /** Every request that reached the proxy while it was up, in arrival order (preflights included). */
  requests: SeenRequest[];
  /** Resets every connection and refuses new ones, as a service that went away. */
  down(): void;
  up(): void;
  /** Forwards the next matching request but holds its answer until `release()`. */
  hold(match: Match): { arrived: Promise<void>; release(): void };
  /** Forwards the next matching request, then resets the connection instead of answering. */
  loseAnswer(match: Match): void;
  /**
   * Answers matching requests itself (every one, or the next `times`). With `forward`, the service gets the
   * request and applies it first, and its answer is replaced; without, the service never sees it.
   */
  answer(
    match: Match,
    status: number,
    body: string,
    options?: { headers?: Record<string, string>; times?: number; forward?: boolean },
  ): void;
  close(): Promise<void>;
}

export async function startLoopbackProxy(target: string): Promise<LoopbackProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const rules: Rule[] = [];
  const requests: SeenRequest[] = [];
  let isDown = false;

  const take = (seen: SeenRequest) => {
    const index = rules.findIndex((rule) => rule.match(seen));
    if (index < 0) return undefined;
    const rule = rules[index];
    if (rule.kind !== 'answer' || --rule.times <= 0) rules.splice(index, 1);
    return rule;
  };

  const handle = (incoming: IncomingMessage, outgoing: ServerResponse, body: Buffer) => {
    const seen: SeenRequest = {
      method: incoming.method ?? 'GET',
      path: incoming.url ?? '/',
      idempotencyKey: incoming.headers['idempotency-key'] as string | undefined,
      body: body.toString('utf8'),
      at: Date.now(),
    };
    requests.push(seen);
    const rule = seen.method === 'OPTIONS' ? undefined : take(seen);
    const replace = (answer: Extract<Rule, { kind: 'answer' }>) =>
      outgoing
        .writeHead(answer.status, {
          'Content-Type': 'application/json',
          'Access-Control-Allow-Origin': '*',
          'Access-Control-Expose-Headers': 'Retry-After',
          ...answer.headers,
        })
        .end(answer.body);
    if (rule?.kind === 'answer' && !rule.forward) {
      replace(rule);
      return;
    }
    const upstreamRequest = forward(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: seen.method,
        path: seen.path,
        headers: { ...incoming.headers, host: upstream.host },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on(
          'end',
          () =>
            void (async () => {
              if (rule?.kind === 'lose') {
                incoming.socket.destroy();
                return;
              }
              if (rule?.kind === 'hold') {
                rule.arrived();
                await rule.gate;
              }
              if (outgoing.destroyed) return;
              if (rule?.kind === 'answer') {
                replace(rule);
                return;
              }
              outgoing.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks));
            })(),
        );
      },
    );
    upstreamRequest.on('error', () => incoming.socket.destroy());
    upstreamRequest.end(body);
  };

  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => handle(incoming, outgoing, Buffer.concat(chunks)));
  });
  server.on('connection', (socket) => {
    if (isDown) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    down() {
      isDown = true;
      for (const socket of sockets) socket.destroy();
    },
    up() {
      isDown = false;
    },
    hold(match) {
      let release!: () => void;
      let arrived!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      rules.push({ kind: 'hold', match, gate, arrived });
      return { arrived: arrival, release };
    },
    loseAnswer(match) {
      rules.push({ kind: 'lose', match });
    },
    answer(match, status, body, { headers = {}, times = Infinity, forward = false } = {}) {
      rules.push({ kind: 'answer', match, status, body, headers, times, forward });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const rule of rules) if (rule.kind === 'hold') void rule.arrived();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
