import type { IncomingMessage } from 'node:http';
import {
  BodyUnreadableError,
  PayloadTooLargeError,
  RequestTimeoutError,
  type WebhookError,
} from '../errors.js';

/**
 * Collects a request body up to `limit` bytes and calls `done` once: with the body, or with a
 * {@link WebhookError}: 413 past the limit (the rest of the stream is discarded, not buffered),
 * 400 when the stream fails, 408 when the whole body has not arrived within `timeoutMs` (a body
 * trickled byte by byte, or shorter than its Content-Length: Node's own 300 s requestTimeout is
 * far too late). The caller closes the connection after a 408; the socket's idle timeout cannot
 * do this job, since a trickle keeps it busy. One timer per body read: Node keeps timers of one
 * duration in one list, so arming and clearing it is O(1). A client that aborts mid-body surfaces as an 'error' (ECONNRESET)
 * in Node 16+, so no 'aborted' listener. A callback rather than a promise: this runs once per
 * request on the hot path, and the promise's microtask turn is measurable there.
 */
export function collectBody(
  req: IncomingMessage,
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
 * Reads a request body up to `limit` bytes within `timeoutMs`. Rejects with a {@link WebhookError}:
 * 413 past the limit (the rest of the stream is discarded, not buffered), 400 when the stream
 * fails, 408 past the deadline.
 */
export function readBody(req: IncomingMessage, limit: number, timeoutMs?: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    collectBody(req, limit, (error, body) => (error ? reject(error) : resolve(body)), timeoutMs);
  });
}
