// One real-browser test environment: the service, an optional loopback proxy before it, a page site, and Chromium.
import { launchChromium, type LaunchedBrowser } from './chromium.js';
import { startLoopbackProxy, type LoopbackProxy } from './loopback-proxy.js';
import { startTestService, type TestService } from './service.js';
import type { ServiceOptions } from '../../server/service.js';
import { startStaticSite, type StaticSite } from './static-site.js';

/** What pages talk to: the service, an optional proxy before it, and the site that serves the pages and the script. */
export interface SiteEnv {
  service: TestService;
  /** Present when started with `{ proxy: true }`; pages then talk to the service through it. */
  proxy: LoopbackProxy | undefined;
  site: StaticSite;
  /** The address pages should use as `data-api-url`: the proxy's when there is one. */
  apiUrl: string;
  close(): Promise<void>;
}

export interface BrowserEnv extends SiteEnv {
  browser: LaunchedBrowser;
}

export interface EnvOptions {
  proxy?: boolean;
  service?: Partial<ServiceOptions>;
}

/** Starts the service, the proxy if asked for, and the page site, for a test that brings its own browser; `flows` maps file names to YAML. */
export async function startSiteEnv(flows: Record<string, string>, options: EnvOptions = {}): Promise<SiteEnv> {
  const service = await startTestService(flows, options.service);
  const proxy = options.proxy ? await startLoopbackProxy(service.url) : undefined;
  const site = await startStaticSite();
  return {
    service,
    proxy,
    site,
    apiUrl: proxy?.url ?? service.url,
    async close() {
      await site.close();
      await proxy?.close();
      await service.close();
    },
  };
}

/** Starts everything a Chromium test needs; `flows` maps file names to YAML. */
export async function startBrowserEnv(flows: Record<string, string>, options: EnvOptions = {}): Promise<BrowserEnv> {
  const env = await startSiteEnv(flows, options);
  const browser = await launchChromium();
  return {
    ...env,
    browser,
    async close() {
      await browser.close();
      await env.close();
    },
  };
}
