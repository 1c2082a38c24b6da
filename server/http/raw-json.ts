// JSON made ahead of time, sent as it is: the reply serializer passes it through and serialises the rest.
import type { AnswerBuffers } from './answer-buffers.js';

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

/**
 * The reply serializer: a state answer goes out as the bytes it was made as, joined in a buffer from `buffers` (an
 * `onSend` hook gives it back when the response closes); a string would be measured for its Content-Length and then
 * encoded again, and at hundreds of flows the answer is hundreds of KB. (Fastify sends a Buffer as it is; its type
 * for a serializer says string.)
 */
export const replySerializer =
  (buffers: AnswerBuffers) =>
  (payload: unknown): string =>
    payload instanceof RawJson ? (buffers.join(payload.parts, payload.length) as unknown as string) : JSON.stringify(payload);

/** `{"userId":…,"guestLinked":…,"flowStates":…}` around a rendered state answer (the users upsert and sessions). */
export const identifiedJson = (userId: string, guestLinked: boolean, flowStates: RawJson): RawJson =>
  new RawJson([Buffer.from(`{"userId":${JSON.stringify(userId)},"guestLinked":${guestLinked},"flowStates":`), ...flowStates.parts, CLOSE]);

const CLOSE = Buffer.from('}');
