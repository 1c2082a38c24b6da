// Experiments in a state answer: who is in each experiment's audience, the variant they are in, the flows held back, and the exposures to record.
import { createHash } from 'node:crypto';
import type { ExperimentExposure, WebhookEvent } from '../../src/api/wire.js';
import { assignmentKey, bucketOf, variantOfBucket } from '../../src/api/experiment-assignment.js';
import type { CatalogExperiment, CatalogFlow, CatalogVersion } from '../flows/catalog.js';
import type { Variant } from '../flows/experiments.js';
import type { Database, Queryable } from '../storage/store.js';
import { emitEvents } from './events.js';
import type { UserSnapshot } from './snapshot.js';

/** An exposure a read found and has not recorded yet: a user newly in a running experiment's audience. */
export interface NewExposure {
  experiment: CatalogExperiment;
  variant: Variant;
}

export interface ExperimentsView {
  /** Slugs of the flows experiments hold back from this user: `$state.visible` false, as a collection holds one back. */
  held: Set<string>;
  /** The running experiments the user is exposed to (the answer's `experiments`). */
  exposures: ExperimentExposure[];
  /** Running experiments whose audience the user is in without an exposure recorded. */
  unrecorded: NewExposure[];
}

const NONE: ExperimentsView = { held: new Set(), exposures: [], unrecorded: [] };

/** The variant a user is assigned to by the documented function (src/api/experiment-assignment.ts). */
export function assignedVariant(experiment: CatalogExperiment, userId: string): Variant {
  const digest = createHash('sha256').update(assignmentKey(experiment.id, userId), 'utf8').digest();
  return variantOfBucket(experiment.variants, bucketOf(digest), experiment.ends);
}

/**
 * Each experiment shows the user at most one of its flows, and holds the others back:
 * - running: a user eligible for at least one variant's flow (the audience) sees their variant's flow, and a control
 *   none; the variant is the one recorded at their exposure (a linked guest's), else the assignment by hash. A user
 *   outside the audience is shown none of them (they are not eligible for any anyway).
 * - paused: none, to everyone; no one new is assigned.
 * - ended: the winner's flow to everyone; none without a winner.
 */
export function computeExperiments(
  version: Pick<CatalogVersion, 'experiments'>,
  snapshot: UserSnapshot,
  isEligible: (flow: CatalogFlow) => boolean,
): ExperimentsView {
  if (version.experiments.length === 0) return NONE;
  const view: ExperimentsView = { held: new Set(), exposures: [], unrecorded: [] };
  for (const experiment of version.experiments) {
    let shown: string | undefined;
    if (experiment.status === 'ended') {
      shown = experiment.variants.find((variant) => variant.id === experiment.winner)?.flow;
    } else if (experiment.status === 'running' && experiment.variantFlows.some((flow) => flow && isEligible(flow))) {
      const stored = snapshot.exposures?.get(experiment.id);
      if (stored) {
        // A variant since removed from the file shows none of the flows.
        shown = experiment.variants.find((variant) => variant.id === stored.variant)?.flow;
        view.exposures.push({ id: experiment.id, variant: stored.variant, exposedAt: stored.exposedAt });
      } else {
        const variant = assignedVariant(experiment, snapshot.cel.user.id);
        shown = variant.flow;
        view.unrecorded.push({ experiment, variant });
      }
    }
    for (const slug of experiment.flows) if (slug !== shown) view.held.add(slug);
  }
  return view;
}

interface ExposureRow {
  experiment_id: string;
  variant: string;
  exposed_at: Date | string;
  inserted: boolean;
}

/**
 * Records the exposures a read found (`unrecorded`), each once per user and experiment, and queues an
 * `experiment.exposed` webhook for each row it made, in the same transaction. A row another read (another instance)
 * made first is kept with its variant and time. The snapshot, and the cached rows it came from (`cached`), then hold
 * them, so the answer lists them and the next read records nothing.
 */
export async function recordExposures(
  db: Queryable,
  snapshot: UserSnapshot,
  unrecorded: NewExposure[],
  now: Date,
  cached?: Array<[string, string, string]>,
): Promise<void> {
  const userId = snapshot.cel.user.id;
  const write = async (tx: Queryable) => {
    const rows = await tx.query<ExposureRow>(
      `INSERT INTO experiment_exposures (user_id, experiment_id, variant, exposed_at)
       SELECT $1, e, v, $4 FROM unnest($2::text[], $3::text[]) AS t(e, v)
       ON CONFLICT (user_id, experiment_id) DO UPDATE SET variant = experiment_exposures.variant
       RETURNING experiment_id, variant, exposed_at, xmax = 0 AS inserted`,
      [
        userId,
        unrecorded.map((item) => item.experiment.id),
        unrecorded.map((item) => item.variant.id),
        now.toISOString(),
      ],
    );
    const events: WebhookEvent[] = rows
      .filter((row) => row.inserted)
      .map((row) => ({
        id: randomId(),
        type: 'experiment.exposed',
        createdAt: new Date(row.exposed_at).toISOString(),
        userId,
        experimentId: row.experiment_id,
        variant: row.variant,
        flowSlug: unrecorded.find((item) => item.experiment.id === row.experiment_id)?.variant.flow ?? null,
      }));
    await emitEvents(tx, events);
    return rows;
  };
  const inTransaction = db.inTransaction || typeof (db as Partial<Database>).transaction !== 'function';
  const rows = inTransaction ? await write(db) : await (db as Database).transaction(write);
  snapshot.exposures ??= new Map();
  for (const row of rows) {
    const exposure = { variant: row.variant, exposedAt: new Date(row.exposed_at).toISOString() };
    snapshot.exposures.set(row.experiment_id, exposure);
    // What a transaction wrote may roll back: only a committed row goes into the cache.
    if (!inTransaction) cached?.push([row.experiment_id, exposure.variant, exposure.exposedAt]);
  }
}

const randomId = () => globalThis.crypto.randomUUID();
