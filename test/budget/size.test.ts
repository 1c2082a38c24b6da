// Size budget: the script a page loads first, and the chunks it loads on demand, stay under their gzip budgets in package.json.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain .mjs module without types
import { budgets, measureBundle } from './measure-size.mjs';
import { ELEMENT_TABLE } from '../../src/components/elements.js';

const limits = budgets() as Record<string, { gzip: number }>;
const text = (file: string) => readFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url)), 'utf8');
/** The chunk of each element, as the table of elements has them. */
const CHUNKS = [...new Set(ELEMENT_TABLE.map((row) => `dist/onboarding-${row.chunk}.js`))];
/** The start rules and their element watcher: no element, no Lit, but the script's stores from the host list. */
const WATCH = 'dist/onboarding-watch.js';
/**
 * init's `forward` (loaded when init asks for it), Onboarding.debug() (loaded on its first call) and the index of the
 * hashes of those two and of the languages' strings chunks (loaded before the first of them).
 */
const INDEXED = ['dist/onboarding-forward.js', 'dist/onboarding-debug.js'];
const INDEX = 'dist/onboarding-hashes.js';
const OTHERS = [...INDEXED, INDEX];
/** Onboarding.debug(): the script keeps a stub that loads it, on the script's stores. */
const DEBUG = 'dist/onboarding-debug.js';
/** The chunks of the elements that draw fields: each carries src/components/fields (the answers, their validation, the 0–10 scale). */
const FIELDS = ['dist/onboarding-form.js', 'dist/onboarding-survey.js'];
/** The chunks of the elements that point at page elements: each carries the target engine and floating-ui. */
const POINTING = ['dist/onboarding-hint.js', 'dist/onboarding-tour.js'];

describe('bundle size', () => {
  it('has a budget for the script and for each chunk, the script back at 24 KiB (issue 35: its elements and start rules in chunks, with their hashes in it)', () => {
    expect(Object.keys(limits).sort()).toEqual([...CHUNKS, WATCH, ...OTHERS, 'dist/onboarding.js'].sort());
    expect(limits['dist/onboarding.js'].gzip).toBe(24576);
  });

  for (const [file, limit] of Object.entries(limits)) {
    it(`keeps ${file} under ${limit.gzip} bytes gzip`, () => {
      const size = measureBundle(file) as { minified: number; gzip: number; brotli: number };
      // Not empty, nor a page of HTML served in its place: the smallest, the collection's, is about 500 B.
      expect(size.gzip).toBeGreaterThan(300);
      expect(size.gzip).toBeLessThanOrEqual(limit.gzip);
    });
  }

  it("records the SHA-384 of each file the script loads beside itself, as the integrity it loads it with (issue 35): the chunks' and the index's in the script, those of the languages, forwarding and debug() in the index", () => {
    const sha384 = (file: string) =>
      createHash('sha384')
        .update(readFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url))))
        .digest('base64');
    const languages = readdirSync(fileURLToPath(new URL('../../dist/', import.meta.url)))
      .filter((name) => /^onboarding-strings-[\w-]+\.js$/.test(name))
      .map((name) => `dist/${name}`);
    expect(languages.length).toBeGreaterThanOrEqual(8);
    for (const file of [...CHUNKS, WATCH, INDEX])
      expect(text('dist/onboarding.js').includes(`"${sha384(file)}"`), `the SHA-384 of ${file}`).toBe(true);
    for (const file of [...languages, ...INDEXED]) {
      expect(text(INDEX).includes(`"${sha384(file)}"`), `the SHA-384 of ${file} in the index`).toBe(true);
      // Not in the script too: the index is there to keep them out of it.
      expect(text('dist/onboarding.js').includes(sha384(file)), `the SHA-384 of ${file} in the script`).toBe(false);
    }
  });

  it('leaves the announcement, the banner, the card, the checklist, the collection, the flow element, the form, the survey, their fields, the tour, the hint, the element watcher, debug() and floating-ui out of the script a page loads first, each in its chunk', () => {
    // What only each element has: the checklist's options for the done state, the form's novalidate and checkbox groups, the survey's choices and
    // its live region, the tour's advanceOn and spotlight, the hint's beacon name and the hover tooltip's description of its target.
    const markers = {
      'dist/onboarding-announcement.js': ['showModal', 'video[controls]'],
      'dist/onboarding-banner.js': ['--onboarding-banner-surface'],
      'dist/onboarding-card.js': ['--onboarding-card-shadow'],
      'dist/onboarding-checklist.js': ['whenDone', 'doneTitle'],
      'dist/onboarding-collection.js': ['collectionId'],
      'dist/onboarding-flow.js': ['data-onboarding-action'],
      'dist/onboarding-form.js': ['novalidate', 'class="choices"'],
      'dist/onboarding-survey.js': ['class="options"', 'visually-hidden'],
      'dist/onboarding-tour.js': ['advanceOn', '"spotlight"'],
      'dist/onboarding-hint.js': ['Hint: {title}', 'aria-description'],
    };
    for (const [chunk, marks] of Object.entries(markers)) {
      for (const marker of marks) {
        expect(text('dist/onboarding.js')).not.toContain(marker);
        expect(text(chunk)).toContain(marker);
        for (const other of CHUNKS.filter((file) => file !== chunk)) expect(text(other)).not.toContain(marker);
      }
    }
    // What the form and the survey share (a validation message, the scale's end label and its part): in those two chunks alone.
    for (const marker of ['Please check this value.', 'Not likely', 'scale-labels']) {
      expect(text('dist/onboarding.js')).not.toContain(marker);
      for (const chunk of CHUNKS) expect(text(chunk).includes(marker)).toBe(FIELDS.includes(chunk));
    }
    // The element watcher (its frame reload listener) and the start rules (their click rule's `>>>` and units) are in the
    // watch chunk, on the script's stores; the tour and the hint carry their own watcher.
    for (const marker of ['frameElement', '">>>"', 'ms:1']) {
      expect(text('dist/onboarding.js')).not.toContain(marker);
      expect(text(WATCH)).toContain(marker);
    }
    expect(text(WATCH)).toContain('Symbol.for("onboarding.chunk-host")');
    // Onboarding.debug()'s table and its walk for our elements are in its chunk alone, on the script's stores.
    for (const marker of ['console.table', '[part]:not([part=']) {
      expect(text('dist/onboarding.js')).not.toContain(marker);
      expect(text(DEBUG)).toContain(marker);
    }
    expect(text(DEBUG)).toContain('Symbol.for("onboarding.chunk-host")');
    // A floating-ui middleware's name and an option only the target engine reads: in the tour's and the hint's chunks alone.
    for (const marker of ['name:"flip"', '"targetTimeout"']) {
      expect(text('dist/onboarding.js')).not.toContain(marker);
      for (const chunk of CHUNKS) expect(text(chunk).includes(marker)).toBe(POINTING.includes(chunk));
    }
  });

  it('keeps one Lit and one set of stores: the chunks take them from the script', () => {
    // Lit's template marker and nanostores' global are each defined once, in the script; a chunk reads the host list.
    for (const marker of ['Symbol.for("lit-noChange")', 'nanostoresGlobal']) {
      expect(text('dist/onboarding.js').split(marker)).toHaveLength(2);
      for (const chunk of CHUNKS) expect(text(chunk)).not.toContain(marker);
    }
    for (const chunk of CHUNKS) expect(text(chunk)).toContain('Symbol.for("onboarding.chunk-host")');
  });

  it("keeps each language's built-in strings in a chunk of its own under 1 KiB gzip, none of them in the script", async () => {
    const { STRING_LANGUAGES } = await import('../../src/components/shared/locale.js');
    // The build's list (importing the config would run the build) names the same languages.
    const built = /STRING_LANGUAGES = (\[[^\]]*\])/.exec(text('esbuild.config.mjs'))![1];
    expect(JSON.parse(built.replaceAll("'", '"'))).toEqual(STRING_LANGUAGES);
    for (const code of STRING_LANGUAGES) {
      const file = `dist/onboarding-strings-${code}.js`;
      const size = measureBundle(file) as { gzip: number };
      expect(size.gzip).toBeGreaterThan(300);
      expect(size.gzip).toBeLessThanOrEqual(1024);
      expect(text(file)).toContain('stepOf:');
    }
    for (const translated of ['Suivant', 'Weiter', 'Siguiente', 'Próximo', '次へ', '下一步', 'التالي', 'הבא'])
      expect(text('dist/onboarding.js')).not.toContain(translated);
  });
});
