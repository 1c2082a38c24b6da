// `onboarding-flows explain`: asks a running service why each flow is or is not shown to one user, and prints the answer as a table or as JSON.
import { parseArgs } from 'node:util';
import { failedFirst, flowProgress, heldBackFirst, readSides } from '../../src/api/explain-reading.js';
import type { ExplainReason, ExplainResponse, Problem } from '../../src/api/wire.js';

export const EXPLAIN_USAGE =
  'onboarding-flows explain <userId> --api <url> --key <private key> [--flow <slug>] [--group <groupId>] [--json]';

export const EXPLAIN_HELP = `explain: asks the service at --api (GET /v1/users/{userId}/explain, with a private key) why each
flow is or is not shown to the user now, and prints one row per flow, those not shown first: its slug, whether it is
shown, the user's state in it (not started, started, completed or dismissed), the rule that held it back and that
rule's sentence. Then each flow not shown, with every rule the service applied, the failed ones first, and under a
failed rule what it read (a targeting's clauses with their values). --flow <slug> explains that flow alone; --group
<groupId> explains the read the page makes with that group; --json prints the service's answer as JSON instead.
Exits 0 with an answer, 1 when the service refuses (its problem's detail on standard error) or cannot be reached, 2
on bad usage.`;

/** `explain`'s arguments, after the command's name. */
export async function explain(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        api: { type: 'string' },
        key: { type: 'string' },
        flow: { type: 'string' },
        group: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    return usage(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(`Usage: ${EXPLAIN_USAGE}\n\n${EXPLAIN_HELP}`);
    return 0;
  }
  const [userId] = positionals;
  if (positionals.length !== 1 || !userId || !values.api || !values.key || values.flow === '' || values.group === '')
    return usage();
  const url = explainUrl(values.api, userId, { flowSlug: values.flow, groupId: values.group });
  if (!url) return usage(`--api ${values.api} is not an http or https address`);

  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { headers: { Authorization: `Bearer ${values.key}`, Accept: 'application/json' } });
    text = await response.text();
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    console.error(`${values.api} could not be reached${cause}`);
    return 1;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const problem = body as Partial<Problem> | undefined;
    console.error(problem?.detail ?? problem?.title ?? `The service answered ${response.status}.`);
    return 1;
  }
  if (!isExplainResponse(body)) {
    console.error(`${values.api} answered something other than an explanation: is it this project's service?`);
    return 1;
  }
  console.log(values.json ? JSON.stringify(body, null, 2) : formatExplanation(body).join('\n'));
  return 0;
}

function usage(reason?: string): number {
  console.error(`${reason ? `${reason}\n\n` : ''}Usage: ${EXPLAIN_USAGE}\n\n${EXPLAIN_HELP}`);
  return 2;
}

/** The endpoint's address under --api (which may end with a path of its own), or undefined for an address that is not http(s). */
export function explainUrl(
  api: string,
  userId: string,
  query: { flowSlug?: string; groupId?: string } = {},
): URL | undefined {
  let base: URL;
  try {
    base = new URL(api.endsWith('/') ? api : `${api}/`);
  } catch {
    return undefined;
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') return undefined;
  const url = new URL(`v1/users/${encodeURIComponent(userId)}/explain`, base);
  for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value);
  return url;
}

const isExplainResponse = (body: unknown): body is ExplainResponse =>
  typeof body === 'object' && body !== null && Array.isArray((body as ExplainResponse).flows);

/** Any JSON value as short text. */
const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** Rows of cells as columns padded to their widest cell; the last column is not padded. */
function columns(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  );
}

/** What a failed reason read besides its sentence, as indented lines: a targeting's clauses, or its other fields. */
function readings(reason: ExplainReason): string[] {
  if (reason.rule === 'targeting')
    return reason.clauses.flatMap((clause) => [
      `${clause.expression}  is ${JSON.stringify(clause.value)}${clause.error ? ` (${clause.error})` : ''}`,
      ...readSides(clause).map((operand) => `  ${operand.expression} = ${JSON.stringify(operand.value)}`),
    ]);
  const fields = Object.entries(reason).filter(
    ([name, value]) => !['rule', 'passed', 'detail'].includes(name) && value !== null && value !== undefined,
  );
  return fields.length ? [fields.map(([name, value]) => `${name}: ${text(value)}`).join(', ')] : [];
}

/** The table: a heading line, one row per flow (not shown first), then each flow not shown with its rules, failed first. */
export function formatExplanation(answer: ExplainResponse): string[] {
  const flows = heldBackFirst(answer.flows);
  const shown = flows.filter((flow) => flow.shown).length;
  const lines = [
    `${answer.userId}${answer.exists ? '' : ' (unknown to the service: explained as a new user)'} at ${answer.at}: ${shown} of ${flows.length} flow${flows.length === 1 ? '' : 's'} shown`,
  ];
  if (!flows.length) return lines;
  lines.push(
    '',
    ...columns([
      ['FLOW', 'SHOWN', 'STATE', 'HELD BY', 'DETAIL'],
      ...flows.map((flow) => {
        const held = flow.reasons.find((reason) => !reason.passed);
        return [flow.flowSlug, flow.shown ? 'yes' : 'no', flowProgress(flow), held?.rule ?? '-', held?.detail ?? '-'];
      }),
    ]),
  );
  for (const flow of flows.filter((f) => !f.shown)) {
    lines.push('', `${flow.flowSlug} (${flow.name}): not shown`);
    const reasons = failedFirst(flow.reasons);
    const width = Math.max(...reasons.map((reason) => reason.rule.length));
    for (const reason of reasons) {
      lines.push(`  ${reason.passed ? 'passed' : 'FAILED'}  ${reason.rule.padEnd(width)}  ${reason.detail}`);
      if (!reason.passed) for (const line of readings(reason)) lines.push(`${' '.repeat(width + 12)}${line}`);
    }
  }
  return lines;
}
