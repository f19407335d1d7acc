import type { Readable } from 'node:stream';
import {
  BodyUnreadableError,
  PayloadTooLargeError,
  RequestTimeoutError,
  type WebhookError,
} from '../errors.js';

/**
 * Collects a request body (a node stream: node:http's and http2's requests, Express's, Koa's
 * `ctx.req`) up to `limit` bytes and calls `done` once: with the body, or with a
 * {@link WebhookError}: 413 past the limit (the rest of the stream is discarded, not buffered),
 * 400 when the stream fails, 408 when the whole body has not arrived within `timeoutMs` (a body
 * trickled byte by byte, or shorter than its Content-Length: Node's own 300 s requestTimeout is
 * far too late). The caller closes the connection after a 408; the socket's idle timeout cannot
 * do this job, since a trickle keeps it busy. One timer per body read: Node keeps timers of one
 * duration in one list, so arming and clearing it is O(1). A client that aborts mid-body surfaces
 * as an 'error' (ECONNRESET) in Node 16+, so no 'aborted' listener. A callback rather than a promise: this runs once per
 * request on the hot path, and the promise's microtask turn is measurable there.
 */
export function collectBody(
  req: Readable,
  limit: number,
  done: (error: WebhookError | undefined, body: Buffer) => void,
  timeoutMs = Infinity,
): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let finished = false;
  const fail = (error: WebhookError) => {
    if (finished) return;
    finished = true;
    if (timer !== undefined) clearTimeout(timer);
    req.off('data', onData);
    req.off('end', onEnd);
    req.resume();
    done(error, EMPTY);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) fail(new PayloadTooLargeError(limit));
    else chunks.push(chunk);
  };
  // The stream has ended: its listeners go with it, so they are not removed one by one.
  const onEnd = () => {
    if (finished) return;
    finished = true;
    if (timer !== undefined) clearTimeout(timer);
    const [first] = chunks;
    done(undefined, chunks.length === 1 && first ? first : Buffer.concat(chunks, received));
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', (error: Error) => fail(new BodyUnreadableError(error.message, { cause: error })));
  const timer =
    timeoutMs === Infinity
      ? undefined
      : setTimeout(() => fail(new RequestTimeoutError(timeoutMs)), timeoutMs);
  // A pending body read must not keep a process alive that is otherwise done.
  timer?.unref();
}

const EMPTY = Buffer.alloc(0);

/**
 * Reads a request body up to `limit` bytes, as bytes, and calls `done` once: with the bytes, or
 * with the refusal. The pipeline decodes them (strict UTF-8, a BOM skipped) exactly as it does
 * the node adapters' Buffers. With a `declaredLength` (the request's Content-Length as the
 * pipeline's head read it and checked it against the limit; NaN without one), the body is read at
 * once: the HTTP framing holds it to that length, and `arrayBuffer()` takes runtimes' fast paths
 * (@hono/node-server reads the node stream directly instead of through a web stream); a body that
 * still comes out longer (a hand-made Request) is refused. Without one (chunked), the stream is read chunk by
 * chunk and cancelled as soon as the limit is passed: nothing past it is buffered. A body not
 * complete within `timeoutMs` is a 408, as on the node adapters: a trickled or short body must
 * not hold its request open; a streamed one is cancelled then, and a declared-length one ends
 * when the server closes the connection the 408 asks it to close. A callback, like
 * {@link collectBody}: a promise around the read would add a promise and a turn to every request.
 */
export function readBytes(
  request: Request,
  declaredLength: number,
  limit: number,
  timeoutMs: number,
  done: (error: WebhookError | undefined, bytes: Uint8Array) => void,
): void {
  if (request.bodyUsed) {
    done(new BodyUnreadableError('the body was already read by another handler'), EMPTY);
    return;
  }
  // NaN (no header, or an unreadable value) is not <= limit: such a body is streamed.
  const declared = declaredLength <= limit;
  const reader = declared ? undefined : (request.body as ReadableStream<Uint8Array> | null)?.getReader();
  if (!declared && reader === undefined) {
    done(undefined, EMPTY);
    return;
  }
  let finished = false;
  const finish = (result: Uint8Array | WebhookError): void => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    if (result instanceof Uint8Array) done(undefined, result);
    else done(result, EMPTY);
  };
  const timer = setTimeout(() => {
    reader?.cancel().catch(IGNORE);
    finish(new RequestTimeoutError(timeoutMs));
  }, timeoutMs);
  // A pending body read must not keep a process alive that is otherwise done (as in collectBody),
  // where the runtime's timers have unref (Workers' are numbers). In Node an unref'd timer is also
  // cheaper to set and clear (docs/bench.md).
  (timer as { unref?: () => unknown }).unref?.();
  if (reader === undefined) {
    request.arrayBuffer().then(
      (bytes) => finish(bytes.byteLength > limit ? new PayloadTooLargeError(limit) : new Uint8Array(bytes)),
      (error: unknown) => finish(unreadable(error)),
    );
  } else {
    readStreamed(reader, limit).then(finish, (error: unknown) => finish(unreadable(error)));
  }
}

const IGNORE = (): void => undefined;

const unreadable = (error: unknown): WebhookError =>
  new BodyUnreadableError(error instanceof Error ? error.message : String(error), { cause: error });

/** Reads a body stream chunk by chunk, cancelling it once past `limit`. */
async function readStreamed(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  limit: number,
): Promise<Uint8Array | WebhookError> {
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > limit) {
      // Stop reading: the runtime discards (or the server drains) the rest after the answer.
      reader.cancel().catch(IGNORE);
      return new PayloadTooLargeError(limit);
    }
    chunks.push(value);
  }
  const [first] = chunks;
  if (chunks.length === 1 && first) return first;
  const all = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}
