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
