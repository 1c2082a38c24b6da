// `npm start`: runs the service with the demo flows, embedded storage, the analytics dashboard and the live preview, and serves
// the demo site on another port.
import { createServer } from 'node:http';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPreview, startService } from '../dist/server.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const apiPort = Number(process.env.API_PORT ?? 3100);
const demoPort = Number(process.env.DEMO_PORT ?? 3000);
const previewPort = Number(process.env.PREVIEW_PORT ?? 3101);
const flows = process.env.FLOWS ?? join(root, 'demo/flows');

const service = await startService({
  port: apiPort,
  flows,
  database: process.env.DATABASE ?? join(root, '.data/demo'),
  httpLog: true,
  dashboard: true,
  logger: { warn: (m) => console.warn(`[service] ${m}`), info: (m) => console.log(`[service] ${m}`) },
});
const preview = await startPreview({ catalog: service.catalog, port: previewPort });
const publicKey = service.keys.public[0];
const privateKey = service.keys.private[0];

/** The named users of the demo bar; "Reset demo" deletes them, and the visitor who asked. */
const DEMO_USERS = ['ada', 'grace', 'alan'];

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};
// Only these are served: the pages and assets from demo/, the builds from dist/, and what the import map names.
const FILES = {
  '/': 'demo/index.html',
  '/index.html': 'demo/index.html',
  // The app's second route, drawn by the same page (a full load of it, as after a tour's link, lands here).
  '/reports': 'demo/index.html',
  '/esm.html': 'demo/esm.html',
  '/app.css': 'demo/app.css',
  '/demo.js': 'demo/demo.js',
  '/onboarding.js': 'dist/onboarding.js',
  '/onboarding.js.map': 'dist/onboarding.js.map',
  // The chunks the script loads on demand from beside itself (elements, strings, start rules, forwarding), as the
  // build wrote them.
  ...Object.fromEntries(
    readdirSync(join(root, 'dist'))
      .filter((name) => /^onboarding-[A-Za-z0-9-]+\.js(\.map)?$/.test(name))
      .map((name) => [`/${name}`, `dist/${name}`]),
  ),
  '/onboarding.mjs': 'dist/onboarding.mjs',
  '/onboarding.mjs.map': 'dist/onboarding.mjs.map',
};
const FOLDERS = {
  '/assets/': 'demo/assets/',
  '/vendor/lit/': 'node_modules/lit/',
  '/vendor/lit-html/': 'node_modules/lit-html/',
  '/vendor/lit-element/': 'node_modules/lit-element/',
  '/vendor/@lit/reactive-element/': 'node_modules/@lit/reactive-element/',
  '/vendor/nanostores/': 'node_modules/nanostores/',
};

function fileFor(path) {
  if (FILES[path]) return FILES[path];
  for (const [prefix, folder] of Object.entries(FOLDERS)) {
    if (!path.startsWith(prefix)) continue;
    const file = normalize(folder + path.slice(prefix.length));
    // No way out of the folder, and only the kinds of file a page needs.
    if (!file.startsWith(normalize(folder)) || file.includes(`..${sep}`) || !TYPES[extname(file)]) return undefined;
    return file;
  }
  return undefined;
}

async function resetDemo(request) {
  let body = '';
  for await (const chunk of request) body += chunk;
  const { userId } = JSON.parse(body || '{}');
  const ids = [...DEMO_USERS, ...(typeof userId === 'string' && userId.startsWith('guest_') ? [userId] : [])];
  for (const id of ids) {
    await fetch(`${service.url}/v1/users?foreignId=${encodeURIComponent(id)}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${privateKey}` },
    });
  }
}

const site = createServer(async (request, response) => {
  const path = new URL(request.url ?? '/', 'http://demo').pathname;
  if (path === '/favicon.ico') {
    response.writeHead(204).end();
    return;
  }
  if (path === '/demo/reset' && request.method === 'POST') {
    try {
      await resetDemo(request);
      response.writeHead(204).end();
    } catch {
      response.writeHead(500, { 'Content-Type': 'text/plain' }).end('Reset failed; see the log.');
    }
    return;
  }
  const file = fileFor(decodeURIComponent(path));
  if (!file) {
    response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
    return;
  }
  try {
    let body = await readFile(join(root, file));
    if (file.endsWith('.html')) {
      body = body.toString('utf8').replaceAll('%PUBLIC_KEY%', publicKey).replaceAll('%API_URL%', service.url);
    }
    response
      .writeHead(200, {
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Cache-Control': 'no-store',
      })
      .end(body);
  } catch {
    response
      .writeHead(file.startsWith('dist/') ? 500 : 404, { 'Content-Type': 'text/plain' })
      .end(file.startsWith('dist/') ? 'Run npm run build first.' : 'Not found');
  }
});
site.listen(demoPort, '127.0.0.1', () => {
  console.log(`\nOnboarding demo`);
  console.log(`  demo site:    http://127.0.0.1:${site.address().port}/`);
  console.log(`  ESM page:     http://127.0.0.1:${site.address().port}/esm.html`);
  console.log(`  live preview: ${preview.url}`);
  console.log(`  service API:  ${service.url}`);
  // A local demo's own generated key: the dashboard signs in with it.
  console.log(`  dashboard:    ${service.url}/dashboard (sign in with ${privateKey})`);
  console.log(`  public key:   ${publicKey}`);
  console.log(`  flows:        ${flows} (edit one; the page and the preview follow)\n`);
});

const stop = () => {
  site.close();
  Promise.all([preview.close(), service.close()]).then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
