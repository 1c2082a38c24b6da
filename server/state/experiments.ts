// Experiments in a state answer: who is in each experiment's audience, the variant they are in, the flows held back, and the exposures to record.
import { createHash, randomUUID } from 'node:crypto';
import type { WebhookEvent } from '../../src/api/wire.js';
import { assignmentKey, bucketOf, variantOfBucket } from '../../src/api/experiment-assignment.js';
import type { CatalogExperiment, CatalogFlow, CatalogVersion } from '../flows/catalog.js';
import type { Variant } from '../flows/experiments.js';
import type { Database, Queryable } from '../storage/store.js';
import { emitEvents } from './events.js';
import type { ExperimentsView, NewExposure } from './experiments-view.js';
import type { UserSnapshot } from './snapshot.js';

const NONE: ExperimentsView = {
  holds: undefined,
  exposures: () => [],
  exposuresJson: '',
  shownBy: [],
  variants: [],
  unrecorded: [],
};

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
  version: Pick<CatalogVersion, 'experiments' | 'experimentsOfFlow'>,
  snapshot: UserSnapshot,
  isEligible: (flow: CatalogFlow) => boolean,
): ExperimentsView {
  const { experiments } = version;
  if (experiments.length === 0) return NONE;
  const memo = (snapshot.memo ??= {});
  if (memo.experiments) return memo.experiments;
  // The flow each experiment shows this user (by the experiment's place in the file): a flow of it that is not this one
  // is held back. No set of held slugs is made per read: each flow looks up its experiments, when it has any.
  const shownBy: Array<string | undefined> = [];
  const variants: Array<string | undefined> = [];
  const unrecorded: NewExposure[] = [];
  const exposed: CatalogExperiment[] = [];
  let json = '';
  for (const experiment of experiments) {
    let shown: string | undefined;
    let variantId: string | undefined;
    if (experiment.status === 'ended') {
      shown = experiment.winner === undefined ? undefined : experiment.flowOf.get(experiment.winner);
    } else if (experiment.status === 'running' && inAudience(experiment, isEligible)) {
      const stored = snapshot.exposures?.get(experiment.id);
      if (stored) {
        // A variant since removed from the file shows none of the flows.
        shown = experiment.flowOf.get(stored.variant);
        variantId = stored.variant;
        exposed.push(experiment);
        stored.json ??= `"variant":${JSON.stringify(stored.variant)},"exposedAt":"${stored.exposedAt}"`;
        json += `${json ? ',' : '['}{"id":${experiment.idJson},${stored.json}}`;
      } else {
        const variant = assignedVariant(experiment, snapshot.cel.user.id);
        shown = variant.flow;
        variantId = variant.id;
        unrecorded.push({ experiment, variant });
      }
    }
    shownBy.push(shown);
    variants.push(variantId);
  }
  const { experimentsOfFlow } = version;
  const view: ExperimentsView = {
    holds: (slug) => {
      const indexes = experimentsOfFlow.get(slug);
      if (indexes === undefined) return false;
      for (const index of indexes) if (shownBy[index] !== slug) return true;
      return false;
    },
    // As objects only for a caller that asks (an answer as parts takes the JSON).
    exposures: () =>
      exposed.map((experiment) => {
        const stored = snapshot.exposures!.get(experiment.id)!;
        return { id: experiment.id, variant: stored.variant, exposedAt: stored.exposedAt };
      }),
    exposuresJson: json && `${json}]`,
    shownBy,
    variants,
    unrecorded,
  };
  memo.experiments = view;
  return view;
}

function inAudience(experiment: CatalogExperiment, isEligible: (flow: CatalogFlow) => boolean): boolean {
  for (const flow of experiment.audience) if (isEligible(flow)) return true;
  return false;
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
        id: randomUUID(),
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
  // The view was made without these: the answer's is made again.
  if (snapshot.memo) snapshot.memo.experiments = undefined;
  for (const row of rows) {
    const exposure = { variant: row.variant, exposedAt: new Date(row.exposed_at).toISOString() };
    snapshot.exposures.set(row.experiment_id, exposure);
    // What a transaction wrote may roll back: only a committed row goes into the cache.
    if (!inTransaction) cached?.push([row.experiment_id, exposure.variant, exposure.exposedAt]);
  }
}
