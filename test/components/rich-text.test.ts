import { afterEach, describe, expect, it } from 'vitest';
import { fixture, fixtureCleanup } from '@open-wc/testing-helpers';
import { html } from 'lit';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parseRichText, plainText, richText, substitute } from '../../src/components/shared/rich-text.js';
import { safeMediaUrl, safeTarget, safeUrl } from '../../src/api/url.js';

afterEach(() => fixtureCleanup());

async function renderRich(source: string, variables: Record<string, unknown> = {}) {
  const el = await fixture<HTMLDivElement>(html`<div>${richText(source, variables)}</div>`);
  return el;
}

describe('rich text subset', () => {
  it('keeps allow-listed tags and drops their attributes', async () => {
    const el = await renderRich('<b class="x" onclick="alert(1)">Bold</b> and <em style="color:red">em</em><br>line');
    expect(el.querySelector('b')!.textContent).toBe('Bold');
    expect(el.querySelector('b')!.attributes.length).toBe(0);
    expect(el.querySelector('em')!.attributes.length).toBe(0);
    expect(el.querySelector('br')).not.toBeNull();
    expect(el.textContent).toBe('Bold and emline');
  });

  it('shows tags outside the subset as text', async () => {
    const el = await renderRich(
      '<script>alert(1)</script><img src=x onerror=alert(1)><iframe src="https://evil"></iframe>',
    );
    expect(el.querySelector('script, img, iframe')).toBeNull();
    expect(el.textContent).toBe(
      '<script>alert(1)</script><img src=x onerror=alert(1)><iframe src="https://evil"></iframe>',
    );
  });

  it('renders links only with safe addresses, in a new tab without opener', async () => {
    const el = await renderRich(
      '<a href="https://example.com/a?b=1">ok</a> <a href="javascript:alert(1)">bad</a> <a href=" JaVa\tScRiPt:alert(1)">bad2</a>',
    );
    const links = el.querySelectorAll('a');
    expect(links.length).toBe(1);
    expect(links[0].getAttribute('href')).toBe('https://example.com/a?b=1');
    expect(links[0].getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(el.textContent).toBe('ok bad bad2');
  });

  it('substitutes ${name} as text after parsing, so a value never becomes markup', async () => {
    const el = await renderRich('Hi <b>${firstName}</b>, plan ${plan.name}, ${missing}!', {
      firstName: '<img src=x onerror=alert(1)>',
      plan: { name: 'Pro' },
    });
    expect(el.querySelector('img')).toBeNull();
    expect(el.querySelector('b')!.textContent).toBe('<img src=x onerror=alert(1)>');
    expect(el.textContent).toBe('Hi <img src=x onerror=alert(1)>, plan Pro, !');
  });

  it('shows ${name|fallback} when the variable is missing or empty, and the value when it is there', async () => {
    const guest = await renderRich('Hi ${firstName|there}, a new <b>${feature | dark mode}</b>${none|}.', {
      feature: '',
    });
    expect(guest.textContent).toBe('Hi there, a new dark mode.');
    const known = await renderRich('Hi ${firstName|there}', { firstName: 'Ada' });
    expect(known.textContent).toBe('Hi Ada');
    expect(plainText('${plan.name|Free} &amp; more', { plan: {} })).toBe('Free & more');
    expect(substitute('/u/${id|a b}', {}, encodeURIComponent)).toBe('/u/a%20b');
  });

  it("greets the demo's guest naturally with and without a first name", () => {
    const welcome = parse(readFileSync('demo/flows/welcome.yaml', 'utf8'));
    const title: string = welcome.data.steps[0].title;
    expect(plainText(title, {})).toBe('Hi there, welcome to Lumen!');
    expect(plainText(title, { firstName: 'Ada' })).toBe('Hi Ada, welcome to Lumen!');
  });

  it('encodes variables inside link addresses, so a value cannot change the scheme', () => {
    const nodes = parseRichText('<a href="${url}">x</a><a href="https://x.test/u/${id}">y</a>', {
      url: 'javascript:alert(1)',
      id: 'a b/c',
    });
    expect(nodes[0]).toEqual({ tag: 'a', href: 'javascript%3Aalert(1)', children: ['x'] });
    expect(nodes[1]).toEqual({ tag: 'a', href: 'https://x.test/u/a%20b%2Fc', children: ['y'] });
  });

  it('decodes entities into text, never into tags', async () => {
    const el = await renderRich('&lt;b&gt;not bold&lt;/b&gt; &amp; &#x3C;i&#62; &nbsp;');
    expect(el.querySelector('b, i')).toBeNull();
    expect(el.textContent).toBe('<b>not bold</b> & <i> \u00a0');
  });

  it('closes unclosed tags, ignores stray closers and bounds nesting', () => {
    expect(parseRichText('<b>a</i>b')).toEqual([{ tag: 'b', children: ['ab'] }]);
    const deep = parseRichText('<b>'.repeat(100) + 'x');
    let depth = 0;
    let node: unknown = deep[0];
    while (node && typeof node === 'object') {
      depth++;
      node = (node as { children: unknown[] }).children[0];
    }
    expect(depth).toBeLessThanOrEqual(17);
  });

  it('parses long hostile input in linear time', () => {
    const started = performance.now();
    parseRichText('<a ' + 'x='.repeat(20_000) + ' <b ' + ' a'.repeat(20_000));
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('gives plain text with variables and literal tags', () => {
    expect(plainText('Hi ${name} <b>', { name: 'Ada' })).toBe('Hi Ada <b>');
    expect(plainText(42)).toBe('');
    expect(substitute('${a}${__proto__}${constructor}', { a: 1 })).toBe('1');
  });
});

describe('address checks', () => {
  it('allows http, https, mailto, tel, relative and fragment links only', () => {
    for (const ok of ['https://a.test', 'http://a.test', 'mailto:a@b.test', 'tel:+1', '/path', 'page?x=1', '#top'])
      expect(safeUrl(ok)).toBe(ok);
    for (const bad of [
      'javascript:alert(1)',
      'JAVASCRIPT:x',
      'java\nscript:x',
      '\u0001javascript:x',
      'data:text/html,<script>',
      'vbscript:x',
      'blob:x',
      '',
      7,
    ]) {
      expect(safeUrl(bad)).toBeUndefined();
    }
  });

  it('allows only http(s) and relative media, and the four link targets', () => {
    expect(safeMediaUrl('https://a.test/x.png')).toBe('https://a.test/x.png');
    expect(safeMediaUrl('data:image/svg+xml,<svg onload=alert(1)>')).toBeUndefined();
    expect(safeMediaUrl('mailto:x')).toBeUndefined();
    expect(safeTarget('_blank')).toBe('_blank');
    expect(safeTarget('evil-window')).toBe('_self');
  });
});
