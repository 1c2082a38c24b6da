// Serves the analytics dashboard (dist/dashboard/) at /dashboard when it is turned on, under a strict Content Security Policy.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { HttpProblem } from '../shared/problem.js';

export interface DashboardBuild {
  files: Map<string, { body: Buffer; type: string; etag: string }>;
}

/**
 * Nothing inline, nothing from elsewhere: the page, its module script and stylesheet come from this origin,
 * and it talks only to this origin's API. Lit's styles are constructed stylesheets, which this allows.
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
};

/** The built dashboard: next to the bundled service (dist/dashboard/), or the repository's when run from the sources. */
export function loadDashboardBuild(): DashboardBuild | undefined {
  const folder = ['./dashboard/', '../../dist/dashboard/']
    .map((candidate) => fileURLToPath(new URL(candidate, import.meta.url)))
    .find((f) => existsSync(join(f, 'index.html')));
  if (!folder) return undefined;
  const files = new Map<string, { body: Buffer; type: string; etag: string }>();
  for (const name of readdirSync(folder)) {
    const type = TYPES[/\.[a-z]+$/.exec(name)?.[0] ?? ''];
    if (!type) continue;
    const body = readFileSync(join(folder, name));
    files.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });
  }
  return { files };
}

/**
 * `/dashboard` (the page) and `/dashboard/<file>`, without a key: the page holds no data, and its calls to
 * /v1/analytics/ carry the private key pasted at sign-in. Always revalidated, so an upgrade shows at once.
 * `build` null: turned on but not built, so every path answers 404 saying how to build it.
 */
export function registerDashboardRoutes(app: FastifyInstance, build: DashboardBuild | null): void {
  const send = (reply: FastifyReply, name: string, ifNoneMatch: string | undefined) => {
    if (!build) throw new HttpProblem(404, 'The dashboard is not built; run npm run build.');
    const file = build.files.get(name);
    if (!file) throw new HttpProblem(404, `There is no dashboard file "${name}".`);
    reply
      .header('Content-Security-Policy', DASHBOARD_CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .header('X-Frame-Options', 'DENY')
      .header('Referrer-Policy', 'no-referrer')
      .header('Cache-Control', 'no-cache')
      .header('ETag', file.etag);
    return ifNoneMatch === file.etag ? reply.code(304).send() : reply.type(file.type).send(file.body);
  };
  const config = { public: true };
  app.get('/dashboard', { config }, async (request, reply) =>
    send(reply, 'index.html', request.headers['if-none-match']),
  );
  app.get('/dashboard/', { config }, async (request, reply) =>
    send(reply, 'index.html', request.headers['if-none-match']),
  );
  app.get<{ Params: { file: string } }>('/dashboard/:file', { config }, async (request, reply) =>
    send(reply, request.params.file, request.headers['if-none-match']),
  );
}
