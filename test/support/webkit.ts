// Drives WebKitGTK's MiniBrowser through WebKitWebDriver (classic W3C WebDriver over HTTP) under its own Xvfb display: the WebKit engine for the journeys.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ensureBrowser, type BrowserPackage } from './debian-browser.js';
import type { Engine, EnginePage, Selector } from './engines.js';

const DRIVER: BrowserPackage = {
  label: 'WebKitWebDriver',
  debianPackage: 'webkit2gtk-driver',
  pathVariable: 'WEBKIT_DRIVER_PATH',
  candidates: ['/usr/bin/WebKitWebDriver'],
};
const XVFB: BrowserPackage = {
  label: 'Xvfb',
  debianPackage: 'xvfb',
  pathVariable: 'XVFB_PATH',
  candidates: ['/usr/bin/Xvfb'],
};
/** The driver's package brings WebKitGTK, whose MiniBrowser sits in an architecture's library folder. */
const miniBrowser = (): BrowserPackage => ({
  label: 'MiniBrowser',
  debianPackage: 'webkit2gtk-driver',
  pathVariable: 'MINIBROWSER_PATH',
  candidates: readdirSync('/usr/lib').map((dir) => join('/usr/lib', dir, 'webkit2gtk-4.1', 'MiniBrowser')),
});

/** Makes sure the driver, the display server and MiniBrowser are there, installing their packages where the machine allows. */
export function ensureWebKit(): void {
  ensureBrowser(DRIVER);
  ensureBrowser(XVFB);
  ensureBrowser(miniBrowser());
}

const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';
const ACTION_TIMEOUT = 8000;
/** WebDriver's code points for the keys the journeys press. */
const KEYS: Record<string, string> = {
  Enter: '\uE007',
  Escape: '\uE00C',
  Tab: '\uE004',
  ArrowLeft: '\uE012',
  ArrowUp: '\uE013',
  ArrowRight: '\uE014',
  ArrowDown: '\uE015',
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** In the page: the first match (or all) of a selector whose `>>>` steps into each host's open shadow root. */
const FIND = `
function scopeOf(parts) {
  let scope = document;
  for (const part of parts) { const host = scope.querySelector(part); if (!host) return null; scope = host.shadowRoot || host; }
  return scope;
}
function findAll(selector) {
  const parts = selector.split('>>>').map((part) => part.trim());
  const last = parts.pop();
  const scope = scopeOf(parts);
  return scope ? [...scope.querySelectorAll(last)] : [];
}
const find = (selector) => findAll(selector)[0] || null;`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts Xvfb on a display it picks itself. It must not reset when its last client leaves: a MiniBrowser starting then cannot open the display. */
function startXvfb(): Promise<{ process: ChildProcess; display: string }> {
  const child = spawn(
    ensureBrowser(XVFB),
    ['-displayfd', '3', '-noreset', '-nolisten', 'tcp', '-screen', '0', '1280x800x24'],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdio[3]!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve({ process: child, display: `:${out.trim()}` });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`Xvfb exited with ${code} before it was ready`)));
  });
}

export async function launchWebKit(): Promise<Engine> {
  const binary = ensureBrowser(miniBrowser());
  const xvfb = await startXvfb();
  const port = await freePort();
  const driver = spawn(ensureBrowser(DRIVER), [`--port=${port}`], {
    env: { ...process.env, DISPLAY: xvfb.display },
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  /** Stops the driver and the display, and waits for both to exit, so none outlives the test process. */
  const stop = () =>
    Promise.all(
      [driver, xvfb.process].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill();
          }),
      ),
    );

  async function call(method: string, path: string, body?: unknown, timeout = 30_000): Promise<any> {
    const response = await fetch(base + path, {
      method,
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeout),
    });
    const json = (await response.json()) as { value: any };
    if (!response.ok) throw new Error(`WebKitWebDriver ${method} ${path}: ${JSON.stringify(json.value).slice(0, 400)}`);
    return json.value;
  }

  for (let started = Date.now(); ; await sleep(50)) {
    const ready = await call('GET', '/status', undefined, 1000).then(
      (status) => status?.ready === true,
      () => false,
    );
    if (ready) break;
    if (Date.now() - started > 10_000) {
      await stop();
      throw new Error('WebKitWebDriver did not answer within 10 s');
    }
  }

  const sessions = new Set<string>();
  let version = '';
  return {
    name: 'webkit',
    get version() {
      return version;
    },
    async newPage() {
      // A session is a MiniBrowser of its own: a visitor with its own storage. The driver holds one at a time.
      const session = await call('POST', '/session', {
        capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary, args: ['--automation'] } } },
      });
      const id: string = session.sessionId;
      sessions.add(id);
      version ||= `webkitgtk/${session.capabilities.browserVersion}`;
      // The other engines' pages are 1280×720; MiniBrowser's window frame takes 38 px of its height.
      await call('POST', `/session/${id}/window/rect`, { width: 1280, height: 758 });
      const run = async (body: string, args: unknown[] = []) => {
        const result = await call('POST', `/session/${id}/execute/async`, {
          script: `${FIND}
const done = arguments[arguments.length - 1];
const args = [...arguments].slice(0, -1);
Promise.resolve().then(() => { ${body} }).then((value) => done({ ok: value === undefined ? null : value }), (error) => done({ error: String((error && error.stack) || error) }));`,
          args,
        });
        if (result?.error) throw new Error(result.error);
        return result?.ok;
      };
      const until = async (check: () => Promise<unknown>, what: string, timeout = ACTION_TIMEOUT) => {
        for (const deadline = Date.now() + timeout; ; await sleep(50)) {
          const value = await check();
          if (value) return value;
          if (Date.now() > deadline) throw new Error(`WebKit: timed out after ${timeout} ms waiting for ${what}`);
        }
      };
      /** The first visible match as a WebDriver element reference, once there is one. */
      const visible = (selector: Selector, timeout?: number) =>
        until(
          async () => {
            const found = await call('POST', `/session/${id}/execute/sync`, {
              script: `${FIND}\nconst el = find(arguments[0]); return el && el.getClientRects().length ? el : null;`,
              args: [selector],
            });
            return found?.[ELEMENT] as string | undefined;
          },
          selector,
          timeout,
        ) as Promise<string>;
      const keys = (values: string[]) =>
        call('POST', `/session/${id}/actions`, {
          actions: [
            {
              type: 'key',
              id: 'keyboard',
              actions: values.flatMap((value) => [
                { type: 'keyDown', value },
                { type: 'keyUp', value },
              ]),
            },
          ],
        });
      const page: EnginePage = {
        // Classic WebDriver has no console: these are what the page's own collector saw (ERROR_COLLECTOR in engines.ts).
        errors: () => run('return window.onboardingTestErrors || [];'),
        goto: async (url) => void (await call('POST', `/session/${id}/url`, { url })),
        evaluate: ((fn: (arg: unknown) => unknown, arg?: unknown) =>
          run(`return (${fn.toString()})(args[0]);`, [arg])) as EnginePage['evaluate'],
        waitForFunction: async (fn, arg, timeout) =>
          void (await until(
            () => run(`return Boolean((${fn.toString()})(args[0]));`, [arg]),
            'a condition in the page',
            timeout,
          )),
        waitFor: async (selector, timeout) => void (await visible(selector, timeout)),
        click: async (selector) =>
          void (await call('POST', `/session/${id}/element/${await visible(selector)}/click`, {})),
        focus: async (selector) => void (await run('find(args[0]).focus();', [selector])),
        type: async (text) => void (await keys([...text])),
        press: async (key) => void (await keys([KEYS[key] ?? key])),
        text: (selector) => run('const el = find(args[0]); return el ? el.textContent : null;', [selector]),
        attribute: (selector, name) =>
          run('const el = find(args[0]); return el ? el.getAttribute(args[1]) : null;', [selector, name]),
        count: (selector) => run('return findAll(args[0]).length;', [selector]),
        box: (selector) =>
          run(
            'const el = find(args[0]); if (!el) return null; const r = el.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height };',
            [selector],
          ),
        async close() {
          if (!sessions.delete(id)) return;
          await call('DELETE', `/session/${id}`);
        },
      };
      return page;
    },
    async close() {
      await Promise.all([...sessions].map((id) => call('DELETE', `/session/${id}`).catch(() => undefined)));
      await stop();
    },
  };
}
