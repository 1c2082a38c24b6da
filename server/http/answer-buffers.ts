// Buffers for state answers, used again once an answer has been sent, so a busy service does not leave its memory
// allocator holding the garbage of thousands of answers.
//
// A state answer is tens to hundreds of KB. Made fresh each time, each one is freed only at the next garbage
// collection after it was sent, so several MB of them wait at any moment under load; the allocator's heap grows
// to hold them and, fragmented, stays that size when the load ends (about 10 MB of the service's resident
// memory after the benchmark). Taken from here and given back when the response closes, only the answers in
// flight are held.

import { RawJson } from '../shared/raw-json.js';

/** Answers smaller than this come from Node's own buffer pool; larger than the biggest class, they are made exact. */
const SMALLEST = 16 * 1024;
const LARGEST = 4 * 1024 * 1024;
/** Buffers kept free, in bytes over every size class: past it, a buffer given back is left to the collector. */
const KEEP_BYTES = 16 * 1024 * 1024;

export class AnswerBuffers {
  /** Free buffers by size (a power of two), most recently given back last. */
  readonly #free = new Map<number, ArrayBuffer[]>();
  /** Buffers lent out and not yet given back, so that none is given back twice. */
  readonly #lent = new WeakSet<ArrayBuffer>();
  #freeBytes = 0;

  /** `parts` joined in one buffer: from the free ones when the answer is of a pooled size (see `owns`). */
  join(parts: readonly Uint8Array[], length: number): Buffer {
    if (length < SMALLEST || length > LARGEST) return Buffer.concat(parts, length);
    const size = 2 ** Math.ceil(Math.log2(length));
    let memory = this.#free.get(size)?.pop();
    if (memory) this.#freeBytes -= size;
    else memory = new ArrayBuffer(size);
    this.#lent.add(memory);
    const joined = Buffer.from(memory, 0, length);
    let at = 0;
    for (const part of parts) {
      joined.set(part, at);
      at += part.length;
    }
    return joined;
  }

  /** Whether `buffer` was lent by `join` and not given back yet. */
  owns(buffer: unknown): buffer is Buffer {
    return Buffer.isBuffer(buffer) && this.#lent.has(buffer.buffer as ArrayBuffer);
  }

  /** Takes back a buffer `join` lent, once nothing reads it any more (the response has closed). */
  giveBack(buffer: Buffer): void {
    const memory = buffer.buffer as ArrayBuffer;
    if (!this.#lent.delete(memory) || this.#freeBytes + memory.byteLength > KEEP_BYTES) return;
    let list = this.#free.get(memory.byteLength);
    if (!list) this.#free.set(memory.byteLength, (list = []));
    list.push(memory);
    this.#freeBytes += memory.byteLength;
  }

  /**
   * The `onSend` hook that lends: a buffer `join` made goes back once its response has closed, when nothing reads it
   * any more (the socket has taken it all, or the connection is gone). It must run before compression replaces the
   * payload, so it is added before that plugin is registered.
   */
  readonly onSend = (
    _request: unknown,
    reply: { raw: { once(event: 'close', listener: () => void): unknown } },
    payload: unknown,
    done: (error: null, payload: unknown) => void,
  ): void => {
    if (this.owns(payload)) reply.raw.once('close', () => this.giveBack(payload));
    done(null, payload);
  };

  /** Bytes held free for the next answers. */
  get freeBytes(): number {
    return this.#freeBytes;
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
    payload instanceof RawJson
      ? (buffers.join(payload.parts, payload.length) as unknown as string)
      : JSON.stringify(payload);
