// Command line: `onboarding-flows check` prints every problem and warning in flow files, collections.yaml, experiments.yaml and limits.yaml with file, line and path; `from-frigade` and `from-posthog` convert Frigade's flows and PostHog's product tours; `translations` exports and imports a locale's text; `explain` asks a service why flows are or are not shown to a user; `mcp` serves the flow tools to an agent.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { checkCollectionsText, collectionsFileIn, readCollections } from './collections.js';
import { checkExperimentsText, experimentsFileIn, readExperiments } from './experiments.js';
import { checkLimitsText, limitsFileIn, readLimits } from './limits.js';
import {
  checkFlowText,
  COLLECTION_FILES,
  EXPERIMENT_FILES,
  LIMIT_FILES,
  readFlowDirectory,
  type CheckOptions,
  type FlowProblem,
} from './definitions.js';
import { formatPath } from './schema.js';
import { checkBlockFlows } from './semantic-checks.js';
import { LOCALE_CODE } from './translations.js';
import { frigadeTargetingToCel } from './frigade-targeting.js';
import { convertFrigadeFlows, type ConvertedFlow } from './from-frigade.js';
import { convertPostHogTours } from './from-posthog.js';
import { explain, EXPLAIN_HELP, EXPLAIN_USAGE } from './explain-command.js';
import { MCP_USAGE, serveMcp } from './mcp.js';
import { fileSizeProblem } from './translation-limits.js';
import {
  exportTranslations,
  formatExport,
  importTranslations,
  isLocale,
  XliffError,
} from './translation-round-trip.js';

const USAGE = `Usage: onboarding-flows check <folder or file>… [--format text|github] [--locales fr,de]
       onboarding-flows from-frigade <flows.json | -> --out <folder> [--force]
       onboarding-flows from-frigade --targeting "<Frigade expression>"
       onboarding-flows from-posthog <tours.json | -> --out <folder> [--force]
       onboarding-flows translations export --locale <code> <folder> [--out <file>] [--format xliff|csv] [--source-locale en]
       onboarding-flows translations import <file.xlf> [<folder>]
       ${EXPLAIN_USAGE}
${MCP_USAGE}

check: checks flow files against the flow schema (schema/flow.schema.json) and compiles their CEL, and
collections.yaml, experiments.yaml and limits.yaml against the flows beside them, as the service does when it loads them. Prints every problem as
file:line:column, the path of the value at fault and what was expected, and every warning (a field type your own code
draws) the same way, marked "warning". Exits 0 when every file is fine or has warnings only, 1 when one has a
problem, 2 on bad usage. --format github prints GitHub Actions annotations instead. --locales fr,de also warns at
every text a listed locale's translation lacks (a warning: a flow shows the source text where one is missing).

from-frigade: reads Frigade's flows, as GET /v1/public/flows answers them (or one flow; - reads standard input),
and writes one flow file per flow into the --out folder (--force replaces files already there). Targeting and step
criteria are translated into CEL; one that has no CEL form is written as "false" under a # TODO comment, and printed
as file:line:column. Exits 0 when every flow converted and its file passes check, 1 when a file needs a hand (a TODO
or a check problem), 2 on bad usage or input that is not Frigade's flows. With --targeting, prints the CEL of one
expression (exit 0), or why it has none (exit 1).

from-posthog: reads PostHog's product tours, as its API lists them ({ "results": [ … ] }, or an array of tours, or
one tour; - reads standard input), and writes one flow file per tour into the --out folder (--force replaces files
already there): a tour as a TOUR, an announcement as an ANNOUNCEMENT, a banner as a BANNER, and each survey step as a
SURVEY flow of its own. What has no equivalent here (a linked feature flag, events, device types, an address no page
pattern can say, content outside the rich-text subset) is written as a # TODO comment and printed as file:line:column;
markup dropped with its text kept is printed as a warning. Exits 0 when every tour converted and its file passes
check, 1 when a file needs a hand, 2 on bad usage or input that is not PostHog's tours.

translations export: writes every text field of the folder's flows (titles, texts, button titles, labels,
placeholders, messages, choices' labels, alt text) with its source text and the locale's current translation, as
XLIFF 2.0 (one <file> per flow file, one <unit> per field, named by a stable key such as
welcome/steps/intro/fields/email/label), to --out or standard output. --format csv writes key,source,target instead.
Exits 0, 1 when a file of the folder is not a flow file (the others are exported), 2 on bad usage.

translations import: writes the XLIFF's targets into translations.<trgLang> of the flow files in the folder (default:
the current one), keeping their comments and order. Reads XLIFF 2.0, with or without <file original>, and XLIFF 1.2
(target-language, <trans-unit>); a unit's flow is the file original names, else the one whose slug starts its key
(name or resname, else id). Refuses a key the flow does not have, a translation that drops a
\${variable} of the source, and any target check would refuse in the file as written, printed as file:line and key; a
file with a refusal, or that check refuses already, is not written. Empty targets are skipped. A target whose <source>
is no longer the flow's text is written, with a warning. An XLIFF file over 4 MiB, nested over 32 levels or with over
100,000 elements is refused with file and line. Exits 0 when every file was written or had nothing new, 1 on a refusal
or malformed XLIFF, 2 on bad usage.

${EXPLAIN_HELP}

mcp: serves the Model Context Protocol over standard input and output for an agent that writes flows (docs/mcp.md):
list_flows, read_flow, check_flow and write_flow on the --flows folder, and with --api and --key (a private key of that
service) explain_user and flow_report. Runs until standard input ends; exits 2 on bad usage.`;

interface FileReport {
  file: string;
  problems: FlowProblem[];
  /** What loads but our elements do not draw; never a failure. */
  warnings: FlowProblem[];
}

/** Checks the folders and files named; a folder is read as the service reads it (duplicate slugs and collections.yaml included). */
export function checkPaths(paths: string[], options: CheckOptions = {}): { reports: FileReport[]; checked: number } {
  const reports: FileReport[] = [];
  let checked = 0;
  for (const path of paths) {
    if (statSync(path).isDirectory()) {
      const { flows, errors, warnings } = readFlowDirectory(path, options);
      checked += flows.length + errors.length;
      // In file order, each file's problems and warnings together.
      const files = [
        ...new Set([...errors.map((error) => error.file), ...warnings.map((warning) => warning.file)]),
      ].sort();
      for (const file of files) {
        reports.push({
          file: join(path, file),
          problems: errors.find((error) => error.file === file)?.problems ?? [],
          warnings: warnings.find((warning) => warning.file === file)?.warnings ?? [],
        });
      }
      if (collectionsFileIn(path)) checked++;
      const collections = readCollections(path, new Set(flows.map((flow) => flow.slug)));
      if (collections.error)
        reports.push({ file: join(path, collections.error.file), problems: collections.error.problems, warnings: [] });
      if (experimentsFileIn(path)) checked++;
      const experiments = readExperiments(path, new Set(flows.map((flow) => flow.slug)));
      if (experiments.error)
        reports.push({ file: join(path, experiments.error.file), problems: experiments.error.problems, warnings: [] });
      if (limitsFileIn(path)) checked++;
      const limits = readLimits(path, new Set(flows.map((flow) => flow.slug)));
      if (limits.error)
        reports.push({ file: join(path, limits.error.file), problems: limits.error.problems, warnings: [] });
    } else if (COLLECTION_FILES.includes(basename(path).toLowerCase())) {
      // Its flow slugs are checked against the flows of its own folder.
      checked++;
      const { problems } = checkCollectionsText(readFileSync(path, 'utf8'), slugsBeside(path));
      if (problems.length) reports.push({ file: path, problems, warnings: [] });
    } else if (EXPERIMENT_FILES.includes(basename(path).toLowerCase())) {
      checked++;
      const { problems } = checkExperimentsText(readFileSync(path, 'utf8'), slugsBeside(path));
      if (problems.length) reports.push({ file: path, problems, warnings: [] });
    } else if (LIMIT_FILES.includes(basename(path).toLowerCase())) {
      checked++;
      const { problems } = checkLimitsText(readFileSync(path, 'utf8'), slugsBeside(path));
      if (problems.length) reports.push({ file: path, problems, warnings: [] });
    } else {
      checked++;
      const { definition, problems, warnings, locate } = checkFlowText(readFileSync(path, 'utf8'), options);
      // A resource centre's flow slugs are checked against the flows of its own folder, as the service does.
      if (definition?.type === 'RESOURCE_CENTER') {
        const types = new Map(readFlowDirectory(dirname(path)).flows.map((flow) => [flow.slug, flow.type]));
        checkBlockFlows(definition.data, types, (segments, message) =>
          problems.push({ path: formatPath(segments), ...locate(segments), message }),
        );
      }
      if (problems.length || warnings.length) reports.push({ file: path, problems, warnings });
    }
  }
  return { reports, checked };
}

/** The slugs of the flows in the folder of `path`. */
const slugsBeside = (path: string) => new Set(readFlowDirectory(dirname(path)).flows.map((flow) => flow.slug));

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

/** `from-frigade`: one expression's CEL with --targeting, or Frigade's flows (a file, or - for standard input) as files in --out. */
export function fromFrigade(inputs: string[], options: { out?: string; targeting?: string; force?: boolean }): number {
  if (options.targeting !== undefined) {
    if (inputs.length || options.out !== undefined) {
      console.error(USAGE);
      return 2;
    }
    const result = frigadeTargetingToCel(options.targeting);
    if ('problem' in result) {
      const { column, message } = result.problem;
      console.error(`${options.targeting}\n${' '.repeat(column - 1)}^ column ${column}: ${message}`);
      return 1;
    }
    console.log(result.cel);
    return 0;
  }
  if (inputs.length !== 1 || !options.out) {
    console.error(USAGE);
    return 2;
  }
  const flows = readConverted(inputs[0], convertFrigadeFlows);
  if (!flows) return 2;
  return writeConverted(flows, options.out, options.force ?? false, 'flow');
}

/**
 * Writes converted flows into `out` (refusing files already there without `force`), prints each problem and warning
 * as file:line:column, then a summary; 0 when no file has a problem, 1 when one has, 2 when nothing could be written.
 */
function writeConverted(flows: ConvertedFlow[], out: string, force: boolean, what: string): number {
  const present = flows.map((flow) => join(out, flow.file)).filter((file) => existsSync(file));
  if (present.length && !force) {
    console.error(
      `${present.join(', ')} already exist${present.length === 1 ? 's' : ''}: choose another --out folder, or replace them with --force`,
    );
    return 2;
  }
  try {
    mkdirSync(out, { recursive: true });
    for (const flow of flows) writeFileSync(join(out, flow.file), flow.text);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 2;
  }
  const reports = flows
    .filter((flow) => flow.problems.length + flow.warnings.length)
    .map((flow) => ({ file: join(out, flow.file), problems: flow.problems, warnings: flow.warnings }));
  for (const report of reports) for (const line of formatReport(report, 'text')) console.log(line);
  const files = `${flows.length} ${what} file${flows.length === 1 ? '' : 's'} written to ${out}`;
  const count = reports.reduce((sum, report) => sum + report.problems.length, 0);
  const warned = reports.reduce((sum, report) => sum + report.warnings.length, 0);
  const warnings = warned ? `, ${warned} warning${warned === 1 ? '' : 's'}` : '';
  if (!count) {
    console.log(`${files}: no problems${warnings}`);
    return 0;
  }
  console.log(
    `${files}: ${count} problem${count === 1 ? '' : 's'} in ${reports.filter((report) => report.problems.length).length} of them${warnings}`,
  );
  return 1;
}

/** Reads a JSON file (or standard input for -), and converts it; an Error for input that is not JSON or not what it expects. */
function readConverted(input: string, convert: (json: unknown) => ConvertedFlow[]): ConvertedFlow[] | undefined {
  try {
    const text = readFileSync(input === '-' ? 0 : input, 'utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new Error(`not JSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    return convert(json);
  } catch (error) {
    console.error(
      `${input === '-' ? 'standard input' : input}: ${error instanceof Error ? error.message : String(error)}`,
    );
    return undefined;
  }
}

/** `from-posthog`: PostHog's product tours (a file, or - for standard input) as flow files in --out. */
export function fromPostHog(inputs: string[], options: { out?: string; targeting?: string; force?: boolean }): number {
  if (inputs.length !== 1 || !options.out || options.targeting !== undefined) {
    console.error(USAGE);
    return 2;
  }
  const flows = readConverted(inputs[0], convertPostHogTours);
  return flows ? writeConverted(flows, options.out, options.force ?? false, 'flow') : 2;
}

/** `translations export` and `translations import`. */
export function translations(
  args: string[],
  options: {
    locale?: string;
    'source-locale'?: string;
    format?: string;
    out?: string;
    targeting?: string;
    force?: boolean;
  },
): number {
  const [action, ...paths] = args;
  const format = options.format ?? 'xliff';
  const sourceLocale = options['source-locale'] ?? 'en';
  if (options.targeting !== undefined || options.force) {
    console.error(USAGE);
    return 2;
  }
  if (action === 'export') {
    if (paths.length !== 1 || !options.locale || (format !== 'xliff' && format !== 'csv')) {
      console.error(USAGE);
      return 2;
    }
    if (!isLocale(options.locale) || !isLocale(sourceLocale)) {
      console.error(
        `"${isLocale(options.locale) ? sourceLocale : options.locale}" is not a locale code: write fr, fr-CA or pt-BR`,
      );
      return 2;
    }
    try {
      const { files, problems } = exportTranslations(paths[0], options.locale);
      const text = formatExport(files, { format, sourceLocale, locale: options.locale });
      if (options.out === undefined) process.stdout.write(text);
      else writeFileSync(options.out, text);
      for (const problem of problems) console.error(problem);
      const count = files.reduce((sum, file) => sum + file.units.length, 0);
      if (options.out !== undefined)
        console.log(
          `${count} text field${count === 1 ? '' : 's'} of ${files.length} flow file${files.length === 1 ? '' : 's'} written to ${options.out}`,
        );
      return problems.length ? 1 : 0;
    } catch (error) {
      console.error(error instanceof Error ? error.message : String(error));
      return 2;
    }
  }
  if (action === 'import') {
    if (
      paths.length < 1 ||
      paths.length > 2 ||
      options.locale !== undefined ||
      options.out !== undefined ||
      options.format !== undefined
    ) {
      console.error(USAGE);
      return 2;
    }
    const [file, dir = '.'] = paths as [string, string?];
    let text: string;
    try {
      if (!statSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`);
      // The size before the text: a file far too big is never read into memory.
      const tooBig = fileSizeProblem(statSync(file).size);
      if (tooBig) {
        console.error(`${file}: ${tooBig}; nothing written`);
        return 1;
      }
      text = readFileSync(file, 'utf8');
    } catch (error) {
      console.error(error instanceof Error ? error.message : String(error));
      return 2;
    }
    let report;
    try {
      report = importTranslations(text, file, dir);
    } catch (error) {
      // One line, never a stack trace: every file is written only once all are checked, so none was.
      const message = error instanceof Error ? error.message.replace(/^line \d+: /, '') : String(error);
      console.error(
        `${error instanceof XliffError ? `${file}:${error.line} ` : `${file}:`} ${message}; nothing written`,
      );
      return 1;
    }
    for (const problem of report.problems) console.error(problem);
    for (const warning of report.warnings) console.log(warning);
    for (const { file: written, count } of report.written)
      console.log(`${written}: ${count} translation${count === 1 ? '' : 's'} written`);
    if (!report.problems.length && !report.written.length) console.log('nothing new to write');
    return report.problems.length ? 1 : 0;
  }
  console.error(USAGE);
  return 2;
}

/** Runs one command and answers its exit code; `explain`, which asks a service over the network, answers it with a promise. */
export function main(argv: readonly ['explain', ...string[]]): Promise<number>;
/** Every other command runs to its end before it returns. */
export function main(argv: string[]): number;
export function main(argv: readonly string[]): number | Promise<number> {
  if (argv[0] === 'explain') return explain(argv.slice(1));
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        format: { type: 'string' },
        locale: { type: 'string' },
        'source-locale': { type: 'string' },
        help: { type: 'boolean', default: false },
        out: { type: 'string' },
        targeting: { type: 'string' },
        force: { type: 'boolean', default: false },
        locales: { type: 'string' },
      },
    });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  const [command, ...paths] = parsed.positionals;
  if (parsed.values.help) {
    console.log(USAGE);
    return 0;
  }
  if (command === 'translations') return translations(paths, parsed.values);
  if (parsed.values.locale !== undefined || parsed.values['source-locale'] !== undefined) {
    console.error(USAGE);
    return 2;
  }
  if (command === 'from-frigade') return fromFrigade(paths, parsed.values);
  if (command === 'from-posthog') return fromPostHog(paths, parsed.values);
  if (parsed.values.out !== undefined || parsed.values.targeting !== undefined || parsed.values.force) {
    console.error(USAGE);
    return 2;
  }
  const format = parsed.values.format ?? 'text';
  const locales = parsed.values.locales?.split(',').map((code) => code.trim());
  if (
    command !== 'check' ||
    paths.length === 0 ||
    (format !== 'text' && format !== 'github') ||
    locales?.some((code) => !LOCALE_CODE.test(code))
  ) {
    console.error(USAGE);
    return 2;
  }
  let result;
  try {
    result = checkPaths(paths, { locales });
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

const invokedDirectly =
  Boolean(process.argv[1]) && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (invokedDirectly) {
  const argv = process.argv.slice(2);
  // The MCP server runs until its client leaves, and explain until the service answers; every other command is done
  // when main returns.
  void (argv[0] === 'mcp' ? serveMcp(argv.slice(1)) : Promise.resolve(main(argv))).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exitCode = 1;
    },
  );
}
