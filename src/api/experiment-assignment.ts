// Experiment assignment, one pure function for the service and any client: SHA-256 of "<experiment id>.<user id>" into 10,000 buckets, variants in consecutive ranges.

/** The number of buckets the users of an experiment are spread over. */
export const BUCKETS = 10_000;

/** What assignment needs of a variant: its id and weight, in the order listed. */
export interface WeightedVariant {
  id: string;
  weight: number;
}

/** The UTF-8 text whose SHA-256 places a user in an experiment. */
export const assignmentKey = (experimentId: string, userId: string): string => `${experimentId}.${userId}`;

/** The bucket: the digest's first 4 bytes as a big-endian unsigned integer, modulo 10,000. */
export function bucketOf(digest: Uint8Array): number {
  return (digest[0] * 2 ** 24 + (digest[1] << 16) + (digest[2] << 8) + digest[3]) % BUCKETS;
}

/**
 * Each variant's range ends (exclusive) at floor(10,000 × its cumulative weight ÷ the total weight), in the order
 * listed; the last ends at 10,000.
 */
export function rangeEnds(variants: readonly WeightedVariant[]): number[] {
  const total = variants.reduce((sum, variant) => sum + variant.weight, 0);
  let cumulative = 0;
  return variants.map((variant) => Math.floor((BUCKETS * (cumulative += variant.weight)) / total));
}

/** The variant whose range holds `bucket`. */
export function variantOfBucket<V extends WeightedVariant>(
  variants: readonly V[],
  bucket: number,
  ends = rangeEnds(variants),
): V {
  const index = ends.findIndex((end) => bucket < end);
  return variants[index === -1 ? variants.length - 1 : index];
}

/**
 * The variant of `experiment` a user is assigned to, computed where the page runs (Web Crypto, which browsers offer
 * on https and localhost pages, and Node): equal to the service's assignment for a user it has not linked from a
 * guest (a linked user keeps the guest's variant).
 */
export async function assignVariant(
  experiment: { id: string; variants: readonly WeightedVariant[] },
  userId: string,
): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(assignmentKey(experiment.id, userId)));
  return variantOfBucket(experiment.variants, bucketOf(new Uint8Array(digest))).id;
}
