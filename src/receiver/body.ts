import type { IncomingMessage } from 'node:http';
import { BodyUnreadableError, PayloadTooLargeError, type WebhookError } from '../errors.js';

/**
 * Reads a request body up to `limit` bytes. Rejects with a {@link WebhookError}: 413 past the
 * limit (the rest of the stream is discarded, not buffered), 400 when the stream fails. A client
 * that aborts mid-body surfaces as an 'error' (ECONNRESET) in Node 16+, so no 'aborted' listener.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    const finish = (error: WebhookError | undefined, body?: Buffer) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (error) {
        req.resume();
        reject(error);
      } else {
        resolve(body ?? Buffer.alloc(0));
      }
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) finish(new PayloadTooLargeError(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => finish(undefined, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
    const onError = (error: Error) => finish(new BodyUnreadableError(error.message, { cause: error }));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
