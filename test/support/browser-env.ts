// One real-browser test environment: the service, an optional loopback proxy before it, a page site, and Chromium.
import { launchChromium, type LaunchedBrowser } from './chromium.js';
import { startLoopbackProxy, type LoopbackProxy } from './loopback-proxy.js';
import { startTestService, type TestService } from './service.js';
import type { ServiceOptions } from '../../server/service.js';
import { startStaticSite, type StaticSite } from './static-site.js';

export interface BrowserEnv {
  service: TestService;
  /** Present when started with `{ proxy: true }`; pages then talk to the service through it. */
  proxy: LoopbackProxy | undefined;
  site: StaticSite;
  browser: LaunchedBrowser;
  /** The address pages should use as `data-api-url`: the proxy's when there is one. */
  apiUrl: string;
  close(): Promise<void>;
}

/** Starts everything a Chromium test needs; `flows` maps file names to YAML. */
export async function startBrowserEnv(
  flows: Record<string, string>,
  options: { proxy?: boolean; service?: Partial<ServiceOptions> } = {},
): Promise<BrowserEnv> {
  const service = await startTestService(flows, options.service);
  const proxy = options.proxy ? await startLoopbackProxy(service.url) : undefined;
  const site = await startStaticSite();
  const browser = await launchChromium();
  return {
    service,
    proxy,
    site,
    browser,
    apiUrl: proxy?.url ?? service.url,
    async close() {
      await browser.close();
      await site.close();
      await proxy?.close();
      await service.close();
    },
  };
}
