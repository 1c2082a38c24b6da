// `npm start`: runs the service with the demo flows and embedded storage, and serves the demo page on another port.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startService } from '../dist/server.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const apiPort = Number(process.env.API_PORT ?? 3100);
const demoPort = Number(process.env.DEMO_PORT ?? 3000);

const service = await startService({
  port: apiPort,
  flows: join(root, 'demo/flows'),
  database: process.env.DATABASE ?? join(root, '.data/demo'),
  httpLog: true,
  logger: { warn: (m) => console.warn(`[service] ${m}`), info: (m) => console.log(`[service] ${m}`) },
});
const publicKey = service.keys.public[0];

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.map': 'application/json', '.css': 'text/css' };
// Only these files are served: the page from demo/ and the built script (and its tour chunk) from dist/.
const FILES = { '/': 'demo/index.html', '/index.html': 'demo/index.html', '/onboarding.js': 'dist/onboarding.js', '/onboarding.js.map': 'dist/onboarding.js.map', '/onboarding-tour.js': 'dist/onboarding-tour.js', '/onboarding-tour.js.map': 'dist/onboarding-tour.js.map' };

const site = createServer(async (request, response) => {
  const path = new URL(request.url ?? '/', 'http://demo').pathname;
  if (path === '/favicon.ico') {
    response.writeHead(204).end();
    return;
  }
  const file = FILES[path];
  if (!file) {
    response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
    return;
  }
  try {
    let body = await readFile(normalize(join(root, file)));
    if (file.endsWith('.html')) {
      body = body.toString('utf8').replaceAll('%PUBLIC_KEY%', publicKey).replaceAll('%API_URL%', service.url);
    }
    response.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' }).end(body);
  } catch {
    response.writeHead(500, { 'Content-Type': 'text/plain' }).end('Run npm run build first.');
  }
});
site.listen(demoPort, '127.0.0.1', () => {
  console.log(`\nOnboarding demo`);
  console.log(`  demo site:   http://127.0.0.1:${site.address().port}/`);
  console.log(`  service API: ${service.url}`);
  console.log(`  public key:  ${publicKey}\n`);
});

const stop = () => {
  site.close();
  service.close().then(() => process.exit(0), () => process.exit(1));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
