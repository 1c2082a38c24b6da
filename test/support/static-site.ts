// A loopback site on its own port that serves test pages and the built script, so API calls are cross-origin.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';

const dist = (file: string) => fileURLToPath(new URL(`../../dist/${file}`, import.meta.url));

/** What the site's own backend answers on a route. */
export interface RouteAnswer {
  status?: number;
  type?: string;
  body: string;
}

export interface StaticSite {
  url: string;
  /** Adds or replaces a page. */
  page(path: string, html: string, headers?: Record<string, string>): void;
  /** Adds or replaces a route the site's backend answers, as a customer's server would: it sees the request, cookies included. */
  route(path: string, answer: (request: IncomingMessage) => RouteAnswer): void;
  close(): Promise<void>;
}

export async function startStaticSite(): Promise<StaticSite> {
  const pages = new Map<string, { html: string; headers: Record<string, string> }>();
  const routes = new Map<string, (request: IncomingMessage) => RouteAnswer>();
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://site').pathname;
    const route = routes.get(path);
    if (route) {
      const answer = route(request);
      response
        .writeHead(answer.status ?? 200, {
          'Content-Type': answer.type ?? 'application/json',
          'Cache-Control': 'no-store',
        })
        .end(answer.body);
      return;
    }
    // The script, its on-demand chunks (onboarding-form.js, …) and the ESM build, with their source maps.
    if (/^\/onboarding(-[A-Za-z-]+)?\.(js|mjs)(\.map)?$/.test(path) && existsSync(dist(path.slice(1)))) {
      const type = path.endsWith('.map') ? 'application/json' : 'text/javascript';
      response
        .writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' })
        .end(readFileSync(dist(path.slice(1))));
      return;
    }
    const page = pages.get(path);
    if (!page) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    response
      .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...page.headers })
      .end(page.html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    page(path, html, headers = {}) {
      pages.set(path, { html, headers });
    },
    route(path, answer) {
      routes.set(path, answer);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
