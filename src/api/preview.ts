// The live preview's wire: the body of /preview/flows.json and of its reload events, and the messages its page and frames exchange.
import type { FlowData, FlowStatus, FlowType } from './wire.js';

/** One flow of the folder, as the preview draws it (drafts and archived flows too). */
export interface PreviewFlow {
  /** The flow file's name within the folder. */
  file: string;
  slug: string;
  name: string;
  type: FlowType;
  status: FlowStatus;
  version: number;
  targetingLogic: string;
  data: FlowData;
}

/** One problem of a refused flow file. */
export interface PreviewProblem {
  /** The path of the value at fault; '' for the file as a whole. */
  path: string;
  line: number;
  column: number;
  message: string;
}

/** GET /preview/flows.json, and the data of each `reload` event on /preview/events. */
export interface PreviewFlows {
  flows: PreviewFlow[];
  /** The files the service refuses, each with what is wrong in it. */
  errors: { file: string; problems: PreviewProblem[] }[];
}

/** The page to one of its frames: a new version of the frame's flow, to draw from the start. */
export interface PreviewFlowMessage {
  previewFlow: PreviewFlow;
}

/** A frame to the page: the height of its content, so the page sizes the frame to it. */
export interface PreviewHeightMessage {
  previewHeight: number;
}
