// The flow catalog: syncs the YAML folder into versioned flow rows and holds each version's compiled CEL.
import { createHash } from 'node:crypto';
import type { Flow, FlowData, ResourceCenterBlock, StepDefinition } from '../../src/api/wire.js';
import type { Database } from '../storage/store.js';
import {
  compileExpression,
  eventCallsOf,
  eventNamesOf,
  nowChangesOf,
  readsGroup,
  readsOnlyGroup,
  type CelFlow,
  type NowInstant,
  type Predicate,
} from '../targeting/cel.js';
import { eventNameSets, type EventNameSet } from '../targeting/event-names.js';
import { eventWindowSets, type EventScope, type EventWindowSet } from '../targeting/event-window-calls.js';
import { readCollections, type Collection } from './collections.js';
import { readExperiments, type Experiment } from './experiments.js';
import { readLimits, type Limit } from './limits.js';
import { readFlowDirectory, type FlowDefinition, type FlowFileError } from './definitions.js';
import { codeSnippetFor, flowJson, type FlowJson } from './flow-json.js';
import { applyTranslations, localeChain } from './translations.js';

export interface CompiledStep {
  definition: StepDefinition;
  completion: Predicate | null;
  start: Predicate | null;
  visibility: Predicate | null;
}

/** A resource centre's block shown on a condition: its place in `data.blocks`, and its compiled `visibleWhen`. */
export interface CompiledBlock {
  index: number;
  visible: Predicate;
}

export interface CatalogFlow {
  /** The flow as user-less endpoints serve it: a resource centre's blocks with a `visibleWhen` are not in its `data`. */
  flow: Flow;
  definition: FlowDefinition;
  targeting: Predicate;
  completion: Predicate | null;
  steps: CompiledStep[];
  /** A resource centre's blocks that have a `visibleWhen`, in order (none for other types). */
  blocks: CompiledBlock[];
  /** The content hash of each set of visible blocks seen so far (see contentHashFor). */
  blockHashes: Map<string, string>;
  /**
   * Every condition besides targeting, in a fixed order: each step's completion, visibility and start, the flow's
   * completion, then each block's `visibleWhen` (an untouched flow's answer differs by which blocks it carries).
   */
  conditions: Predicate[];
  /**
   * The first 16 hex digits of the SHA-256 of the file's content: with `version`, what a client's cache is keyed by.
   * A restore from an older backup winds the version numbers back, so a number can come again with other content;
   * the hash does not.
   */
  contentHash: string;
  /** This version's parts of a state answer, as JSON text made once (see renderFlowState). */
  json: FlowJson;
  /**
   * The same in each locale read so far, by the translations laid over the source (`fr+fr-CA`): made once per version
   * and locale, like `json`. Bounded by the translations the file holds.
   */
  localized: Map<string, LocalizedContent>;
}

/** A flow's content in one locale: its `data` with the translations laid over it, and its parts of a state answer. */
export interface LocalizedContent {
  data: FlowData;
  json: FlowJson;
}

/** The flow's content for a read in `locale` (a canonical code, or none): the source, or the translations over it, field by field. */
export function localizedContent(flow: CatalogFlow, locale: string | undefined): LocalizedContent {
  const chain = localeChain(locale, flow.definition.translations);
  if (!chain.length) return { data: flow.definition.data, json: flow.json };
  const key = chain.join('+');
  let content = flow.localized.get(key);
  if (!content) {
    const data = applyTranslations(
      flow.definition.data,
      chain.map((code) => flow.definition.translations![code]),
    );
    content = {
      data,
      json: flowJson({ ...flow.definition, data }, flow.flow.version, flow.contentHash, flow.flow.name, flow.flow.type),
    };
    flow.localized.set(key, content);
  }
  return content;
}

/** The blocks of a resource centre's `data` for which `keep` holds (other flows' data as it is). */
export function withBlocks(data: FlowData, keep: (block: ResourceCenterBlock, index: number) => boolean): FlowData {
  const blocks = data.blocks as ResourceCenterBlock[] | undefined;
  if (!Array.isArray(blocks)) return data;
  return { ...data, blocks: blocks.filter(keep) };
}

/** Variants of a flow's JSON kept per version and locale, one per set of visible blocks; past this, made on each read. */
const BLOCK_VARIANTS = 32;

/**
 * Which of the flow's conditional blocks the user sees, one character each ('1' shown); '' when it has none. A block
 * whose `visibleWhen` is false is not sent at all, so the content differs by it.
 */
export function visibleBlocksKey(flow: CatalogFlow, cel: Parameters<Predicate>[0]): string {
  let key = '';
  for (const block of flow.blocks) key += block.visible(cel) ? '1' : '0';
  return key;
}

/**
 * The content hash one user's answer carries: the file's, or, for a centre whose blocks are shown on conditions, one
 * per set of visible blocks, so a client that holds one set is sent the content again once the user's set changes.
 */
export function contentHashFor(flow: CatalogFlow, cel: Parameters<Predicate>[0]): string {
  if (!flow.blocks.length) return flow.contentHash;
  const key = visibleBlocksKey(flow, cel);
  let hash = flow.blockHashes.get(key);
  if (!hash) {
    hash = createHash('sha256').update(`${flow.contentHash} ${key}`).digest('hex').slice(0, 16);
    if (flow.blockHashes.size < BLOCK_VARIANTS) flow.blockHashes.set(key, hash);
  }
  return hash;
}

/** The content's `data` as one user gets it: without the blocks whose `visibleWhen` is false for them. */
export function visibleData(flow: CatalogFlow, data: FlowData, cel: Parameters<Predicate>[0]): FlowData {
  if (!flow.blocks.length) return data;
  const key = visibleBlocksKey(flow, cel);
  const hidden = new Set(flow.blocks.filter((_, at) => key[at] === '0').map((block) => block.index));
  return withBlocks(data, (_, index) => !hidden.has(index));
}

/**
 * The parts of a state answer for one user's read of `content` (the flow's in a locale): the same `content.json`
 * unless blocks are shown on conditions, then one made once per version, locale and set of visible blocks.
 */
export function visibleJson(flow: CatalogFlow, content: LocalizedContent, cel: Parameters<Predicate>[0]): FlowJson {
  if (!flow.blocks.length) return content.json;
  const key = visibleBlocksKey(flow, cel);
  const variants = (content.json.byBlocks ??= new Map<string, FlowJson>());
  let json = variants.get(key);
  if (!json) {
    const data = visibleData(flow, content.data, cel);
    const hash = contentHashFor(flow, cel);
    json = flowJson({ ...flow.definition, data }, flow.flow.version, hash, flow.flow.name, flow.flow.type);
    if (variants.size < BLOCK_VARIANTS) variants.set(key, json);
  }
  return json;
}

/**
 * One loaded set of flows, swapped whole on every reload, with what each request would otherwise
 * recompute: flows by slug, and the CEL `flows` map of a user who has touched nothing.
 */
export interface CatalogVersion {
  flows: CatalogFlow[];
  bySlug: Map<string, CatalogFlow>;
  celFlows: ReadonlyMap<string, CelFlow>;
  /** Whether any expression names `flows`: when none does, a read need not build the user's own `flows` map. */
  celReadsFlows: boolean;
  /** The collections of collections.yaml, in file order (their flows may have been removed since). */
  collections: Collection[];
  /** The experiments of experiments.yaml, in file order, each with the flows of this version it names. */
  experiments: CatalogExperiment[];
  /** The experiments each flow is a variant of, by their place in `experiments` (flows in none are not here). */
  experimentsOfFlow: Map<string, number[]>;
  /** Whether an experiment runs: a read then loads the user's exposures, and records new ones. */
  readsExposures: boolean;
  /** The limits of limits.yaml, in file order, each with its set of flows in this version. */
  limits: CatalogLimit[];
  /** The limits that can hold each flow back, by their place in `limits` (a flow with `ignoreLimits`, or in no set, is not here). */
  limitsOfFlow: Map<string, number[]>;
  /** Whether a limit is in force: a read then loads the user's first starts. */
  readsStarts: boolean;
  /** The moments at which a flow's schedule opens or closes (epoch milliseconds), each once. */
  scheduleMoments: number[];
  /** The events over time (eventCount, lastEventAt) the expressions ask about, per scope; undefined when none do, and a read loads none. */
  eventWindows: Record<EventScope, EventWindowSet> | undefined;
  /** The names of `user.events` and `group.events` the expressions read, per scope: a read loads only their counts. */
  eventNames: Record<EventScope, EventNameSet>;
  /**
   * The instants at which the expressions' values can change as the clock moves (`now` compared with a time), each
   * once; null when one reads `now` in a way whose changes cannot be worked out, so no answer is kept (state/answer-memo.ts).
   */
  nowInstants: NowInstant[] | null;
  /**
   * The expressions that read `group`, each once: an answer read with a group depends on the group only through
   * their outcomes, so it can be kept for every group with the same ones. Null when one of them also compares `now`
   * with a time, which may then change at another instant for each group.
   */
  groupConditions: GroupConditions | null;
}

/** The catalog's expressions that read `group` (CatalogVersion.groupConditions). */
export interface GroupConditions {
  predicates: Predicate[];
  /** Whether none reads anything but the group: their outcomes then follow from the group's entity alone. */
  groupOnly: boolean;
}

export interface Logger {
  warn(message: string): void;
  info(message: string): void;
}

interface FlowRow {
  id: number;
  slug: string;
  version: number;
  content_hash: string;
  code_snippet: string;
  created_at: Date;
  modified_at: Date;
}

export class FlowCatalog {
  private flows = new Map<string, CatalogFlow>();
  private version: CatalogVersion = versionOf([], []);
  /** The last collections file that passed its checks (none before one does). */
  private collections: Collection[] = [];
  /** The last experiments file that passed its checks (none before one does). */
  private experiments: Experiment[] = [];
  /** The last limits file that passed its checks (none before one does). */
  private limits: Limit[] = [];
  /** True once the folder has been read and synced at least once. */
  loaded = false;
  private lastErrors: FlowFileError[] = [];
  private readonly listeners = new Set<() => void>();
  /** Flow version ids whose runtime error has been logged. */
  private readonly warned = new Set<number>();

  constructor(
    private readonly db: Database,
    private readonly dir: string,
    private readonly log: Logger,
  ) {}

  /** Reads the folder, records a new version for every changed file, and swaps in the new set. */
  async load(): Promise<FlowFileError[]> {
    const { flows, errors, warnings } = readFlowDirectory(this.dir);
    const previous = [...this.flows.values()];
    const next = new Map<string, CatalogFlow>();
    for (const definition of flows) {
      let row: FlowRow;
      try {
        row = await this.sync(definition);
      } catch (error) {
        // One file the database will not take must not stop the others from loading.
        const message = `could not be stored: ${error instanceof Error ? error.message : String(error)}`;
        errors.push({ file: definition.file, message, problems: [{ path: '', line: 1, column: 1, message }] });
        continue;
      }
      // An unchanged version keeps its compiled expressions.
      const kept = previous.find((entry) => entry.flow.id === row.id && entry.definition.file === definition.file);
      next.set(definition.slug, kept ?? compile(definition, row, (message) => this.warnOnce(row.id, message)));
      // Said once per version loaded, as the file is read; the flow loads all the same.
      const notes = kept ? undefined : warnings.find((warning) => warning.file === definition.file);
      if (notes) this.log.warn(`flow file ${notes.file} loaded with warnings: ${notes.message}`);
    }
    for (const error of errors) this.log.warn(`flow file ${error.file} refused: ${error.message}`);
    // A file that loaded before and is broken now keeps serving its last good version.
    for (const error of errors) {
      const lastGood = previous.find((entry) => entry.definition.file === error.file);
      if (lastGood && !next.has(lastGood.flow.slug)) {
        next.set(lastGood.flow.slug, lastGood);
        this.log.warn(`flow ${lastGood.flow.slug} keeps version ${lastGood.flow.version} until ${error.file} is fixed`);
      }
    }
    // A bad collections file is refused alone: the flows load, and the last good collections stay in force.
    const read = readCollections(this.dir, new Set(next.keys()));
    if (read.error) {
      errors.push(read.error);
      this.log.warn(
        `collections file ${read.error.file} refused: ${read.error.message}; the last good collections stay until it is fixed`,
      );
    } else this.collections = read.collections;
    // So is a bad experiments file: the last good experiments stay in force.
    const experiments = readExperiments(this.dir, new Set(next.keys()));
    if (experiments.error) {
      errors.push(experiments.error);
      this.log.warn(
        `experiments file ${experiments.error.file} refused: ${experiments.error.message}; the last good experiments stay until it is fixed`,
      );
    } else this.experiments = experiments.experiments;
    // And a bad limits file: the last good limits stay in force.
    const limits = readLimits(this.dir, new Set(next.keys()));
    if (limits.error) {
      errors.push(limits.error);
      this.log.warn(
        `limits file ${limits.error.file} refused: ${limits.error.message}; the last good limits stay until it is fixed`,
      );
    } else this.limits = limits.limits;
    this.flows = new Map(
      [...next.entries()].sort(([, a], [, b]) => a.definition.file.localeCompare(b.definition.file)),
    );
    this.version = versionOf([...this.flows.values()], this.collections, this.experiments, this.limits);
    this.loaded = true;
    this.lastErrors = errors;
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // One failing listener (the preview's, say) must not stop the others or the reload.
      }
    }
    return errors;
  }

  /** The files the last load refused, with their problems. */
  errors(): FlowFileError[] {
    return this.lastErrors;
  }

  /** Calls `listener` after every load; returns the function that stops it. */
  onLoad(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private warnOnce(versionId: number, message: string): void {
    if (this.warned.has(versionId)) return;
    this.warned.add(versionId);
    this.log.warn(message);
  }

  list(): CatalogFlow[] {
    return this.version.flows;
  }

  /** The flows as loaded now; a reload replaces the whole value, so one request sees one version throughout. */
  current(): CatalogVersion {
    return this.version;
  }

  get(slug: string): CatalogFlow | undefined {
    return this.flows.get(slug);
  }

  private async sync(definition: FlowDefinition): Promise<FlowRow> {
    const hash = contentHash(definition);
    return this.db.transaction(async (tx) => {
      // Several instances loading the same folder at once record one new version, not one each.
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('onboarding:flow:' || $1))", [definition.slug]);
      const [latest] = await tx.query<FlowRow>(
        'SELECT id, slug, version, content_hash, code_snippet, created_at, modified_at FROM flows WHERE slug = $1 ORDER BY version DESC LIMIT 1',
        [definition.slug],
      );
      if (latest?.content_hash === hash) return latest;
      const [first] = await tx.query<FlowRow>(
        'SELECT code_snippet, created_at FROM flows WHERE slug = $1 ORDER BY version ASC LIMIT 1',
        [definition.slug],
      );
      const [inserted] = await tx.query<FlowRow>(
        `INSERT INTO flows (slug, version, name, type, status, targeting_logic, data, content_hash, code_snippet, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, COALESCE($10::timestamptz, now()))
         RETURNING id, slug, version, content_hash, code_snippet, created_at, modified_at`,
        [
          definition.slug,
          (latest?.version ?? 0) + 1,
          definition.name,
          definition.type,
          definition.status,
          definition.targetingLogic,
          JSON.stringify(definition.data),
          hash,
          first?.code_snippet ?? codeSnippetFor(definition.slug, definition.type),
          first?.created_at ?? null,
        ],
      );
      if (latest) this.log.info(`flow ${definition.slug} changed: version ${inserted.version}`);
      return inserted;
    });
  }
}

function versionOf(
  flows: CatalogFlow[],
  collections: Collection[],
  experiments: Experiment[] = [],
  limits: Limit[] = [],
): CatalogVersion {
  const celFlows = new Map<string, CelFlow>();
  for (const flow of flows) {
    const steps: Record<string, { status: string; data: unknown }> = {};
    for (const step of flow.steps) steps[step.definition.id] = { status: 'NOT_STARTED_STEP', data: null };
    celFlows.set(flow.flow.slug, { status: 'NOT_STARTED_FLOW', steps });
  }
  return {
    flows,
    bySlug: new Map(flows.map((flow) => [flow.flow.slug, flow])),
    celFlows,
    celReadsFlows: flows.some(readsFlows),
    collections,
    experiments: experimentsIn(experiments, flows),
    experimentsOfFlow: experimentsOfFlow(experiments),
    readsExposures: experiments.some((experiment) => experiment.status === 'running'),
    ...limitsIn(limits, flows),
    scheduleMoments: [
      ...new Set(flows.flatMap(({ definition: { schedule } }) => (schedule ? [schedule.startMs, schedule.endMs] : []))),
    ].filter(Number.isFinite),
    eventWindows: eventWindowSets(flows.flatMap((flow) => expressionsOf(flow).flatMap(eventCallsOf))),
    eventNames: eventNameSets(flows.flatMap((flow) => expressionsOf(flow).flatMap(eventNamesOf))),
    nowInstants: nowInstantsOf(flows.flatMap(expressionsOf)),
    groupConditions: groupConditionsOf(flows),
  };
}

/** An experiment with the flows of one catalog version its variants name, laid out for the per-read pass (state/experiments.ts). */
export interface CatalogExperiment extends Experiment {
  /** Each variant's flow in this version, in order (a flow whose file is gone: undefined). */
  variantFlows: Array<CatalogFlow | undefined>;
  /** The variants' flows that exist: a user eligible for one of them is in the audience. */
  audience: CatalogFlow[];
  /** Each variant's flow slug by variant id. */
  flowOf: Map<string, string | undefined>;
  /** The experiment's id as JSON text. */
  idJson: string;
}

/** A limit with the flows of one catalog version in its set (`ignoreLimits` ones too: they count, though never held). */
export interface CatalogLimit extends Limit {
  members: ReadonlySet<string>;
}

function limitsIn(
  limits: Limit[],
  flows: CatalogFlow[],
): Pick<CatalogVersion, 'limits' | 'limitsOfFlow' | 'readsStarts'> {
  const limitsOfFlow = new Map<string, number[]>();
  const catalogLimits = limits.map((limit, index): CatalogLimit => {
    const members = new Set(
      flows
        .filter((flow) => (limit.types ? limit.types.includes(flow.flow.type) : limit.flows!.includes(flow.flow.slug)))
        .map((flow) => flow.flow.slug),
    );
    for (const flow of flows)
      if (members.has(flow.flow.slug) && !flow.definition.ignoreLimits)
        limitsOfFlow.set(flow.flow.slug, [...(limitsOfFlow.get(flow.flow.slug) ?? []), index]);
    return { ...limit, members };
  });
  return { limits: catalogLimits, limitsOfFlow, readsStarts: catalogLimits.length > 0 };
}

function experimentsOfFlow(experiments: Experiment[]): Map<string, number[]> {
  const of = new Map<string, number[]>();
  experiments.forEach((experiment, index) => {
    for (const slug of experiment.flows) of.set(slug, [...(of.get(slug) ?? []), index]);
  });
  return of;
}

const experimentsIn = (experiments: Experiment[], flows: CatalogFlow[]): CatalogExperiment[] =>
  experiments.map((experiment) => {
    const variantFlows = experiment.variants.map((variant) => flows.find((flow) => flow.flow.slug === variant.flow));
    return {
      ...experiment,
      variantFlows,
      audience: variantFlows.filter((flow) => flow !== undefined),
      flowOf: new Map(experiment.variants.map((variant) => [variant.id, variant.flow])),
      idJson: JSON.stringify(experiment.id),
    };
  });

function groupConditionsOf(flows: CatalogFlow[]): GroupConditions | null {
  const bySource = new Map<string, Predicate>();
  let groupOnly = true;
  for (const [source, predicate] of flows.flatMap(compiledExpressionsOf)) {
    if (!predicate || !readsGroup(source)) continue;
    if (nowChangesOf(source)?.length !== 0) return null;
    bySource.set(source!.trim(), bySource.get(source!.trim()) ?? predicate);
    groupOnly &&= readsOnlyGroup(source);
  }
  return { predicates: [...bySource.values()], groupOnly };
}

function nowInstantsOf(sources: Array<string | undefined>): NowInstant[] | null {
  const instants = new Set<NowInstant>();
  for (const source of sources) {
    const found = nowChangesOf(source);
    if (found === null) return null;
    for (const instant of found) instants.add(instant);
  }
  return [...instants];
}

/** Every CEL expression of a flow, set or not: a resource centre's `visibleWhen`s among them. */
function expressionsOf(flow: CatalogFlow): Array<string | undefined> {
  return compiledExpressionsOf(flow).map(([source]) => source);
}

/** Every CEL expression of a flow with what it compiled to (null for none): targeting, criteria, blocks' `visibleWhen`. */
function compiledExpressionsOf(flow: CatalogFlow): Array<[string | undefined, Predicate | null]> {
  const { definition } = flow;
  const blocks = blocksOf(definition.data);
  return [
    [definition.targetingLogic, flow.targeting],
    [definition.data.completionCriteria, flow.completion],
    ...flow.steps.flatMap((step): Array<[string | undefined, Predicate | null]> => [
      [step.definition.completionCriteria, step.completion],
      [step.definition.startCriteria, step.start],
      [step.definition.visibilityCriteria, step.visibility],
    ]),
    ...flow.blocks.map((block): [string | undefined, Predicate] => [blocks[block.index].visibleWhen, block.visible]),
  ];
}

/** A resource centre's blocks; none for other types. */
function blocksOf(data: FlowData): ResourceCenterBlock[] {
  return Array.isArray(data.blocks) ? (data.blocks as ResourceCenterBlock[]) : [];
}

/** Whether one of the flow's expressions names the variable `flows` (a word search: a string that holds the word counts too, which is only slower). */
function readsFlows(flow: CatalogFlow): boolean {
  return expressionsOf(flow).some((source) => source !== undefined && /\bflows\b/.test(source));
}

/** The content hash as the state answer carries it. */
const wireHash = (hash: string) => hash.slice(0, 16);

function contentHash(definition: FlowDefinition): string {
  const { file: _file, ...content } = definition;
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

function compile(definition: FlowDefinition, row: FlowRow, warn: (message: string) => void): CatalogFlow {
  // A runtime error (a missing key, say) counts as false and is logged once per flow version.
  const onRuntimeError = (error: unknown) => {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    warn(`flow ${definition.slug} v${row.version}: an expression failed at run time and counts as false: ${reason}`);
  };
  const optional = (source: string | undefined) => (source?.trim() ? compileExpression(source, onRuntimeError) : null);
  const steps = definition.data.steps.map((step) => ({
    definition: step,
    completion: optional(step.completionCriteria),
    start: optional(step.startCriteria),
    visibility: optional(step.visibilityCriteria),
  }));
  const completion = optional(definition.data.completionCriteria);
  const blocks = blocksOf(definition.data).flatMap((block, index): CompiledBlock[] => {
    const visible = optional(block.visibleWhen);
    return visible ? [{ index, visible }] : [];
  });
  const conditions = [
    ...steps.flatMap((step) => [step.completion, step.visibility, step.start]),
    completion,
    ...blocks.map((block) => block.visible),
  ].filter((condition) => condition !== null);
  return {
    flow: {
      id: row.id,
      name: definition.name,
      // Served where there is no user to evaluate `visibleWhen` for: such blocks are left out (docs/protocol.md).
      data: JSON.stringify(
        blocks.length ? withBlocks(definition.data, (block) => !block.visibleWhen?.trim()) : definition.data,
      ),
      targetingLogic: definition.targetingLogic,
      type: definition.type,
      slug: definition.slug,
      createdAt: new Date(row.created_at).toISOString(),
      modifiedAt: new Date(row.modified_at).toISOString(),
      version: row.version,
      status: definition.status,
      codeSnippet: row.code_snippet,
    },
    definition,
    contentHash: wireHash(row.content_hash),
    json: flowJson(definition, row.version, wireHash(row.content_hash), definition.name, definition.type),
    localized: new Map(),
    targeting: compileExpression(definition.targetingLogic, onRuntimeError),
    completion,
    steps,
    blocks,
    blockHashes: new Map(),
    conditions,
  };
}
