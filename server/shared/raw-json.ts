// JSON made ahead of time, sent as it is: the reply serializer (http/answer-buffers.ts) passes it through.

export class RawJson {
  /** Its bytes, in order: UTF-8 JSON once joined. Most are shared (a flow's answer kept per version), so none is changed. */
  readonly parts: readonly Buffer[];
  readonly length: number;

  constructor(parts: readonly Buffer[]) {
    this.parts = parts;
    let length = 0;
    for (const part of parts) length += part.length;
    this.length = length;
  }
}

/** `{"userId":…,"guestLinked":…,"flowStates":…}` around a rendered state answer (the users upsert and sessions). */
export const identifiedJson = (userId: string, guestLinked: boolean, flowStates: RawJson): RawJson =>
  new RawJson([
    Buffer.from(`{"userId":${JSON.stringify(userId)},"guestLinked":${guestLinked},"flowStates":`),
    ...flowStates.parts,
    CLOSE,
  ]);

const CLOSE = Buffer.from('}');

/**
 * `json` with the parts in `own` (made for it alone) copied into one buffer of their exact size, for an answer that
 * is kept. A small Buffer is cut from Node's shared 8 KB pool, whose whole slab stays in memory while any part cut from
 * it does: kept for minutes, each answer's few hundred bytes of own parts would hold kilobytes of other reads' garbage.
 */
export function ownedParts(json: RawJson, own: readonly Buffer[]): RawJson {
  const mine = new Set(own);
  let length = 0;
  for (const part of json.parts) if (mine.has(part)) length += part.length;
  if (length === 0) return json;
  const memory = Buffer.allocUnsafeSlow(length);
  let at = 0;
  return new RawJson(
    json.parts.map((part) => {
      if (!mine.has(part)) return part;
      part.copy(memory, at);
      at += part.length;
      return memory.subarray(at - part.length, at);
    }),
  );
}
