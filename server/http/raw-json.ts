// JSON text made ahead of time, sent as it is: the reply serializer passes it through and serialises the rest.
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * A state answer goes out as bytes: a string would be measured for its Content-Length and then encoded again
 * to be written, and at hundreds of flows the answer is hundreds of KB. (Fastify sends a Buffer as it is;
 * its type for a serializer says string.)
 */
export const serializeReply = (payload: unknown): string => (payload instanceof RawJson ? (Buffer.from(payload.text) as unknown as string) : JSON.stringify(payload));

/** `{"userId":…,"guestLinked":…,"flowStates":…}` around a rendered state answer (the users upsert and sessions). */
export const identifiedJson = (userId: string, guestLinked: boolean, flowStates: RawJson): RawJson =>
  new RawJson(`{"userId":${JSON.stringify(userId)},"guestLinked":${guestLinked},"flowStates":${flowStates.text}}`);
