// Carries the comments of a YAML file being replaced over to its new text, at the key paths both have, where the new
// text has none of its own there.
import { isDeepStrictEqual } from 'node:util';
import { isMap, isPair, isScalar, isSeq, parseDocument, type Document } from 'yaml';

/** The comments a node can hold (the `yaml` package puts those above a mapping's key on the key). */
interface Comments {
  commentBefore?: string | null;
  comment?: string | null;
  spaceBefore?: boolean;
}

/**
 * The comment the parser gives a mapping or list when it stands above its first entry, moved onto that entry (its key,
 * or the list item), where it is written the same: it goes with that entry when entries are inserted or reordered. A
 * mapping that is a list item keeps its own: on its first key, it would be written after the item's dash.
 */
function commentsOnEntries(node: unknown, item = false, depth = 0): void {
  if (depth > 64 || !(isMap(node) || isSeq(node))) return;
  const first = node.items[0];
  const entry = (isPair(first) ? first.key : first) as Comments | null | undefined;
  if (!item && node.commentBefore && entry && typeof entry === 'object' && !entry.commentBefore) {
    entry.commentBefore = node.commentBefore;
    node.commentBefore = null;
  }
  for (const child of node.items)
    if (isPair(child)) commentsOnEntries(child.value, false, depth + 1);
    else commentsOnEntries(child, true, depth + 1);
}

/**
 * Each node of the document by its key path: mapping keys by name (the key itself as `path#key`), list items by their
 * `id` where they have one (a step keeps its comments when steps are inserted before it), else by index.
 */
function nodesByPath(doc: Document): Map<string, Comments> {
  const nodes = new Map<string, Comments>();
  const visit = (node: unknown, path: string, depth: number) => {
    // Flow files are shallow; a bound keeps a pathological text from going deep.
    if (!node || typeof node !== 'object' || depth > 64) return;
    nodes.set(path, node);
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isScalar(pair.key)) continue;
        const at = `${path}/${String(pair.key.value)}`;
        nodes.set(`${at}#key`, pair.key);
        visit(pair.value, at, depth + 1);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => {
        const id = isMap(item) ? item.get('id') : undefined;
        visit(item, `${path}[${typeof id === 'string' ? `id=${id}` : index}]`, depth + 1);
      });
    }
  };
  visit(doc.contents, '', 0);
  return nodes;
}

/**
 * `next` with the comments of `previous` carried over where the key paths agree and `next` has no comment of its
 * own there. The text is `next` as given when nothing is carried over, or when either text is not YAML; otherwise it is
 * `next` written out again, and kept only when it reads as the same value as `next`.
 */
export function keepComments(previous: string, next: string): { text: string; kept: number } {
  const before = parseDocument(previous, { prettyErrors: false });
  const after = parseDocument(next, { prettyErrors: false });
  if (before.errors.length || after.errors.length) return { text: next, kept: 0 };
  commentsOnEntries(before.contents);
  commentsOnEntries(after.contents);
  let kept = 0;
  const carry = (from: Comments, to: Comments) => {
    if (from.commentBefore && !to.commentBefore) {
      to.commentBefore = from.commentBefore;
      kept++;
      if (from.spaceBefore) to.spaceBefore = true;
    }
    if (from.comment && !to.comment) {
      to.comment = from.comment;
      kept++;
    }
  };
  carry(before, after);
  const old = nodesByPath(before);
  for (const [path, node] of nodesByPath(after)) {
    const from = old.get(path);
    if (from) carry(from, node);
  }
  if (!kept) return { text: next, kept: 0 };
  // lineWidth 0: long lines stay on one line, as the author wrote them.
  const text = after.toString({ lineWidth: 0 });
  const same = isDeepStrictEqual(
    parseDocument(text).toJS({ maxAliasCount: 100 }),
    parseDocument(next).toJS({ maxAliasCount: 100 }),
  );
  return same ? { text, kept } : { text: next, kept: 0 };
}
