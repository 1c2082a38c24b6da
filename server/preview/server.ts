// Live preview (development only, `--preview`): a page on its own port that renders every flow of the folder with the
// real elements, in light, dark and RTL, reloads when a flow file changes, and offers the selector picker's bookmarklet.
// Its pages, scripts and stylesheet are tools/preview/'s, built into dist/preview/.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FlowCatalog } from '../flows/catalog.js';
import type { PreviewFlows } from '../../src/api/preview.js';
import { bookmarkletLink } from './bookmarklet.js';
import { problemBody } from '../shared/problem.js';

export interface PreviewOptions {
  catalog: FlowCatalog;
  /** Port to listen on; 0 picks a free one. @default 3101 */
  port?: number;
  /**
   * Address to listen on, and the one name besides the loopback ones its requests may carry in `Host`. Not the
   * service's `--host`: the preview shows drafts with no key, so it stays on loopback unless asked.
   * @default '127.0.0.1'
   */
  host?: string;
  /** The script-tag build the frames load, with its chunks beside it. @default dist/onboarding.js next to the service build */
  script?: string;
}

export interface RunningPreview {
  url: string;
  close(): Promise<void>;
}

/** dist/onboarding.js, whether this module runs from dist/server.mjs or from its source. */
function findScript(): string | undefined {
  return ['./onboarding.js', '../../dist/onboarding.js']
    .map((path) => fileURLToPath(new URL(path, import.meta.url)))
    .find((path) => existsSync(path));
}

/** The built preview (dist/preview/), whether this module runs from dist/server.mjs or from its source. */
function findAssets(): string | undefined {
  return ['./preview/', '../../dist/preview/']
    .map((path) => fileURLToPath(new URL(path, import.meta.url)))
    .find((path) => existsSync(join(path, 'index.html')));
}

/** The preview's own files, by the path each is served at, with its type; the scripts' source maps too. */
const ASSETS: Record<string, { file: string; type: string }> = {
  '/preview/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/preview/frame.html': { file: 'frame.html', type: 'text/html; charset=utf-8' },
  '/preview/page.js': { file: 'page.js', type: 'text/javascript; charset=utf-8' },
  '/preview/frame.js': { file: 'frame.js', type: 'text/javascript; charset=utf-8' },
  '/preview/preview.css': { file: 'preview.css', type: 'text/css; charset=utf-8' },
  '/preview/page.js.map': { file: 'page.js.map', type: 'application/json' },
  '/preview/frame.js.map': { file: 'frame.js.map', type: 'application/json' },
};

const SECURITY = {
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-cache',
  'Referrer-Policy': 'no-referrer',
  // The pages run only their own scripts; flow text goes through the elements' safe rendering.
  'Content-Security-Policy':
    "default-src 'self'; img-src * data:; media-src *; style-src 'self' 'unsafe-inline'; frame-ancestors 'self'",
};

export async function startPreview(options: PreviewOptions): Promise<RunningPreview> {
  const { catalog } = options;
  const script = options.script ?? findScript();
  const assets = findAssets();
  const streams = new Set<ServerResponse>();
  // Each reload carries the flows, so the page redraws without asking again.
  const stopListening = catalog.onLoad(() => {
    if (!streams.size) return;
    const event = `event: reload\ndata: ${flowsJson()}\n\n`;
    for (const stream of streams) stream.write(event);
  });

  function flowsJson(): string {
    return JSON.stringify({
      flows: catalog.list().map(({ definition, flow }) => ({
        file: definition.file,
        slug: flow.slug,
        name: flow.name,
        type: flow.type,
        status: flow.status,
        version: flow.version,
        targetingLogic: flow.targetingLogic,
        data: definition.data,
      })),
      errors: catalog.errors().map((error) => ({ file: error.file, problems: error.problems })),
    } satisfies PreviewFlows);
  }

  /**
   * The page with the selector picker, built beside the script, in it whole as the bookmarklet's address (put in by a
   * function: the code has `$&` in it, which a replacement string would expand).
   */
  const withBookmarklet = (page: string) => {
    const picker = script ? join(dirname(script), 'onboarding-picker.js') : undefined;
    const code = picker && existsSync(picker) ? readFileSync(picker, 'utf8') : undefined;
    return page.replace('<!--bookmarklet-->', () => bookmarkletLink(code));
  };

  const send = (response: ServerResponse, type: string, body: string | Buffer) => {
    response.writeHead(200, { ...SECURITY, 'Content-Type': type }).end(body);
  };

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    // A page on another name that resolves here (DNS rebinding) sends that name: it gets nothing, not even the page.
    if (!allowedHosts.has((request.headers.host ?? '').toLowerCase())) {
      const detail = `The live preview answers only requests addressed to it (${[...allowedHosts].join(', ')}); Host was "${(request.headers.host ?? '').slice(0, 100)}".`;
      response
        .writeHead(421, { ...SECURITY, 'Content-Type': 'application/problem+json' })
        .end(JSON.stringify(problemBody(421, detail)));
      return;
    }
    const path = new URL(request.url ?? '/', 'http://preview').pathname;
    if (request.method !== 'GET') {
      response.writeHead(405, { Allow: 'GET' }).end();
      return;
    }
    // The chunks the script loads from beside itself (onboarding-form.js, …), from beside the script file.
    const chunk = /^\/preview\/(onboarding-[A-Za-z-]+\.js)$/.exec(path)?.[1];
    if (chunk && script && existsSync(join(dirname(script), chunk)))
      return send(response, 'text/javascript; charset=utf-8', readFileSync(join(dirname(script), chunk)));
    const asset = Object.hasOwn(ASSETS, path) ? ASSETS[path] : undefined;
    if (asset) {
      if (!assets) {
        response.writeHead(500, { 'Content-Type': 'text/plain' }).end('dist/preview/ is missing: run npm run build.');
        return;
      }
      const body = readFileSync(join(assets, asset.file), 'utf8');
      return send(response, asset.type, path === '/preview/' ? withBookmarklet(body) : body);
    }
    switch (path) {
      case '/':
        response.writeHead(302, { Location: '/preview/' }).end();
        return;
      case '/favicon.ico':
        response.writeHead(204).end();
        return;
      case '/preview/flows.json':
        return send(response, 'application/json', flowsJson());
      case '/preview/onboarding.js':
        if (!script) {
          response
            .writeHead(500, { 'Content-Type': 'text/plain' })
            .end('dist/onboarding.js is missing: run npm run build.');
          return;
        }
        return send(response, 'text/javascript; charset=utf-8', readFileSync(script));
      case '/preview/events':
        response.writeHead(200, { ...SECURITY, 'Content-Type': 'text/event-stream', Connection: 'keep-alive' });
        response.write('retry: 500\n\n');
        streams.add(response);
        request.on('close', () => streams.delete(response));
        return;
      default:
        response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
    }
  };

  const server = createServer((request, response) => {
    try {
      handle(request, response);
    } catch {
      if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'text/plain' });
      response.end('The preview failed; see the service log.');
    }
  });
  const host = options.host ?? '127.0.0.1';
  // Filled once the port is known; until then (nothing is listening) no request comes.
  const allowedHosts = new Set<string>();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3101, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  // A browser leaves out port 80.
  for (const name of hostNames(host)) allowedHosts.add(port === 80 ? name : `${name}:${port}`);
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/preview/`,
    close: () =>
      new Promise<void>((resolve) => {
        stopListening();
        for (const stream of streams) stream.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const bracketed = (address: string) => (isIP(address) === 6 ? `[${address}]` : address);

/**
 * The names a request to a preview listening on `host` may carry in `Host` (before the port): the address itself, the
 * loopback names when it is loopback or every address, and each address of this machine when it is every address
 * (0.0.0.0, ::). Never any other name, so a page whose own name was made to resolve here cannot read the preview.
 */
export function hostNames(host: string): string[] {
  const name = bracketed(host.toLowerCase());
  const wildcard = host === '0.0.0.0' || host === '::';
  const loopback = name === 'localhost' || name === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(name);
  const names = new Set([name, ...(loopback || wildcard ? LOOPBACK_NAMES : [])]);
  if (wildcard) {
    for (const list of Object.values(networkInterfaces()))
      for (const entry of list ?? []) names.add(bracketed(entry.address.toLowerCase()));
  }
  return [...names];
}
