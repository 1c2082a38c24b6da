// The flow tools' MCP server (`onboarding-flows mcp`), on the wire: each tool's structured output (see docs/mcp.md).
import type { CollectionDefinition } from './collections.js';
import type { AnalyticsFlowResponse } from './analytics.js';
import type { FlowStatus, FlowType } from './common.js';
import type { ExperimentDefinition } from './experiments.js';
import type { LimitDefinition } from './explain.js';

/** One problem or warning in a file, as `onboarding-flows check` prints it. */
export interface McpFileProblem {
  /** 1-based line and column in the file. */
  line: number;
  column: number;
  /** The path of the value at fault (`data.steps[0].title`); '' for the file as a whole. */
  path: string;
  message: string;
  /** The key or name the message suggests instead ("did you mean"), when it has one. */
  didYouMean?: string;
}

/** One flow file of the folder. A file that does not load has `valid: false`, its problems, and what could be read of it. */
export interface McpFlowListing {
  /** The file's name in the flows folder. */
  file: string;
  slug: string | null;
  name: string | null;
  type: FlowType | null;
  status: FlowStatus | null;
  /** The flow's `targetingLogic` (CEL); '' for everyone. */
  targeting: string | null;
  valid: boolean;
  problems: McpFileProblem[];
}

/** A problem of a file beside the flows (collections.yaml, experiments.yaml, limits.yaml), with its file. */
export interface McpSideFileProblem extends McpFileProblem {
  file: string;
}

/** `list_flows`: every flow file, and the collections, experiments and limits when their files exist. */
export interface McpListFlowsResult {
  flows: McpFlowListing[];
  /** Present when collections.yaml exists and loads. */
  collections?: CollectionDefinition[];
  /** Present when experiments.yaml exists and loads. */
  experiments?: ExperimentDefinition[];
  /** Present when limits.yaml exists and loads. */
  limits?: LimitDefinition[];
  /** What keeps a file beside the flows from loading. */
  problems: McpSideFileProblem[];
}

/** `read_flow`: one flow file as written, comments included. */
export interface McpReadFlowResult {
  slug: string;
  file: string;
  yaml: string;
}

/** `check_flow`: the check of a flow's text, as `onboarding-flows check` would report the file it would be written to. */
export interface McpCheckFlowResult {
  /** True when the flow has no problem: `write_flow` would write it. Warnings never fail it. */
  valid: boolean;
  /** The flow's slug, when the text names one. */
  slug: string | null;
  /** The file in the flows folder it would be written to. */
  file: string | null;
  problems: McpFileProblem[];
  warnings: McpFileProblem[];
}

/** `write_flow`: what was written (`written: false`, with the problems, when nothing was). */
export interface McpWriteFlowResult extends McpCheckFlowResult {
  written: boolean;
  /** True when the file existed and was replaced. */
  replaced: boolean;
  /** How many comments of the replaced file were carried over to key paths the new text left without one. */
  commentsKept: number;
}

/** `flow_report`: the flow's report of `GET /v1/analytics/flows/{slug}` less its days, with a survey's score. */
export interface McpFlowReportResult extends Omit<AnalyticsFlowResponse, 'days'> {
  /** SURVEY flows with an NPS step: the first such step's score (-100 to 100), as the report gives it; null when unanswered. */
  score?: number | null;
}
