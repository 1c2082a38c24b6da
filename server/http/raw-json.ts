// JSON made ahead of time, sent as it is: the reply serializer passes it through and serialises the rest.
export class RawJson {
  /** UTF-8 JSON. */
  constructor(readonly bytes: Buffer) {}
}

/**
 * A state answer goes out as the bytes it was made as: a string would be measured for its Content-Length and
 * then encoded again to be written, and at hundreds of flows the answer is hundreds of KB. (Fastify sends a
 * Buffer as it is; its type for a serializer says string.)
 */
export const serializeReply = (payload: unknown): string => (payload instanceof RawJson ? (payload.bytes as unknown as string) : JSON.stringify(payload));

/** `{"userId":…,"guestLinked":…,"flowStates":…}` around a rendered state answer (the users upsert and sessions). */
export const identifiedJson = (userId: string, guestLinked: boolean, flowStates: RawJson): RawJson =>
  new RawJson(Buffer.concat([Buffer.from(`{"userId":${JSON.stringify(userId)},"guestLinked":${guestLinked},"flowStates":`), flowStates.bytes, CLOSE]));

const CLOSE = Buffer.from('}');
