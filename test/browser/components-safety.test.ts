// Safety in Chromium: an XSS payload corpus through every element, hostile global CSS, and a strict CSP with a nonce.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { StepDefinition } from '../../src/api/wire.js';
import { PUBLIC_KEY } from '../support/service.js';
import { newUserId, openPage, startEnv, type Env, type FlowFile } from '../support/browser-pages.js';

/** Known payloads; each calls __xss(name) if it ever runs. */
const CORPUS = [
  `<script>__xss('script')</script>`,
  `<img src=x onerror="__xss('img')">`,
  `<svg onload="__xss('svg')"></svg>`,
  `<svg><script>__xss('svg-script')</script></svg>`,
  `<iframe src="javascript:__xss('iframe')"></iframe>`,
  `<iframe srcdoc="<script>parent.__xss('srcdoc')</script>"></iframe>`,
  `<a href="javascript:__xss('a')">a</a>`,
  `<a href="JaVaScRiPt:__xss('a-case')">b</a>`,
  `<a href="&#106;avascript:__xss('a-entity')">c</a>`,
  `<a href="java&#x09;script:__xss('a-tab')">d</a>`,
  `<a href=" \u0001javascript:__xss('a-ctrl')">e</a>`,
  `<a href="data:text/html,<script>__xss('a-data')</script>">f</a>`,
  `<b onmouseover="__xss('b')" onclick="__xss('b-click')">hover</b>`,
  `<math><mtext><table><mglyph><style><img src=x onerror="__xss('mxss')">`,
  `"><img src=x onerror="__xss('attr-break')">`,
  `<object data="javascript:__xss('object')"></object>`,
  `<embed src="javascript:__xss('embed')">`,
  `<details open ontoggle="__xss('details')">`,
  `<input autofocus onfocus="__xss('autofocus')">`,
  `<video><source onerror="__xss('video')"></video>`,
  `<style>@import 'http://evil.test/x.css';</style>`,
  `<link rel="stylesheet" href="http://evil.test/y.css">`,
  `<meta http-equiv="refresh" content="0;url=javascript:__xss('meta')">`,
  `<base href="http://evil.test/">`,
  `<form action="javascript:__xss('form')"><button>go</button></form>`,
  `\${__xss('template')}`,
  `{{constructor.constructor("__xss('angular')")()}}`,
  `<a href="\${url}">prop link</a>`,
  `Hi \${firstName}`,
];

const PROPERTIES = {
  firstName: `<img src=x onerror="__xss('property')">`,
  url: `javascript:__xss('property-url')`,
};

const payload = CORPUS.join(' ');
// A literal `javascript:` link is refused when the service loads the file (the `link` format), so the hostile link
// reaches the page through a variable: a user property the service cannot check.
const button = (n: string) => ({
  title: `${n} <img src=x onerror="__xss('button')">`,
  action: 'flow.forward' as const,
  uri: `\${url}`,
});
const step = (id: string, extra: Partial<StepDefinition> = {}): StepDefinition => ({
  id,
  title: payload,
  subtitle: payload,
  primaryButton: button('primary'),
  secondaryButton: { ...button('secondary'), uri: `\${url}` },
  ...extra,
});
// Media only where the flow schema takes it: announcements, cards and tours.
const media = { imageUri: `javascript:__xss('image')`, videoUri: `data:text/html,<script>__xss('video-uri')</script>` };

/**
 * Flow `props` that try to restyle the page: style text, selectors, custom properties, and values that close a rule.
 * Options the schema types (booleans, numbers, enums) cannot carry text, so the text rides in free-form keys and in
 * the options that are text.
 */
const CSS_PROPS = {
  style: 'position: fixed; inset: 0; z-index: 2147483647; background: red',
  class: 'evil',
  css: '* { display: none !important } body { background: url(http://evil.test/props.png) }',
  '--onboarding-accent': 'red; } :root { display: none',
  width: '100vw; background-image: url(http://evil.test/width.png)',
  theme: `dark'] { } body { display: none } [x='`,
  layout: '</style><style>body { display: none }</style>',
  doneTitle: '<style>body { display: none }</style>done',
  doneSubtitle: `<link rel="stylesheet" href="http://evil.test/done.css">`,
};
/** Text options of survey steps. */
const SURVEY_STEP_PROPS = {
  lowLabel: '<style>body { display: none }</style>low',
  highLabel: `<link rel="stylesheet" href="http://evil.test/high.css">`,
};
const hostile = (name: string) => `has(user.properties.suite) && user.properties.suite == '${name}'`;

const FLOWS: FlowFile[] = [
  { slug: 'x-banner', type: 'BANNER', targetingLogic: hostile('xss'), data: { steps: [step('s')] } },
  { slug: 'x-card', type: 'CARD', targetingLogic: hostile('xss'), data: { steps: [step('s', media)] } },
  {
    slug: 'x-checklist',
    type: 'CHECKLIST',
    targetingLogic: hostile('xss'),
    data: { title: payload, steps: [step('s'), step('t')] },
  },
  {
    slug: 'x-form',
    type: 'FORM',
    targetingLogic: hostile('xss'),
    data: {
      steps: [
        step('s', {
          fields: [
            { id: 'a', type: 'text', label: payload, placeholder: payload, message: payload, required: true },
            {
              id: 'b',
              type: 'select',
              label: payload,
              options: [{ value: `"><img src=x onerror="__xss('option')">`, label: payload }],
            },
            { id: 'c', type: 'radio', label: payload, options: [{ value: 'v', label: payload }] },
          ],
        }),
      ],
    },
  },
  {
    slug: 'x-announcement',
    type: 'ANNOUNCEMENT',
    targetingLogic: hostile('xss'),
    data: { props: { priority: 3 }, steps: [step('s', media), step('t', media)] },
  },
  {
    slug: 'x-tour',
    type: 'TOUR',
    targetingLogic: hostile('xss'),
    data: { props: { priority: 2 }, steps: [step('s', { ...media, selector: '#target' })] },
  },
  {
    slug: 'x-survey',
    type: 'SURVEY',
    targetingLogic: hostile('xss'),
    data: {
      props: { priority: 1 },
      steps: [
        step('s', { type: 'single', options: [{ value: `"><svg onload="__xss('survey-option')">`, label: payload }] }),
      ],
    },
  },
  {
    slug: 'css-banner',
    type: 'BANNER',
    targetingLogic: hostile('css'),
    data: { steps: [{ id: 'b', title: 'Styled banner', primaryButton: { title: 'OK' } }] },
  },
  {
    slug: 'css-announcement',
    type: 'ANNOUNCEMENT',
    targetingLogic: hostile('css'),
    data: { steps: [{ id: 'a', title: 'Styled announcement' }] },
  },
  {
    slug: 'csp-banner',
    type: 'BANNER',
    targetingLogic: hostile('csp'),
    data: { steps: [{ id: 'b', title: 'CSP banner', primaryButton: { title: 'OK' } }] },
  },
  {
    slug: 'csp-tour',
    type: 'TOUR',
    targetingLogic: hostile('csp'),
    data: { props: { spotlight: true }, steps: [{ id: 't', title: 'CSP tour', selector: '#target' }] },
  },
  {
    slug: 'csp-form',
    type: 'FORM',
    targetingLogic: hostile('csp'),
    data: { steps: [{ id: 'f', title: 'CSP form', fields: [{ id: 'name', type: 'text', label: 'Name' }] }] },
  },
  {
    slug: 'variables-banner',
    type: 'BANNER',
    targetingLogic: hostile('variables'),
    data: {
      steps: [
        {
          id: 'v',
          title: 'Hello ${name}',
          subtitle: 'See <a href="/profile?name=${name}">your profile</a> or <a href="${address}">this</a>.',
          primaryButton: { title: 'Open ${label}', action: false, uri: '${address}' },
          secondaryButton: { title: 'Go to ${address}', action: false, uri: '/profile?name=${name}' },
        },
      ],
    },
  },
  ...(['BANNER', 'CARD', 'CHECKLIST', 'FORM', 'ANNOUNCEMENT', 'TOUR', 'SURVEY'] as const).map((type, index) => ({
    slug: `props-${type.toLowerCase()}`,
    type,
    targetingLogic: hostile('props'),
    data: {
      props: { ...CSS_PROPS, ...(['ANNOUNCEMENT', 'TOUR', 'SURVEY'].includes(type) ? { priority: 10 - index } : {}) },
      steps: [
        {
          id: 's',
          title: `Props ${type}`,
          ...(type === 'TOUR' ? { selector: '#target' } : {}),
          ...(type === 'FORM' ? { fields: [{ id: 'f', type: 'text' as const, label: 'Field' }] } : {}),
          props: { ...CSS_PROPS, ...(type === 'SURVEY' ? SURVEY_STEP_PROPS : {}) },
          primaryButton: { title: 'OK', action: 'flow.forward' as const },
        },
      ],
    },
  })),
];

/** User properties that carry markup and a javascript: address, for ${…} variables in titles, buttons and links. */
const VARIABLE_PROPERTIES = {
  name: `<img src=x onerror="__xss('title')">`,
  label: `<b onclick="__xss('button')">profile</b>`,
  address: `javascript:__xss('uri')`,
};

let env: Env;

beforeAll(async () => {
  env = await startEnv(FLOWS);
});

afterAll(async () => {
  await env?.close();
});

/** Everything inside the elements' shadow roots that could run script, load a frame or leave the page. */
function dangerousNodes(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const safe = new Set(['http:', 'https:', 'mailto:', 'tel:']);
    const visit = (root: ParentNode, depth: number) => {
      for (const el of root.querySelectorAll('*')) {
        const name = el.localName;
        if (
          [
            'script',
            'iframe',
            'object',
            'embed',
            'frame',
            'style',
            'link',
            'meta',
            'base',
            'svg',
            'math',
            'form',
          ].includes(name) &&
          !(name === 'form' && el.getAttribute('part') === 'base') &&
          !(name === 'svg' && !el.querySelector('script'))
        ) {
          found.push(`<${name}>`);
        }
        for (const attribute of el.getAttributeNames()) {
          if (attribute.startsWith('on') || attribute === 'srcdoc' || attribute === 'formaction')
            found.push(`${name}[${attribute}]`);
        }
        for (const attribute of ['href', 'src', 'action', 'data']) {
          const value = el.getAttribute(attribute);
          if (value !== null && !safe.has(new URL(value, location.href).protocol))
            found.push(`${name}[${attribute}=${value}]`);
        }
        if (el.shadowRoot && depth < 4) visit(el.shadowRoot, depth + 1);
      }
    };
    for (const host of document.querySelectorAll('[flow]')) if (host.shadowRoot) visit(host.shadowRoot, 0);
    return found;
  });
}

function openModal(page: Page): Promise<string | undefined> {
  return page.evaluate(
    () =>
      [...document.querySelectorAll('onboarding-announcement, onboarding-tour, onboarding-survey')]
        .find((el) => el.shadowRoot?.querySelector('dialog:modal, :popover-open'))
        ?.getAttribute('flow') ?? undefined,
  );
}

describe('the XSS corpus in Chromium', () => {
  it('never runs script, loads a frame or adds handlers from flow text or user properties, in any element', async () => {
    const userId = newUserId('xss');
    const requests: string[] = [];
    await env.browser.context.route('http://evil.test/**', (route) => {
      requests.push(route.request().url());
      return route.abort();
    });
    await env.browser.context.addInitScript(() => {
      const w = window as unknown as { __xss: (name: string) => void; __xssRan: string[] };
      w.__xssRan = [];
      w.__xss = (name) => w.__xssRan.push(name);
      window.alert = () => w.__xssRan.push('alert');
    });
    const { page, errors } = await openPage(
      env,
      '/xss.html',
      `<button id="target">Target</button>
       <onboarding-banner flow="x-banner"></onboarding-banner>
       <onboarding-card flow="x-card"></onboarding-card>
       <onboarding-checklist flow="x-checklist"></onboarding-checklist>
       <onboarding-form flow="x-form"></onboarding-form>`,
      { userId },
    );
    await page.evaluate(
      ([id, properties]) => window.Onboarding.identify(id as string, { suite: 'xss', ...(properties as object) }),
      [userId, PROPERTIES],
    );
    await page.locator('onboarding-form [part="base"]').waitFor();
    const ran = () => page.evaluate(() => (window as unknown as { __xssRan: string[] }).__xssRan);

    // The payloads are shown as text: the first substitution proves properties are text, not markup.
    const banner = await page.locator('onboarding-banner [part="subtitle"]').textContent();
    expect(banner).toContain(`<script>__xss('script')</script>`);
    expect(banner).toContain(`Hi <img src=x onerror="__xss('property')">`);

    // Each modal type, as the queue opens them; then hover and click the inline rich text.
    for (const expected of ['x-announcement', 'x-tour', 'x-survey']) {
      await expect.poll(() => openModal(page)).toBe(expected);
      expect(await dangerousNodes(page)).toEqual([]);
      await page.locator(`[flow="${expected}"] [part="close-button"]`).click();
    }
    await expect.poll(() => openModal(page)).toBeUndefined();
    await page.locator('onboarding-banner [part="subtitle"] b').first().hover();
    await page.locator('onboarding-banner [part="subtitle"] b').first().click();
    expect(await dangerousNodes(page)).toEqual([]);
    await page.waitForTimeout(300);
    expect(await ran()).toEqual([]);
    expect(page.frames()).toHaveLength(1);
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
    await env.browser.context.unroute('http://evil.test/**');
  });
});

describe('a page with hostile global CSS in Chromium', () => {
  it('keeps the elements styled and the dialog on top of huge z-indexes', async () => {
    const userId = newUserId('css');
    const { page, errors } = await openPage(
      env,
      '/hostile.html',
      `<onboarding-banner flow="css-banner"></onboarding-banner>
       <div id="cover" style="position: fixed; inset: 0; z-index: 2147483647; background: rgb(255 0 0 / 0.2)"></div>`,
      {
        userId,
        head: `<style>
          * { all: unset !important; }
          html, body, main, div { display: block !important; position: relative !important; z-index: 2147483647 !important; }
          #cover { position: fixed !important; inset: 0 !important; z-index: 2147483647 !important; }
          button, p, h2, dialog, section { color: red !important; font-size: 40px !important; display: none !important; }
          *::backdrop { display: none !important; }
        </style>`,
      },
    );
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'css' }), userId);
    const base = page.locator('onboarding-banner [part="base"]');
    await base.waitFor();
    const style = await base.evaluate((el) => {
      const s = getComputedStyle(el);
      const title = getComputedStyle(el.querySelector('[part="title"]')!);
      const button = getComputedStyle(el.querySelector('[part="primary-button"]')!);
      return {
        display: s.display,
        background: s.backgroundColor,
        padding: s.paddingTop,
        title: title.color,
        size: title.fontSize,
        button: button.backgroundColor,
        buttonDisplay: button.display,
      };
    });
    expect(style).toEqual({
      display: 'grid',
      background: 'rgb(238, 241, 251)',
      padding: '12px',
      title: 'rgb(27, 31, 42)',
      size: '14px',
      button: 'rgb(54, 81, 201)',
      buttonDisplay: 'flex',
    });
    await expect.poll(() => openModal(page)).toBe('css-announcement');
    const box = (await page.locator('onboarding-announcement [part="base"]').boundingBox())!;
    expect(box.width).toBeGreaterThan(200);
    const hit = await page.evaluate(
      ([x, y]) => document.elementFromPoint(x, y)?.localName,
      [box.x + box.width / 2, box.y + box.height / 2],
    );
    expect(hit).toBe('onboarding-announcement');
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('a strict CSP page in Chromium', () => {
  // `self` names the script's origin; without it, only the nonce lets the script and the chunks it adds run.
  const policy = (service: string, self: boolean) =>
    `default-src 'none'; script-src ${self ? "'self' " : ''}'nonce-n0nce'; style-src 'nonce-n0nce'; connect-src ${service}; img-src 'self'`;

  async function cspPage(userId: string, path: string, withoutConstructableSheets: boolean) {
    const page = await env.browser.context.newPage();
    const violations: string[] = [];
    await page.exposeFunction('reportViolation', (v: string) => violations.push(v));
    await page.addInitScript((strip) => {
      document.addEventListener('securitypolicyviolation', (e) =>
        (window as unknown as { reportViolation(v: string): void }).reportViolation(
          `${e.violatedDirective} ${e.blockedURI}`,
        ),
      );
      // Old browsers lack constructable stylesheets; Lit then writes <style> elements, which need the nonce.
      if (strip) delete (CSSStyleSheet.prototype as { replace?: unknown }).replace;
    }, withoutConstructableSheets);
    env.site.page(
      path,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>CSP</title></head><body>
        <button id="target">Target</button>
        <onboarding-banner flow="csp-banner"></onboarding-banner>
        <onboarding-form flow="csp-form"></onboarding-form>
        <script src="/onboarding.js" nonce="n0nce" data-public-key="${PUBLIC_KEY}" data-api-url="${env.service.url}"></script>
      </body></html>`,
      { 'Content-Security-Policy': policy(env.service.url, !withoutConstructableSheets) },
    );
    await page.goto(`${env.site.url}${path}`);
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'csp' }), userId);
    return { page, violations };
  }

  async function styled(page: Page) {
    await page.locator('onboarding-banner [part="base"]').waitFor();
    await page.locator('onboarding-form [part="base"]').waitFor();
    await expect.poll(() => openModal(page)).toBe('csp-tour');
    return page.evaluate(() => {
      const banner = document.querySelector('onboarding-banner')!.shadowRoot!.querySelector('[part="base"]')!;
      const tour = document.querySelector('onboarding-tour')!.shadowRoot!;
      const tip = tour.querySelector('[part="base"]')!.getBoundingClientRect();
      const form = document.querySelector('onboarding-form')!.shadowRoot!.querySelector('[part="base"]')!;
      const target = document.querySelector('#target')!.getBoundingClientRect();
      return {
        banner: getComputedStyle(banner).backgroundColor,
        anchored: Math.abs(tip.top - (target.bottom + 12)) < 2,
        spotlight: tour.querySelector('[part="spotlight"]')!.getBoundingClientRect().width > 0,
        form: getComputedStyle(form).display,
      };
    });
  }

  it('renders styled, positioned elements with no violation and no unsafe-inline', async () => {
    const { page, violations } = await cspPage(newUserId('csp'), '/csp.html', false);
    expect(await styled(page)).toEqual({ banner: 'rgb(238, 241, 251)', anchored: true, spotlight: true, form: 'grid' });
    expect(violations).toEqual([]);
    await page.close();
  });

  it('styles through <style nonce> where constructable stylesheets are missing', async () => {
    const { page, violations } = await cspPage(newUserId('csp-nonce'), '/csp-nonce.html', true);
    expect(await styled(page)).toEqual({ banner: 'rgb(238, 241, 251)', anchored: true, spotlight: true, form: 'grid' });
    expect(
      await page.evaluate(() => document.querySelector('onboarding-banner')!.shadowRoot!.querySelector('style')?.nonce),
    ).toBe('n0nce');
    expect(violations).toEqual([]);
    await page.close();
  });
});

describe('CSS injection through flow props in Chromium', () => {
  it('keeps every flow’s props inside its shadow root: the page, its styles and the elements’ own look are untouched', async () => {
    const userId = newUserId('props');
    const requests: string[] = [];
    await env.browser.context.route('http://evil.test/**', (route) => {
      requests.push(route.request().url());
      return route.abort();
    });
    const { page, errors } = await openPage(
      env,
      '/props.html',
      `<button id="target">Target</button>
       <p id="probe">Page text</p>
       <onboarding-banner flow="props-banner"></onboarding-banner>
       <onboarding-card flow="props-card"></onboarding-card>
       <onboarding-checklist flow="props-checklist"></onboarding-checklist>
       <onboarding-form flow="props-form"></onboarding-form>`,
      { userId },
    );
    const pageLook = () =>
      page.evaluate(() => {
        const probe = getComputedStyle(document.querySelector('#probe')!);
        const body = getComputedStyle(document.body);
        return {
          probe: [probe.display, probe.color, probe.position],
          body: [body.display, body.backgroundColor, body.backgroundImage],
          sheets: document.styleSheets.length,
          adopted: document.adoptedStyleSheets.length,
          styleElements: document.querySelectorAll('style, link[rel="stylesheet"]').length,
          hostStyles: [...document.querySelectorAll('[flow]')].filter(
            (host) => host.hasAttribute('style') || host.classList.contains('evil'),
          ).length,
        };
      });
    const before = await pageLook();
    await page.evaluate((id) => window.Onboarding.identify(id, { suite: 'props' }), userId);
    await page.locator('onboarding-form [part="base"]').waitFor();
    // Inside the shadow roots: no style attribute or element carries any of the props' text.
    const leaks = () =>
      page.evaluate(
        (values) => {
          const found: string[] = [];
          const visit = (root: ParentNode) => {
            for (const el of root.querySelectorAll('*')) {
              if (['style', 'link'].includes(el.localName)) found.push(`<${el.localName}>`);
              const style = el.getAttribute('style') ?? '';
              if (values.some((value) => style.includes(value.slice(0, 12))))
                found.push(`${el.localName}[style=${style}]`);
              if (el.classList.contains('evil')) found.push(`${el.localName}.evil`);
              if (el.shadowRoot) visit(el.shadowRoot);
            }
          };
          for (const host of document.querySelectorAll('[flow]')) if (host.shadowRoot) visit(host.shadowRoot);
          return found;
        },
        [...Object.values(CSS_PROPS), ...Object.values(SURVEY_STEP_PROPS)].map(String),
      );
    for (const expected of ['props-announcement', 'props-tour', 'props-survey']) {
      await expect.poll(() => openModal(page)).toBe(expected);
      expect(await leaks()).toEqual([]);
      expect(await pageLook()).toEqual(before);
      await page.locator(`[flow="${expected}"] [part="close-button"]`).click();
    }
    expect(await leaks()).toEqual([]);
    expect(await pageLook()).toEqual(before);
    // The elements keep their own look: the banner's background and button are the defaults.
    const banner = await page.locator('onboarding-banner [part="base"]').evaluate((el) => ({
      position: getComputedStyle(el).position,
      background: getComputedStyle(el).backgroundColor,
      button: getComputedStyle(el.querySelector('[part="primary-button"]')!).backgroundColor,
    }));
    expect(banner).toEqual({ position: 'static', background: 'rgb(238, 241, 251)', button: 'rgb(54, 81, 201)' });
    await page.waitForTimeout(300);
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
    await env.browser.context.unroute('http://evil.test/**');
  });
});

describe('user properties in ${…} inside links and buttons in Chromium', () => {
  it('inserts markup and javascript: addresses from properties as text, and never as a live address', async () => {
    const userId = newUserId('variables');
    const { page, errors } = await openPage(
      env,
      '/variables.html',
      `<onboarding-banner flow="variables-banner"></onboarding-banner>`,
      { userId },
    );
    await page.evaluate(() => {
      (window as unknown as { __xssRan: string[] }).__xssRan = [];
      (window as unknown as { __xss: (name: string) => void }).__xss = (name) =>
        (window as unknown as { __xssRan: string[] }).__xssRan.push(name);
    });
    await page.evaluate(
      ([id, properties]) => window.Onboarding.identify(id as string, { suite: 'variables', ...(properties as object) }),
      [userId, VARIABLE_PROPERTIES],
    );
    const base = page.locator('onboarding-banner [part="base"]');
    await base.waitFor();
    const rendered = await base.evaluate((el) => ({
      title: el.querySelector('[part="title"]')!.textContent,
      links: [...el.querySelectorAll('a')].map((a) => ({
        text: a.textContent.trim(),
        protocol: new URL(a.getAttribute('href')!, location.href).protocol,
      })),
      markup: el.querySelectorAll('img, script, svg, iframe').length,
    }));
    expect(rendered.title).toBe(`Hello <img src=x onerror="__xss('title')">`);
    expect(rendered.markup).toBe(0);
    // A property in an address is encoded as a part of it: `javascript:` from a property is never a scheme.
    expect(rendered.links.map((link) => link.text).sort()).toEqual([
      `Go to javascript:__xss('uri')`,
      `Open <b onclick="__xss('button')">profile</b>`,
      'this',
      'your profile',
    ]);
    expect(rendered.links.every((link) => link.protocol === 'http:')).toBe(true);
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { __xssRan: string[] }).__xssRan)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
