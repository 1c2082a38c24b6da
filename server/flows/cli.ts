// Command line: `onboarding-flows check <folder|file>…` prints every problem and warning in flow files and collections.yaml with file, line and path.
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { checkCollectionsText, collectionsFileIn, readCollections } from './collections.js';
import { checkFlowText, COLLECTION_FILES, readFlowDirectory, type FlowProblem } from './definitions.js';

const USAGE = `Usage: onboarding-flows check <folder or file>… [--format text|github]

Checks flow files against the flow schema (schema/flow.schema.json) and compiles their CEL, and
collections.yaml against the flows beside it, as the service does when it loads them. Prints every problem as file:line:column, the path of the value at
fault and what was expected, and every warning (a field type your own code draws) the same way, marked "warning".
Exits 0 when every file is fine or has warnings only, 1 when one has a problem, 2 on bad usage.
--format github prints GitHub Actions annotations instead.`;

interface FileReport {
  file: string;
  problems: FlowProblem[];
  /** What loads but our elements do not draw; never a failure. */
  warnings: FlowProblem[];
}

/** Checks the folders and files named; a folder is read as the service reads it (duplicate slugs and collections.yaml included). */
export function checkPaths(paths: string[]): { reports: FileReport[]; checked: number } {
  const reports: FileReport[] = [];
  let checked = 0;
  for (const path of paths) {
    if (statSync(path).isDirectory()) {
      const { flows, errors, warnings } = readFlowDirectory(path);
      checked += flows.length + errors.length;
      // In file order, each file's problems and warnings together.
      const files = [...new Set([...errors.map((error) => error.file), ...warnings.map((warning) => warning.file)])].sort();
      for (const file of files) {
        reports.push({
          file: join(path, file),
          problems: errors.find((error) => error.file === file)?.problems ?? [],
          warnings: warnings.find((warning) => warning.file === file)?.warnings ?? [],
        });
      }
      if (collectionsFileIn(path)) checked++;
      const collections = readCollections(path, new Set(flows.map((flow) => flow.slug)));
      if (collections.error) reports.push({ file: join(path, collections.error.file), problems: collections.error.problems, warnings: [] });
    } else if (COLLECTION_FILES.includes(basename(path).toLowerCase())) {
      // Its flow slugs are checked against the flows of its own folder.
      checked++;
      const slugs = new Set(readFlowDirectory(dirname(path)).flows.map((flow) => flow.slug));
      const { problems } = checkCollectionsText(readFileSync(path, 'utf8'), slugs);
      if (problems.length) reports.push({ file: path, problems, warnings: [] });
    } else {
      checked++;
      const { problems, warnings } = checkFlowText(readFileSync(path, 'utf8'));
      if (problems.length || warnings.length) reports.push({ file: path, problems, warnings });
    }
  }
  return { reports, checked };
}

/** One line per problem and warning, in the order they are in the file. */
export function formatReport(report: FileReport, format: 'text' | 'github'): string[] {
  const near = relative(process.cwd(), report.file);
  const file = !near || near.startsWith('..') ? report.file || basename(report.file) : near;
  const entries = [
    ...report.problems.map((problem) => ({ ...problem, level: 'error' as const })),
    ...report.warnings.map((warning) => ({ ...warning, level: 'warning' as const })),
  ].sort((a, b) => a.line - b.line || a.column - b.column);
  return entries.map((p) =>
    format === 'github'
      ? `::${p.level} file=${file},line=${p.line},col=${p.column},title=${p.path || 'flow file'}::${p.message.replace(/%/g, '%25').replace(/\n/g, '%0A')}`
      : `${file}:${p.line}:${p.column}  ${p.level === 'warning' ? 'warning: ' : ''}${p.path ? `${p.path}: ` : ''}${p.message}`,
  );
}

export function main(argv: string[]): number {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { format: { type: 'string', default: 'text' }, help: { type: 'boolean', default: false } } });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  const [command, ...paths] = parsed.positionals;
  if (parsed.values.help) {
    console.log(USAGE);
    return 0;
  }
  const format = parsed.values.format;
  if (command !== 'check' || paths.length === 0 || (format !== 'text' && format !== 'github')) {
    console.error(USAGE);
    return 2;
  }
  let result;
  try {
    result = checkPaths(paths);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 2;
  }
  const { reports, checked } = result;
  for (const report of reports) for (const line of formatReport(report, format)) console.log(line);
  const count = reports.reduce((sum, report) => sum + report.problems.length, 0);
  const warned = reports.reduce((sum, report) => sum + report.warnings.length, 0);
  const files = `${checked} flow file${checked === 1 ? '' : 's'}`;
  const warnings = warned ? `, ${warned} warning${warned === 1 ? '' : 's'}` : '';
  if (count === 0) {
    console.log(`${files} checked: no problems${warnings}`);
    return 0;
  }
  const failed = reports.filter((report) => report.problems.length).length;
  console.log(`${count} problem${count === 1 ? '' : 's'} in ${failed} of ${files}${warnings}`);
  return 1;
}

const invokedDirectly = Boolean(process.argv[1]) && import.meta.url === pathToFileURL(realpathSync(process.argv[1]!)).href;
if (invokedDirectly) process.exitCode = main(process.argv.slice(2));
