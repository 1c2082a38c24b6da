// Browser benchmark support: headless Chromium, a page site on its own port, and a loopback proxy that adds latency to every answer.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as forward } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));

/** A fresh headless Chromium (CHROME_PATH, else Debian's), closed with its profile by `close()`. */
export async function launchBrowser() {
  const executablePath =
    process.env.CHROME_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
  if (!executablePath) throw new Error('The browser benchmarks need Chromium: install it or set CHROME_PATH.');
  const profile = mkdtempSync(join(tmpdir(), 'onboarding-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));
const closing = (server) =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/**
 * Serves the built script, its chunks (`onboarding-form.js`, `onboarding-strings-pt-BR.js`, …) and the pages given to `page(path, html)`. Each chunk
 * is answered `chunkLatencyMs` late, as from a CDN that far away, and recorded in `chunks` (path, arrival and answer
 * times); the script itself is answered at once, as before every benchmark's clock starts.
 */
export async function startSite({ chunkLatencyMs = 0 } = {}) {
  const pages = new Map();
  const chunks = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url, 'http://site').pathname;
    const file = /^\/onboarding(-[A-Za-z-]+)?\.js$/.exec(path);
    if (file && existsSync(join(root, 'dist', path.slice(1)))) {
      const body = readFileSync(join(root, 'dist', path.slice(1)));
      const send = () =>
        response.writeHead(200, { 'Content-Type': 'text/javascript', 'Cache-Control': 'no-store' }).end(body);
      if (!file[1]) return send();
      const seen = { path, at: Date.now(), answeredAt: 0 };
      chunks.push(seen);
      setTimeout(() => {
        seen.answeredAt = Date.now();
        send();
      }, chunkLatencyMs);
      return;
    }
    const html = pages.get(path);
    response
      .writeHead(html ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
      .end(html ?? 'not found');
  });
  const url = await listen(server);
  return { url, chunks, page: (path, html) => pages.set(path, html), close: () => closing(server) };
}

/**
 * Forwards to `target`, answering each request (preflights included) `ms` later than the service did, as a
 * network with that round-trip time would. `requests` records each one: method, path, arrival and answer times.
 */
export async function startLatencyProxy(target, ms) {
  const upstream = new URL(target);
  const requests = [];
  const server = createServer((incoming, outgoing) => {
    const chunks = [];
    incoming.on('data', (chunk) => chunks.push(chunk));
    incoming.on('end', () => {
      const seen = { method: incoming.method, path: incoming.url, at: Date.now(), answeredAt: 0 };
      requests.push(seen);
      const upstreamRequest = forward(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: upstream.host },
        },
        (answer) => {
          const body = [];
          answer.on('data', (chunk) => body.push(chunk));
          answer.on('end', () =>
            setTimeout(() => {
              seen.answeredAt = Date.now();
              outgoing.writeHead(answer.statusCode, answer.headers).end(Buffer.concat(body));
            }, ms),
          );
        },
      );
      upstreamRequest.on('error', () => incoming.socket.destroy());
      upstreamRequest.end(Buffer.concat(chunks));
    });
  });
  const url = await listen(server);
  return { url, requests, close: () => closing(server) };
}

/** A number with `digits` decimals, as a number. */
export const round = (value, digits = 1) => Number(value.toFixed(digits));
