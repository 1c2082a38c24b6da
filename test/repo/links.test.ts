// Every link in the README, CONTRIBUTING.md, CHANGELOG.md and docs/*.md resolves: files exist, #anchors name a heading.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const docs = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const pages = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', ...docs];

/** The page's text without fenced code blocks and HTML comments, which hold no links or headings of the page. */
function prose(markdown: string): string {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      lines.push('');
    } else if (marker) {
      fence = marker;
      lines.push('');
    } else lines.push(line);
  }
  return lines.join('\n').replace(/<!--[\s\S]*?-->/g, '');
}

/** GitHub's anchor for a heading: its text lowercased, punctuation but `-` and `_` dropped, each space a `-`. */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page: one per heading, a repeated slug numbered `-1`, `-2`, … as GitHub does; and HTML ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = prose(markdown);
  for (const match of text.matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/gm)) {
    const slug = githubSlug(match[1]);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  for (const match of text.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
  return anchors;
}

/** Every link target of a page: inline links and images, reference definitions, and autolinks. */
function linksOf(markdown: string): string[] {
  const text = prose(markdown).replace(/`+[^`\n]*`+/g, '');
  const inline = [
    ...text.matchAll(
      /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^()\s<>]*(?:\([^()\s]*\)[^()\s<>]*)*)>?(?:\s+"[^"]*")?\s*\)/g,
    ),
  ].map((m) => m[1]);
  const references = [...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]);
  const autolinks = [...text.matchAll(/<(https?:\/\/[^>\s]+)>/g)].map((m) => m[1]);
  return [...inline, ...references, ...autolinks];
}

/** What is wrong with one link of `page`, or undefined when it resolves. */
function problemOf(page: string, target: string): string | undefined {
  if (/^https?:/i.test(target)) {
    try {
      const url = new URL(target);
      return url.hostname.includes('.') || url.hostname === 'localhost' || /^[\d.]+$/.test(url.hostname)
        ? undefined
        : 'no host';
    } catch {
      return 'not a URL';
    }
  }
  if (/^mailto:/i.test(target)) return /^mailto:[^@\s]+@[^@\s]+$/i.test(target) ? undefined : 'not an address';
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return 'a scheme that is neither http(s) nor mailto';
  const [path = '', fragment] = target.split('#');
  const file = path ? normalize(join(dirname(page), decodeURI(path))) : page;
  if (file.startsWith('..')) return 'outside the repository';
  if (!existsSync(join(root, file))) return `${file} does not exist`;
  if (fragment === undefined) return undefined;
  if (!file.endsWith('.md')) return undefined;
  const anchors = anchorsOf(readFileSync(join(root, file), 'utf8'));
  return anchors.has(decodeURIComponent(fragment)) ? undefined : `no heading of ${file} has the anchor #${fragment}`;
}

describe('GitHub anchors', () => {
  it('are lowercase, without punctuation but - and _, a - for each space', () => {
    expect(githubSlug("Targeting: Frigade's expressions in CEL")).toBe('targeting-frigades-expressions-in-cel');
    expect(githubSlug('GET /v1/analytics/flows/{slug}')).toBe('get-v1analyticsflowsslug');
    expect(githubSlug('Locales (`locale`)')).toBe('locales-locale');
    expect(githubSlug('1. Configure the service')).toBe('1-configure-the-service');
    expect(githubSlug('A -- B')).toBe('a----b');
    expect(githubSlug('snake_case and [a link](x.md)')).toBe('snake_case-and-a-link');
  });

  it('number a repeated heading -1, -2, and leave code blocks out', () => {
    const anchors = anchorsOf('# Title\n## Usage\n```yaml\n# not a heading\n```\n## Usage\n### Usage ###\n');
    expect([...anchors]).toEqual(['title', 'usage', 'usage-1', 'usage-2']);
  });
});

describe('links between the docs', () => {
  it('finds the links of a page, not those in code', () => {
    const links = linksOf(
      'See [a](a.md#x) and ![b](b.png "B") <https://example.com/>.\n\n`[c](c.md)`\n```md\n[d](d.md)\n```\n[e]: e.md\n',
    );
    expect(links).toEqual(['a.md#x', 'b.png', 'e.md', 'https://example.com/']);
  });

  it('reports a missing file, a missing anchor and a malformed address', () => {
    expect(problemOf('README.md', 'docs/nowhere.md')).toMatch(/does not exist/);
    expect(problemOf('README.md', 'docs/api.md#no-such-heading')).toMatch(/no heading/);
    expect(problemOf('docs/api.md', '#javascript-api')).toBeUndefined();
    expect(problemOf('README.md', 'https://')).toBe('not a URL');
  });

  it.each(pages)('resolve in %s', (page) => {
    const problems = linksOf(readFileSync(join(root, page), 'utf8'))
      .map((target) => [target, problemOf(page, target)] as const)
      .filter(([, problem]) => problem)
      .map(([target, problem]) => `${target}: ${problem}`);
    expect(problems).toEqual([]);
  });
});

describe('the docs', () => {
  it('keep the README a front door, at most 200 lines', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  it('list every page of docs/ in its index', () => {
    const index = linksOf(readFileSync(join(root, 'docs/README.md'), 'utf8')).map((target) =>
      relative('docs', normalize(join('docs', target.split('#')[0]))),
    );
    expect(
      docs.map((page) => relative('docs', page)).filter((page) => page !== 'README.md' && !index.includes(page)),
    ).toEqual([]);
  });
});
