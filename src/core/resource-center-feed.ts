// What the announcement element needs of the resource centres: whether a centre's feed shows an announcement instead of a modal.
import type { ResourceCenterBlock, ResourceCenterData } from '../api/wire.js';
import type { Flow } from '../flows/flow.js';

/** The blocks of a centre's data, leaving out anything that is not a block (the service checks them; a cache may be old). */
export const blocksOf = (data: Partial<ResourceCenterData> | undefined): ResourceCenterBlock[] =>
  Array.isArray(data?.blocks) ? data.blocks.filter((block) => block && typeof block === 'object') : [];

/** The strings of a list from a definition; nothing for anything else. */
export const list = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((x) => typeof x === 'string') : [];

/**
 * Whether an eligible resource centre lists the announcement `slug` in a feed without `popup: true`: it is read there,
 * and does not also open as a modal by itself.
 */
export const inFeedOnly = (slug: string, flows: Record<string, Flow>): boolean =>
  Object.values(flows).some(
    (flow) =>
      flow.type === 'RESOURCE_CENTER' &&
      flow.isVisible &&
      !flow.isCompleted &&
      !flow.isSkipped &&
      blocksOf(flow.data as Partial<ResourceCenterData>).some(
        (block) => block.type === 'announcements' && !block.popup && list(block.flows).includes(slug),
      ),
  );
