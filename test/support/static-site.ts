// A loopback site on its own port that serves test pages and the built script, so API calls are cross-origin.
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';

const dist = (file: string) => fileURLToPath(new URL(`../../dist/${file}`, import.meta.url));

export interface StaticSite {
  url: string;
  /** Adds or replaces a page. */
  page(path: string, html: string, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

export async function startStaticSite(): Promise<StaticSite> {
  const pages = new Map<string, { html: string; headers: Record<string, string> }>();
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://site').pathname;
    if (path === '/onboarding.js' || path === '/onboarding.js.map' || path === '/onboarding.mjs') {
      const type = path.endsWith('.map') ? 'application/json' : 'text/javascript';
      response.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' }).end(readFileSync(dist(path.slice(1))));
      return;
    }
    const page = pages.get(path);
    if (!page) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...page.headers }).end(page.html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    page(path, html, headers = {}) {
      pages.set(path, { html, headers });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
