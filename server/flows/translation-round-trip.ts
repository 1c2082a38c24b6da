// `onboarding-flows translations`: exports a folder's text for one locale (XLIFF 2.0 or CSV) and imports a translated XLIFF (2.0 or 1.2) back into the flow files.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { checkFlowText, flowFileNames, UNSTORABLE_TEXT } from './definitions.js';
import { formatPath } from './schema.js';
import { fileSizeProblem, TRANSLATION_FILE_LIMITS } from './translation-limits.js';
import { keySegment, textUnits, writeTranslations, type TextUnit } from './translations-file.js';
import { droppedVariables, LOCALE_CODE } from './translations.js';
import { readXliff, unitId, writeXliff, type XliffUnit } from './xliff.js';
import { codePointName, XliffError } from './xliff-xml.js';

/** A locale code as the flow files key translations (the schema's rule): `fr`, `fr-CA`, `pt-BR`, `zh-Hans`. */
export const isLocale = (code: string) => LOCALE_CODE.test(code);

/** The flow files of a folder, in name order, as readFlowDirectory picks them. */
const flowFiles = (dir: string): string[] => flowFileNames(readdirSync(dir));

/**
 * Every text field of every flow file in `dir`, with `locale`'s translation where there is one. A file that is not a
 * flow file is a problem, named with the file; the others are exported all the same.
 */
export function exportTranslations(
  dir: string,
  locale: string,
): { files: Array<{ original: string; units: TextUnit[] }>; problems: string[] } {
  const files: Array<{ original: string; units: TextUnit[] }> = [];
  const problems: string[] = [];
  for (const name of flowFiles(dir)) {
    try {
      files.push({ original: name, units: textUnits(readFileSync(join(dir, name), 'utf8'), locale).units });
    } catch (error) {
      problems.push(`${join(dir, name)}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { files, problems };
}

/** RFC 4180: a field with a comma, a quote or a line break is quoted, and its quotes doubled. */
const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/** The export as text: XLIFF 2.0, or CSV with the columns key, source, target. */
export function formatExport(
  files: Array<{ original: string; units: TextUnit[] }>,
  options: { format: 'xliff' | 'csv'; sourceLocale: string; locale: string },
): string {
  if (options.format === 'csv') {
    const rows = [
      ['key', 'source', 'target'],
      ...files.flatMap((file) => file.units.map((unit) => [unit.key, unit.source, unit.target ?? ''])),
    ];
    return rows.map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
  }
  return writeXliff({ srcLang: options.sourceLocale, trgLang: options.locale, files });
}

/** What an import did: what it refused, what deserves a look, and the files it wrote. */
export interface ImportReport {
  problems: string[];
  /** Targets written whose source has changed since the export: the translation may be of the old text. */
  warnings: string[];
  written: Array<{ file: string; count: number }>;
}

/**
 * Writes the targets of a translated XLIFF (2.0 or 1.2) into `translations.<locale>` of the flow files in `dir`. A
 * unit's flow file is the one its <file>'s `original` names, when that is a flow file of the folder; else (a tool that
 * drops `original`, or writes a name of its own) the one whose slug starts the unit's key, so one <file> for every flow
 * reads as well as one per flow. A file is left as it was when one of its units is refused (a key the flow does not
 * have, a target that drops a `${variable}` of the source), when it does not load as it is, or when it would not load
 * once written: the file as it would be written goes through the loader's own check, so import writes nothing `check`
 * refuses. The others are written, once every file is checked. Empty targets are skipped. Throws {@link XliffError}
 * when the XLIFF is malformed or past {@link TRANSLATION_FILE_LIMITS}.
 */
export function importTranslations(xliffText: string, xliffName: string, dir: string): ImportReport {
  const report: ImportReport = { problems: [], warnings: [], written: [] };
  // The caller checks the file's size before reading it; this holds for text from anywhere else.
  const tooBig = fileSizeProblem(Buffer.byteLength(xliffText));
  if (tooBig) {
    report.problems.push(`${xliffName}: ${tooBig}; nothing written`);
    return report;
  }
  const document = readXliff(xliffText, TRANSLATION_FILE_LIMITS);
  const locale = document.trgLang;
  const at = (line: number) => `${xliffName}:${line}`;
  if (!isLocale(locale)) {
    report.problems.push(
      `${at(document.trgLangAt.line)}  ${document.trgLangAt.attribute} "${locale}" is not a locale code (fr, fr-CA, pt-BR)`,
    );
    return report;
  }
  const names = flowFiles(dir);
  const present = new Set(names);
  const texts = new Map<string, string>();
  const textOf = (name: string) => {
    if (!texts.has(name)) texts.set(name, readFileSync(join(dir, name), 'utf8'));
    return texts.get(name)!;
  };
  // The flow files by slug, as a key writes it and as an id does; read only when a <file> does not name its flow.
  let slugs: { byKey: Map<string, string[]>; byId: Map<string, string[]> } | undefined;
  const flowsOfSlug = (key: string): string[] => {
    if (!slugs) {
      slugs = { byKey: new Map(), byId: new Map() };
      for (const name of names) {
        let slug: string;
        try {
          slug = keySegment(textUnits(textOf(name), locale).slug);
        } catch {
          // Not a flow file: no key leads to it.
          continue;
        }
        slugs.byKey.set(slug, [...(slugs.byKey.get(slug) ?? []), name]);
        slugs.byId.set(unitId(slug), [...(slugs.byId.get(unitId(slug)) ?? []), name]);
      }
    }
    // A key has a "/" after its slug; an id has "." where the key has "/", and no "/".
    return (isKey(key) ? slugs.byKey.get(key.split('/')[0]) : slugs.byId.get(key.split('.')[0])) ?? [];
  };

  // Each flow file's units, in the order the XLIFF first names each file.
  const byFlow = new Map<string, XliffUnit[]>();
  for (const file of document.files) {
    // `original` names a file of the folder, never a path out of it.
    const named =
      file.original !== undefined && basename(file.original) === file.original && present.has(file.original)
        ? file.original
        : undefined;
    for (const unit of file.units) {
      let name = named;
      if (name === undefined) {
        const flows = flowsOfSlug(unit.key);
        const slug = isKey(unit.key) ? unit.key.split('/')[0] : unit.key.split('.')[0];
        if (flows.length !== 1) {
          report.problems.push(
            flows.length
              ? `${at(unit.line)}  ${unit.key}: ${flows.join(' and ')} have the same slug; check refuses them both`
              : `${at(unit.line)}  ${unit.key}: no flow file in ${dir} has the slug "${slug}"${file.original === undefined ? '' : `, and <file original="${file.original}"> names none of its files`}`,
          );
          continue;
        }
        name = flows[0]!;
      }
      byFlow.set(name, [...(byFlow.get(name) ?? []), unit]);
    }
  }

  const pending: Array<{ path: string; text: string; count: number }> = [];
  for (const [name, xliffUnits] of byFlow) {
    const path = join(dir, name);
    const text = textOf(name);
    let units: TextUnit[];
    try {
      units = textUnits(text, locale).units;
    } catch (error) {
      report.problems.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    // A file the loader refuses already: what the import adds could not be told from what was there.
    const own = checkFlowText(text).problems;
    if (own.length) {
      for (const problem of own)
        report.problems.push(
          `${path}:${problem.line}:${problem.column}  ${problem.path ? `${problem.path}: ` : ''}${problem.message}`,
        );
      report.problems.push(`${path}: not written (it does not load as it is: fix it first)`);
      continue;
    }
    // Found by key (`name`), or by the id the export gives that key.
    const byKey = new Map(units.flatMap((unit) => [[unit.key, unit] as const, [unitId(unit.key), unit] as const]));
    const problems: string[] = [];
    const targets: Array<{ path: string[]; target: string; key: string; line: number }> = [];
    const warnings: string[] = [];
    for (const unit of xliffUnits) {
      const known = byKey.get(unit.key);
      if (!known) {
        problems.push(`${at(unit.line)}  ${unit.key}: no such text field in ${name}`);
        continue;
      }
      if (unit.fault) {
        const { code } = unit.fault;
        // A NUL or an unpaired surrogate is what the loader refuses too; other control characters, XML alone.
        const why =
          code === 0 || (code >= 0xd800 && code <= 0xdfff)
            ? UNSTORABLE_TEXT
            : `holds ${codePointName(code)}, a character XML does not allow`;
        problems.push(`${at(unit.fault.line)}  ${known.key}: ${why}`);
        continue;
      }
      if (unit.target === undefined || unit.target.trim() === '') continue;
      // Checked against the flow's source as it is now, which the XLIFF's <source> may no longer be.
      const dropped = droppedVariables(known.source, unit.target);
      if (dropped.length) {
        problems.push(
          `${at(unit.targetLine ?? unit.line)}  ${known.key}: the translation drops ${dropped.map((variable) => `\${${variable}}`).join(', ')} of the source`,
        );
        continue;
      }
      if (unit.source !== known.source)
        warnings.push(
          `${at(unit.line)}  warning: ${known.key}: the source has changed since the export; the translation may be of the old text`,
        );
      if (unit.target !== known.target)
        targets.push({ path: known.path, target: unit.target, key: known.key, line: unit.targetLine ?? unit.line });
    }
    let next: string | undefined;
    if (!problems.length && targets.length) {
      try {
        next = writeTranslations(text, locale, targets);
      } catch (error) {
        problems.push(
          `${path}: cannot hold translations.${locale} (${error instanceof Error ? error.message : String(error)})`,
        );
      }
    }
    // The file as it would be written, through the loader's check: a problem there is one a target brings.
    if (next !== undefined)
      for (const problem of loaderProblems(next, locale, targets, path, at)) problems.push(problem);
    if (problems.length) {
      for (const problem of problems) report.problems.push(problem);
      report.problems.push(`${path}: not written (${problems.length} refused)`);
      continue;
    }
    for (const warning of warnings) report.warnings.push(warning);
    if (next !== undefined) pending.push({ path, text: next, count: targets.length });
  }
  // Written once every file is checked, so that a fault found on the way leaves every file as it was.
  for (const { path, text, count } of pending) {
    try {
      writeFileSync(path, text);
      report.written.push({ file: path, count });
    } catch (error) {
      report.problems.push(`${path}: not written (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  }
  return report;
}

/** A stable key has a "/" after the flow's slug; its {@link unitId} has none. */
const isKey = (key: string) => key.includes('/');

/**
 * What the loader refuses in `next`, a flow file with `targets` written into `translations.<locale>`: each by the key
 * and XLIFF line of the target it is in, else (a problem no one target brings) by the path in the file.
 */
function loaderProblems(
  next: string,
  locale: string,
  targets: ReadonlyArray<{ path: string[]; key: string; line: number }>,
  path: string,
  at: (line: number) => string,
): string[] {
  const { problems } = checkFlowText(next);
  // A choice's value may be a number, which a path may write as an index (`options[1]`) or as a key (`options.1`).
  const places = targets.map((target) => ({
    ...target,
    places: [target.path, target.path.map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment))].map(
      (segments) => formatPath(['translations', locale, ...segments]),
    ),
  }));
  const within = (path: string, place: string) =>
    path === place || path.startsWith(`${place}.`) || path.startsWith(`${place}[`);
  return problems.map((problem) => {
    const target = places.find((candidate) => candidate.places.some((place) => within(problem.path, place)));
    return target
      ? `${at(target.line)}  ${target.key}: ${problem.message}`
      : `${path}: ${problem.path ? `${problem.path}: ` : ''}${problem.message} (once written)`;
  });
}

export { XliffError };
