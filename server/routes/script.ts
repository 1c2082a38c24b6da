// Serves the built script (onboarding.js and its chunks) from the service itself, so self-hosting is one origin.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { HttpProblem } from '../shared/problem.js';

export interface ScriptBuild {
  /** A content hash of onboarding.js and its chunks: the path segment under which this build is cached for good. */
  build: string;
  /** `sha384-…`, for the script tag's `integrity` attribute. */
  integrity: string;
  files: Map<string, { body: Buffer; type: string; etag: string }>;
}

/** The folder holding onboarding.js: next to the bundled service (dist/), or the repository's dist/ when run from the sources. */
function distFolder(): string | undefined {
  for (const candidate of ['./', '../../dist/']) {
    const folder = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(join(folder, 'onboarding.js'))) return folder;
  }
  return undefined;
}

/** Reads the browser build once, at start; undefined when the script has not been built. */
export function loadScriptBuild(folder = distFolder()): ScriptBuild | undefined {
  if (!folder) return undefined;
  // The script tag's file and the chunks it loads on demand (plain .js files), with their source maps. The selector
  // picker is for authors, from the live preview: not served to visitors, nor in the build's hash.
  const names = readdirSync(folder).filter(
    (name) => /\.js(\.map)?$/.test(name) && !name.startsWith('onboarding-picker.'),
  );
  const files = new Map<string, { body: Buffer; type: string; etag: string }>();
  for (const name of names) {
    const body = readFileSync(join(folder, name));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    files.set(name, {
      body,
      type: name.endsWith('.map') ? 'application/json' : 'text/javascript; charset=utf-8',
      etag,
    });
  }
  const main = files.get('onboarding.js')!.body;
  // Every file in the hash: a chunk that changes while onboarding.js does not must not be served from a cached build.
  const hash = createHash('sha256');
  for (const name of [...files.keys()].sort()) hash.update(`${name}\0`).update(files.get(name)!.body);
  return {
    build: hash.digest('hex').slice(0, 12),
    integrity: `sha384-${createHash('sha384').update(main).digest('base64')}`,
    files,
  };
}

const FOREVER = 'public, max-age=31536000, immutable';
/** The unversioned address follows upgrades within minutes. */
const SHORT = 'public, max-age=300, stale-while-revalidate=86400';

/**
 * `/script/<build>/<file>` is cached for good (the build is a content hash), and `/<file>` (e.g.
 * `/onboarding.js`) for five minutes. No key is needed: the script is public, as on a CDN.
 */
export function registerScriptRoutes(app: FastifyInstance, script: ScriptBuild | undefined): void {
  const send = (name: string, cacheControl: string, ifNoneMatch: string | undefined) => {
    const file = script?.files.get(basename(name));
    if (!script || !file) {
      throw new HttpProblem(
        404,
        script ? `There is no script file "${name}" in this build.` : 'The script is not built; run npm run build.',
      );
    }
    return { file, cacheControl, notModified: ifNoneMatch === file.etag };
  };
  const config = { public: true };
  app.get<{ Params: { build: string; file: string } }>('/script/:build/:file', { config }, async (request, reply) => {
    if (script && request.params.build !== script.build) {
      throw new HttpProblem(
        404,
        `Build ${request.params.build} is not served here; this service serves build ${script.build}.`,
      );
    }
    const { file, cacheControl, notModified } = send(request.params.file, FOREVER, request.headers['if-none-match']);
    reply
      .header('Cache-Control', cacheControl)
      .header('ETag', file.etag)
      .header('Cross-Origin-Resource-Policy', 'cross-origin');
    return notModified ? reply.code(304).send() : reply.type(file.type).send(file.body);
  });
  app.get<{ Params: { file: string } }>('/:file', { config }, async (request, reply) => {
    if (!/\.js(\.map)?$/.test(request.params.file))
      throw new HttpProblem(404, `There is no GET /${request.params.file} endpoint.`);
    const { file, cacheControl, notModified } = send(request.params.file, SHORT, request.headers['if-none-match']);
    reply
      .header('Cache-Control', cacheControl)
      .header('ETag', file.etag)
      .header('Cross-Origin-Resource-Policy', 'cross-origin');
    return notModified ? reply.code(304).send() : reply.type(file.type).send(file.body);
  });
}
