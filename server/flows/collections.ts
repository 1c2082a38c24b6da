// collections.yaml beside the flow files: reads and checks it (keys, types, durations, known and unrepeated flow slugs), each problem with its line.
import { COLLECTION_TYPES, type CollectionDefinition, type CollectionType } from '../../src/api/wire.js';
import { COLLECTION_FILES, type FlowFileError, type FlowProblem } from './definitions.js';
import { parseDuration } from './durations.js';
import type { PathSegment } from './schema.js';
import { byLine, isObject, parseSideFile, readListFileIn, sideFileIn, unknownKeys } from './side-file.js';

/** A collection as the service uses it: its cool-off in milliseconds. */
export interface Collection {
  id: string;
  type: CollectionType;
  /** Flow slugs, first shown first. */
  flows: string[];
  /** The cool-off as written (`48h`), or `0` for none. */
  coolOff: string;
  coolOffMs: number;
  allowedComponents: string[];
}

const FILE_KEYS = ['collections'];
const COLLECTION_KEYS: ReadonlyArray<keyof CollectionDefinition> = [
  'id',
  'type',
  'flows',
  'coolOff',
  'allowedComponents',
];
/** The name of the collections file in `dir`, when there is one. */
export const collectionsFileIn = (dir: string): string | undefined => sideFileIn(dir, COLLECTION_FILES);

/**
 * Reads the folder's collections file, checking its flow slugs against `slugs` (the flows loaded from the
 * same folder). No file: no collections. A file with any problem is refused whole, with every problem.
 */
export function readCollections(
  dir: string,
  slugs: ReadonlySet<string>,
): { collections: Collection[]; error?: FlowFileError } {
  const { value, error } = readListFileIn(dir, COLLECTION_FILES, (text) => {
    const { collections, problems } = checkCollectionsText(text, slugs);
    return { value: collections, problems };
  });
  return { collections: value, error };
}

/** Checks the text of a collections file; `collections` is meaningful only when `problems` is empty. */
export function checkCollectionsText(
  text: string,
  slugs: ReadonlySet<string>,
): { collections: Collection[]; problems: FlowProblem[] } {
  const { value, problems, add } = parseSideFile(text);
  if (problems.length) return { collections: [], problems };
  // An empty file lists no collections.
  if (value === null || value === undefined) return { collections: [], problems };
  if (!isObject(value)) {
    add([], 'expected a mapping with collections: a list of { id, type, flows, coolOff }');
    return { collections: [], problems };
  }
  unknownKeys(value, FILE_KEYS, [], add);
  const list = value.collections;
  if (list === undefined) add([], 'required, but missing', 'collections');
  else if (!Array.isArray(list)) add(['collections'], 'expected a list of { id, type, flows, coolOff }');
  const collections: Collection[] = [];
  const ids = new Map<string, number>();
  /** Where each flow already is, by collection type: `${type} ${slug}` → [collection index, flow index]. */
  const placed = new Map<string, [number, number]>();
  for (const [index, item] of (Array.isArray(list) ? list : []).entries()) {
    const where: PathSegment[] = ['collections', index];
    if (!isObject(item)) {
      add(where, 'expected a mapping with id, type and flows');
      continue;
    }
    unknownKeys(item, COLLECTION_KEYS, where, add);
    const { id, type, flows, coolOff, allowedComponents } = item;
    if (id === undefined) add(where, 'required, but missing', 'id');
    else if (typeof id !== 'string' || id === '') add([...where, 'id'], 'expected a non-empty string');
    else if (ids.has(id)) add([...where, 'id'], `duplicate collection id "${id}" (also collections[${ids.get(id)}])`);
    else ids.set(id, index);
    if (type === undefined) add(where, 'required, but missing', 'type');
    else if (!(COLLECTION_TYPES as readonly unknown[]).includes(type))
      add([...where, 'type'], `unknown value ${JSON.stringify(type)}; expected one of ${COLLECTION_TYPES.join(', ')}`);
    const coolOffMs = coolOff === undefined ? 0 : parseDuration(coolOff);
    if (coolOffMs === undefined) {
      add(
        [...where, 'coolOff'],
        `bad duration ${JSON.stringify(coolOff)}; expected a whole number and a unit (s, m, h, d or w), such as 48h or 2d, or 0 for none`,
      );
    }
    if (
      allowedComponents !== undefined &&
      !(Array.isArray(allowedComponents) && allowedComponents.every((c) => typeof c === 'string'))
    ) {
      add([...where, 'allowedComponents'], 'expected a list of strings, such as [Banner, Card]');
    }
    if (flows === undefined) add(where, 'required, but missing', 'flows');
    else if (!Array.isArray(flows) || flows.length === 0)
      add([...where, 'flows'], 'expected a list of flow slugs, at least one');
    const slugList: string[] = [];
    for (const [flowIndex, slug] of (Array.isArray(flows) ? flows : []).entries()) {
      const at: PathSegment[] = [...where, 'flows', flowIndex];
      if (typeof slug !== 'string') {
        add(at, 'expected a flow slug (a string)');
        continue;
      }
      if (!slugs.has(slug)) {
        add(at, `unknown flow slug "${slug}": no flow file in this folder defines it`);
        continue;
      }
      if (slugList.includes(slug)) {
        add(at, `flow "${slug}" is listed twice in this collection`);
        continue;
      }
      slugList.push(slug);
      if (typeof type !== 'string') continue;
      const other = placed.get(`${type} ${slug}`);
      if (other) {
        add(
          at,
          `flow "${slug}" is already in the ${type} collection at collections[${other[0]}] (flows[${other[1]}]); a flow may be in one collection of each type`,
        );
      } else placed.set(`${type} ${slug}`, [index, flowIndex]);
    }
    collections.push({
      id: typeof id === 'string' ? id : '',
      type: type as CollectionType,
      flows: slugList,
      coolOff: coolOffMs ? String(coolOff).trim() : '0',
      coolOffMs: coolOffMs ?? 0,
      allowedComponents: Array.isArray(allowedComponents) ? (allowedComponents as string[]) : [],
    });
  }
  byLine(problems);
  return { collections: problems.length ? [] : collections, problems };
}
