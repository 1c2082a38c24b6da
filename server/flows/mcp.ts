// `onboarding-flows mcp`: a Model Context Protocol server over stdio with the flow tools (list, read, check and write a
// folder's flows; explain a user and report a flow through a running service) and the flow format as resources.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type * as Z from 'zod/v4';
import {
  COLLECTION_TYPES,
  EXPERIMENT_STATUSES,
  EXPLAIN_RULES,
  FLOW_STATUSES,
  FLOW_TYPES,
  type AnalyticsFlowResponse,
  type ExplainResponse,
  type McpCheckFlowResult,
  type McpFileProblem,
  type McpFlowReportResult,
  type McpListFlowsResult,
  type McpReadFlowResult,
  type McpWriteFlowResult,
  type Problem,
} from '../../src/api/wire.js';
import pkg from '../../package.json';
import { checkInFolder, listFolder, readFlow, SLUG_PATTERN, writeFlow } from './flow-folder.js';
import { FLOW_SCHEMA } from './schema.js';
import { LOCALE_CODE } from './translations.js';

export const MCP_USAGE = `       onboarding-flows mcp --flows <folder> [--api <service URL> --key <private key>]`;

const MCP_HELP = `Usage: onboarding-flows mcp --flows <folder> [--api <service URL> --key <private key>]

Serves the Model Context Protocol over standard input and output, for an agent that writes flows: the tools
list_flows, read_flow, check_flow and write_flow on the --flows folder (write_flow writes only a flow that passes
the check, and only inside the folder), and with --api and --key (a private key of that service) explain_user and
flow_report. The flow schema and docs/flows.md are its resources. See docs/mcp.md.`;

/** The running service the service tools call. */
export interface McpServiceApi {
  url: string;
  key: string;
}

/** The largest flow text the tools take, in characters: far above any flow, far below what would strain the process. */
const MAX_YAML = 1 << 20;

type Zod = typeof Z;

/** The tools' input and output schemas, made with zod once it is loaded. */
function toolSchemas(z: Zod) {
  const problem = z.object({
    line: z.number().int(),
    column: z.number().int(),
    path: z.string(),
    message: z.string(),
    didYouMean: z.string().optional(),
  });

  const listOutput = z.object({
    flows: z.array(
      z.object({
        file: z.string(),
        slug: z.string().nullable(),
        name: z.string().nullable(),
        type: z.enum(FLOW_TYPES).nullable(),
        status: z.enum(FLOW_STATUSES).nullable(),
        targeting: z.string().nullable(),
        valid: z.boolean(),
        problems: z.array(problem),
      }),
    ),
    collections: z
      .array(
        z.object({
          id: z.string(),
          type: z.enum(COLLECTION_TYPES),
          flows: z.array(z.string()),
          coolOff: z.union([z.string(), z.literal(0)]).optional(),
          allowedComponents: z.array(z.string()).optional(),
        }),
      )
      .optional(),
    experiments: z
      .array(
        z.object({
          id: z.string(),
          status: z.enum(EXPERIMENT_STATUSES),
          goal: z.object({ event: z.string(), within: z.string().optional() }),
          variants: z.array(z.object({ id: z.string(), flow: z.string().optional(), weight: z.number() })),
          winner: z.string().optional(),
        }),
      )
      .optional(),
    limits: z
      .array(
        z.object({
          id: z.string(),
          types: z.array(z.enum(FLOW_TYPES)).optional(),
          flows: z.array(z.string()).optional(),
          max: z.number().optional(),
          per: z.string().optional(),
          minGap: z.string().optional(),
        }),
      )
      .optional(),
    problems: z.array(problem.extend({ file: z.string() })),
  });

  const readOutput = z.object({ slug: z.string(), file: z.string(), yaml: z.string() });

  const checkShape = {
    valid: z.boolean(),
    slug: z.string().nullable(),
    file: z.string().nullable(),
    problems: z.array(problem),
    warnings: z.array(problem),
  };
  const checkOutput = z.object(checkShape);
  const writeOutput = z.object({
    ...checkShape,
    written: z.boolean(),
    replaced: z.boolean(),
    commentsKept: z.number().int(),
  });

  const properties = z.record(z.string(), z.unknown());
  const explainOutput = z.looseObject({
    userId: z.string(),
    exists: z.boolean(),
    at: z.string(),
    user: z.looseObject({
      properties,
      groups: z.array(z.string()),
      recentEvents: z.array(z.looseObject({ event: z.string(), properties, createdAt: z.string() })),
    }),
    flows: z.array(
      z.looseObject({
        flowSlug: z.string(),
        name: z.string(),
        type: z.enum(FLOW_TYPES),
        shown: z.boolean(),
        heldBy: z.enum(EXPLAIN_RULES).nullable(),
        reasons: z.array(z.looseObject({ rule: z.enum(EXPLAIN_RULES), passed: z.boolean(), detail: z.string() })),
      }),
    ),
  });

  const count = z.number();
  const rate = z.number().nullable();
  const reportOutput = z.looseObject({
    from: z.string(),
    to: z.string(),
    version: z.number().nullable(),
    locale: z.string().nullable(),
    flow: z.looseObject({
      slug: z.string(),
      name: z.string(),
      type: z.enum(FLOW_TYPES),
      status: z.enum(FLOW_STATUSES).nullable(),
      version: z.number(),
      started: count,
      completed: count,
      skipped: count,
      completionRate: rate,
      medianSecondsToComplete: rate,
    }),
    locales: z.array(z.looseObject({ locale: z.string(), started: count, completed: count, skipped: count })),
    steps: z.array(
      z.looseObject({
        stepId: z.string(),
        title: z.string().nullable(),
        reached: count,
        completed: count,
        skipped: count,
        dropped: count,
        targetMissing: count,
      }),
    ),
    goal: z
      .looseObject({ event: z.string(), within: z.string(), seen: count, converted: count, rate: z.number() })
      .optional(),
    survey: z
      .looseObject({
        steps: z.array(
          z.looseObject({ kind: z.string(), stepId: z.string(), title: z.string().nullable(), responses: count }),
        ),
      })
      .optional(),
    score: z.number().nullable().optional(),
  });

  const slug = z
    .string()
    .regex(SLUG_PATTERN, 'a flow slug: a letter or digit, then up to 127 letters, digits, _ or -')
    .describe("The flow's slug");
  const yaml = z
    .string()
    .max(MAX_YAML, `at most ${MAX_YAML} characters`)
    .describe('The whole flow file, as YAML: one flow (slug, name, type, data, …), as flow.schema.json describes it');
  const file = z
    .string()
    .optional()
    .describe(
      'The file name in the flows folder (welcome.yaml; no folder). Default: the file of the flow with the same slug, else <slug>.yaml',
    );

  return { problem, listOutput, readOutput, checkOutput, writeOutput, explainOutput, reportOutput, slug, yaml, file };
}

// The tools' schemas and the wire types of src/api/wire/mcp.ts say the same; the service's answers fit theirs.
type Output<Name extends keyof ReturnType<typeof toolSchemas>> = Z.infer<ReturnType<typeof toolSchemas>[Name]>;
/** A type less its index signatures: what a loose schema (one that lets the service add fields) says of it. */
type Known<T> = T extends readonly (infer Item)[]
  ? Known<Item>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Known<T[K]> }
    : T;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const agrees: [
  Same<Output<'listOutput'>, McpListFlowsResult>,
  Same<Output<'readOutput'>, McpReadFlowResult>,
  Same<Output<'checkOutput'>, McpCheckFlowResult>,
  Same<Output<'writeOutput'>, McpWriteFlowResult>,
  ExplainResponse extends Known<Output<'explainOutput'>> ? true : false,
  McpFlowReportResult extends Known<Output<'reportOutput'>> ? true : false,
] = [true, true, true, true, true, true];
void agrees;

/** A tool's answer: its structured output, and the same as text for clients that read only text. */
const answer = <T extends object>(structured: T, text = JSON.stringify(structured, null, 2), isError = false) =>
  ({
    content: [{ type: 'text', text }],
    structuredContent: structured as Record<string, unknown>,
    ...(isError ? { isError: true } : {}),
  }) satisfies CallToolResult;

/** Problems and warnings one a line, as `onboarding-flows check` prints them. */
function problemLines(file: string | null, result: { problems: McpFileProblem[]; warnings: McpFileProblem[] }) {
  const entries = [
    ...result.problems.map((entry) => ({ ...entry, warning: false })),
    ...result.warnings.map((entry) => ({ ...entry, warning: true })),
  ].sort((a, b) => a.line - b.line || a.column - b.column);
  return entries.map(
    (entry) =>
      `${file ?? 'flow'}:${entry.line}:${entry.column}  ${entry.warning ? 'warning: ' : ''}${entry.path ? `${entry.path}: ` : ''}${entry.message}`,
  );
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** docs/flows.md, beside the built CLI (dist/flows.mjs) or the sources. */
function flowsDoc(): string {
  const path = ['../docs/flows.md', '../../docs/flows.md']
    .map((candidate) => fileURLToPath(new URL(candidate, import.meta.url)))
    .find((candidate) => existsSync(candidate));
  if (!path) throw new Error('docs/flows.md is not installed beside onboarding-flows');
  return readFileSync(path, 'utf8');
}

/** The service's JSON answer to a GET, or an Error that says what went wrong. */
async function getFromService(api: McpServiceApi, path: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${api.url}${path}`, {
      headers: { Authorization: `Bearer ${api.key}`, Accept: 'application/json' },
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    const reason = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : error;
    throw new Error(`the service at ${api.url} did not answer: ${String(reason)}`, { cause: error });
  }
  const body = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const details = (json ?? {}) as Partial<Problem>;
    throw new Error(
      `the service answered ${response.status}${details.title ? ` ${details.title}` : ''}${details.detail ? `: ${details.detail}` : ''}`,
    );
  }
  if (json === undefined) throw new Error(`the service answered ${response.status} with something that is not JSON`);
  return json;
}

/** The MCP server for the flows folder `flows`, with the service tools when `api` is given. */
export async function createFlowsMcpServer(options: { flows: string; api?: McpServiceApi }): Promise<McpServer> {
  const { flows: dir, api } = options;
  // Loaded here, not with the module: `onboarding-flows check` and the other commands do not wait for them.
  const [{ McpServer }, z] = await Promise.all([import('@modelcontextprotocol/sdk/server/mcp.js'), import('zod/v4')]);
  const { listOutput, readOutput, checkOutput, writeOutput, explainOutput, reportOutput, slug, yaml, file } =
    toolSchemas(z);
  const server = new McpServer(
    { name: 'onboarding-flows', version: pkg.version },
    {
      instructions:
        'Flows as code: each flow is one YAML file of the flows folder. Read the resources flow.schema.json and flows.md for the ' +
        'format, list_flows and read_flow to see what exists, check_flow on a text before write_flow writes it' +
        (api ? ', and explain_user and flow_report to learn what a running service does with the flows.' : '.'),
    },
  );

  server.registerResource(
    'flow-schema',
    'onboarding-flows://schema/flow.schema.json',
    {
      title: 'Flow file schema',
      description: 'The JSON Schema of one flow file (YAML): every key, type and step shape',
      mimeType: 'application/schema+json',
    },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'application/schema+json', text: JSON.stringify(FLOW_SCHEMA, null, 2) }],
    }),
  );
  server.registerResource(
    'flows-doc',
    'onboarding-flows://docs/flows.md',
    {
      title: 'Writing flows',
      description: 'docs/flows.md: the flow file, every flow type with an example, targeting, start rules, collections',
      mimeType: 'text/markdown',
    },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: flowsDoc() }] }),
  );

  server.registerTool(
    'list_flows',
    {
      title: 'List flows',
      description:
        'Every flow file of the folder (slug, name, type, status, targeting, file; a file that does not load with its problems), ' +
        'and the collections, experiments and limits when collections.yaml, experiments.yaml or limits.yaml exist.',
      inputSchema: z.strictObject({}),
      outputSchema: listOutput,
      annotations: { readOnlyHint: true },
    },
    () => {
      const result = listFolder(dir);
      return answer(result);
    },
  );

  server.registerTool(
    'read_flow',
    {
      title: 'Read a flow',
      description: "A flow file's YAML as written, comments included, by the flow's slug.",
      inputSchema: z.strictObject({ slug }),
      outputSchema: readOutput,
      annotations: { readOnlyHint: true },
    },
    ({ slug: wanted }) => {
      const result = readFlow(dir, wanted);
      return answer(result, result.yaml);
    },
  );

  server.registerTool(
    'check_flow',
    {
      title: 'Check a flow',
      description:
        "Checks a flow's YAML given as text, writing nothing: the problems and warnings onboarding-flows check would print " +
        'once it is the file it would be written to (line, column, path, message, didYouMean), against the folder too ' +
        '(a slug another file has, a collection or resource centre the change would break). valid: write_flow would write it.',
      inputSchema: z.strictObject({
        yaml,
        file,
        locales: z
          .array(z.string().regex(LOCALE_CODE, 'a locale code: fr, fr-CA, pt-BR'))
          .optional()
          .describe('Locale codes whose missing translations are warnings, as check --locales'),
      }),
      outputSchema: checkOutput,
      annotations: { readOnlyHint: true },
    },
    ({ yaml: text, file: name, locales }) => {
      const result = checkInFolder(dir, text, { file: name, locales });
      const summary = result.valid
        ? `no problems${result.warnings.length ? `, ${plural(result.warnings.length, 'warning')}` : ''}: write_flow would write ${result.file}`
        : `${plural(result.problems.length, 'problem')}: write_flow would refuse it`;
      return answer(result, [...problemLines(result.file, result), summary].join('\n'));
    },
  );

  server.registerTool(
    'write_flow',
    {
      title: 'Write a flow',
      description:
        'Writes a flow file into the flows folder only if it passes check_flow; otherwise answers the problems and writes nothing. ' +
        'Replacing a file keeps its comments where the key paths are unchanged. Never writes outside the folder.',
      inputSchema: z.strictObject({ yaml, file }),
      outputSchema: writeOutput,
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    ({ yaml: text, file: name }) => {
      const result = writeFlow(dir, text, { file: name });
      if (!result.written)
        return answer(
          result,
          [...problemLines(result.file, result), `${plural(result.problems.length, 'problem')}: nothing written`].join(
            '\n',
          ),
          true,
        );
      const comments = result.commentsKept ? `, ${plural(result.commentsKept, 'comment')} of the old file kept` : '';
      return answer(result, `${result.replaced ? 'replaced' : 'wrote'} ${result.file}${comments}`);
    },
  );

  if (!api) return server;

  server.registerTool(
    'explain_user',
    {
      title: 'Explain a user',
      description:
        "Why each flow is or is not shown to a user now, from the running service: each rule's outcome in the order it " +
        'applies them (status, schedule, targeting, state, collection, limit, experiment, startWhen), and what it read of the user.',
      inputSchema: z.strictObject({
        userId: z.string().min(1).max(256).describe("The user's ID, as the application identifies them"),
        flowSlug: slug.optional().describe('Only this flow'),
        groupId: z
          .string()
          .min(1)
          .max(256)
          .optional()
          .describe('Explain the read a page makes with this group: rules that read `group` see it'),
      }),
      outputSchema: explainOutput,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ userId, flowSlug, groupId }) => {
      const query = new URLSearchParams();
      if (flowSlug !== undefined) query.set('flowSlug', flowSlug);
      if (groupId !== undefined) query.set('groupId', groupId);
      const search = query.size ? `?${query.toString()}` : '';
      const result = (await getFromService(
        api,
        `/v1/users/${encodeURIComponent(userId)}/explain${search}`,
      )) as ExplainResponse;
      return answer(result);
    },
  );

  server.registerTool(
    'flow_report',
    {
      title: 'Report a flow',
      description:
        "A flow's analytics from the running service: counts of the users who started it in the window, its steps' funnel, " +
        'its goal, its locales, and for a survey its answers and score.',
      inputSchema: z.strictObject({
        slug,
        from: z.string().optional().describe('ISO 8601 date or time, UTC; default 30 days before `to`'),
        to: z.string().optional().describe('ISO 8601 date or time, UTC (exclusive); default now'),
        version: z.number().int().positive().optional().describe('Only users who started on this version'),
        locale: z.string().max(64).optional().describe('Only users who first started in this locale'),
      }),
      outputSchema: reportOutput,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ slug: wanted, ...window }) => {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(window)) if (value !== undefined) query.set(key, String(value));
      const search = query.size ? `?${query.toString()}` : '';
      const { days: _days, ...report } = (await getFromService(
        api,
        `/v1/analytics/flows/${encodeURIComponent(wanted)}${search}`,
      )) as AnalyticsFlowResponse;
      const nps = report.survey?.steps.find((step) => step.kind === 'nps');
      const result: McpFlowReportResult = { ...report, ...(nps ? { score: nps.score } : {}) };
      return answer(result);
    },
  );
  return server;
}

/** `onboarding-flows mcp …`: serves until standard input ends; 2 on bad usage (said on standard error). */
export async function serveMcp(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        flows: { type: 'string' },
        api: { type: 'string' },
        key: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${MCP_HELP}`);
    return 2;
  }
  if (values.help) {
    console.error(MCP_HELP);
    return 0;
  }
  const usage = (reason: string) => {
    console.error(`${reason}\n\n${MCP_HELP}`);
    return 2;
  };
  if (!values.flows) return usage('--flows <folder> is required');
  if (!existsSync(values.flows) || !statSync(values.flows).isDirectory())
    return usage(`${values.flows} is not a folder: pass the flows folder with --flows`);
  if ((values.api === undefined) !== (values.key === undefined))
    return usage('--api and --key go together: the service URL and one of its private keys');
  let api: McpServiceApi | undefined;
  if (values.api !== undefined && values.key !== undefined) {
    let url: URL;
    try {
      url = new URL(values.api);
    } catch {
      return usage(`--api ${values.api} is not a URL: write it as http://localhost:3100`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return usage('--api takes an http: or https: URL');
    if (!values.key) return usage('--key is empty');
    api = { url: url.href.replace(/\/+$/, ''), key: values.key };
  }
  const server = await createFlowsMcpServer({ flows: values.flows, ...(api ? { api } : {}) });
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  // The client ends standard input to stop the server.
  process.stdin.once('end', () => void server.close());
  await server.connect(transport);
  await closed;
  return 0;
}
