// What a locale costs the state answer: the demo's flows read in one locale against the same flows written in that language alone, and the elements' strings in the answer against their file beside the script.
// Usage: node bench/locale-answer.mjs   (after npm run build)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { parse, stringify } from 'yaml';
import { startServiceProcess, tempFlows } from './support.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
/**
 * Issue 27: an answer in one locale is no larger than today's for the same flows, give or take the locale's text: read
 * in a locale, it is within this share of the bytes of the same flows written in that locale alone.
 */
export const ANSWER_TARGETS = { slackShare: 0.01 };
/** Locales added to the demo's French and Arabic, copies of them, so the flows carry eight languages as a real site's might. */
const COPIES = { de: 'fr', es: 'fr', 'pt-BR': 'fr', ja: 'fr', 'zh-Hans': 'fr', he: 'ar' };
const USER = 'bench-answer-user';

const gzip = (text) => gzipSync(text, { level: 9 }).length;

/** The service's own overlay (server/flows/translations.ts), bundled for this script: the flows written in one language. */
async function overlay() {
  const { outputFiles } = await build({
    entryPoints: [join(root, 'server/flows/translations.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    write: false,
  });
  return import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`);
}

/** The demo's flow files, parsed, with the copied locales added to each translated one. */
function demoFlows() {
  const dir = join(root, 'demo/flows');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .map((name) => {
      const flow = parse(readFileSync(join(dir, name), 'utf8'));
      if (flow.translations)
        for (const [code, from] of Object.entries(COPIES)) flow.translations[code] = flow.translations[from];
      return { name, flow };
    });
}

/** The state answer of one user (every flow's content, nothing known), as the script's first read gets it. */
async function answer(flows, locale) {
  const folder = tempFlows(Object.fromEntries(flows.map(({ name, flow }) => [name, stringify(flow)])));
  const service = await startServiceProcess({ flows: folder.dir });
  try {
    const query = `userId=${USER}${locale ? `&locale=${encodeURIComponent(locale)}` : ''}`;
    const response = await fetch(`${service.url}/v1/public/flowStates?${query}`, {
      headers: { Authorization: `Bearer ${service.publicKey}` },
    });
    if (!response.ok) throw new Error(`the read answered ${response.status}: ${await response.text()}`);
    const text = await response.text();
    return { bytes: Buffer.byteLength(text), gzip: gzip(text), text, flows: JSON.parse(text).eligibleFlows.length };
  } finally {
    await service.stop();
    folder.remove();
  }
}

/** The strings a language's file hands to the script, as the script would receive them. */
function stringsOf(code) {
  const source = readFileSync(join(root, `dist/onboarding-strings-${code}.js`), 'utf8');
  let strings;
  runInNewContext(source, { [Symbol.for('onboarding.strings')]: (_code, value) => (strings = value) });
  if (!strings) throw new Error(`onboarding-strings-${code}.js handed over no strings`);
  return { file: source, strings };
}

export async function runLocaleAnswer() {
  const { applyTranslations, localeChain } = await overlay();
  const flows = demoFlows();
  const translated = flows.filter(({ flow }) => flow.translations).length;
  const locales = Object.keys(flows.find(({ flow }) => flow.translations)?.flow.translations ?? {});
  /** The same flows written in `code` alone: each flow's data with that locale laid over it, and no translations. */
  const writtenIn = (code) =>
    flows.map(({ name, flow: { translations, ...flow } }) => ({
      name,
      flow: {
        ...flow,
        data: applyTranslations(
          flow.data,
          localeChain(code, translations).map((key) => translations[key]),
        ),
      },
    }));
  const untranslated = flows.map(({ name, flow: { translations: _, ...flow } }) => ({ name, flow }));

  const rows = [];
  for (const code of ['', 'fr', 'ar']) {
    const read = await answer(flows, code || undefined);
    const alone = await answer(code ? writtenIn(code) : untranslated);
    rows.push({
      locale: code || '(none)',
      bytes: read.bytes,
      gzip: read.gzip,
      aloneBytes: alone.bytes,
      aloneGzip: alone.gzip,
      flows: read.flows,
      share: (read.bytes - alone.bytes) / alone.bytes,
    });
  }

  // The elements' strings: in every read's answer, or in their file beside the script, fetched once and cached.
  const french = await answer(flows, 'fr');
  const { file, strings } = stringsOf('fr');
  const inAnswer = french.text.replace(/}$/, `,"strings":${JSON.stringify(strings)}}`);
  return {
    flowFiles: flows.length,
    translatedFiles: translated,
    locales,
    rows,
    strings: {
      fileGzip: gzip(file),
      inAnswerGzip: gzip(inAnswer) - french.gzip,
      inAnswerBytes: Buffer.byteLength(inAnswer) - french.bytes,
    },
    targets: ANSWER_TARGETS,
  };
}

export function printLocaleAnswer(result) {
  const mark = (ok) => (ok ? 'met' : 'MISSED');
  console.log(
    `State answer of the demo's ${result.flowFiles} flows (${result.translatedFiles} translated into ${result.locales.length} locales: ${result.locales.join(', ')}), one user's first read:`,
  );
  console.log('  locale | answer (gzip) | same flows written in that locale alone (gzip) | difference');
  for (const row of result.rows) {
    const ok = row.share <= result.targets.slackShare;
    console.log(
      `  ${row.locale} | ${row.bytes} B (${row.gzip} B) | ${row.aloneBytes} B (${row.aloneGzip} B) | ${row.bytes - row.aloneBytes} B, ${(row.share * 100).toFixed(2)}% (≤ ${result.targets.slackShare * 100}%) ${mark(ok)}; ${row.flows} flows`,
    );
  }
  const s = result.strings;
  // The file is fetched once, beside the first read, then comes from the browser's cache; the answer would carry them on every read.
  const views = Math.ceil(s.fileGzip / s.inAnswerGzip);
  console.log(
    `  French interface strings: +${s.inAnswerBytes} B (+${s.inAnswerGzip} B gzip) on every read's answer, or onboarding-strings-fr.js, ${s.fileGzip} B gzip once per browser cache`,
  );
  console.log(
    `  on demand is the cheaper from a visitor's page view ${views} on: by then the answers would have carried ${views * s.inAnswerGzip} B gzip`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) printLocaleAnswer(await runLocaleAnswer());
