// What one read works out about the user's experiments (state/experiments.ts), as types the snapshot can hold.
import type { ExperimentExposure } from '../../src/api/wire.js';
import type { CatalogExperiment } from '../flows/catalog.js';
import type { Variant } from '../flows/experiments.js';

/** An exposure a read found and has not recorded yet: a user newly in a running experiment's audience. */
export interface NewExposure {
  experiment: CatalogExperiment;
  variant: Variant;
}

export interface ExperimentsView {
  /**
   * Whether an experiment holds the flow back from this user: `$state.visible` false, as a collection holds one back.
   * Undefined when no experiment holds any flow back.
   */
  holds: ((slug: string) => boolean) | undefined;
  /** The running experiments the user is exposed to (the answer's `experiments`), made when asked. */
  exposures(): ExperimentExposure[];
  /** The same as the JSON text of a list, or '' when there is none. */
  exposuresJson: string;
  /**
   * The flow each experiment (by its place in the file) shows the user (undefined: none), and the user's variant in
   * it (undefined: outside the audience of a running one, or paused or ended): for the explanation.
   */
  shownBy: ReadonlyArray<string | undefined>;
  variants: ReadonlyArray<string | undefined>;
  /** Running experiments whose audience the user is in without an exposure recorded. */
  unrecorded: NewExposure[];
}
