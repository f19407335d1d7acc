import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyUnreadableError, type HttpAnswer, type WebhookError } from '../errors.js';
import type { RequestBody } from '../pipeline/index.js';
import { collectBody } from './body.js';
import { firstHeader, NO_BODY, type Exchange, type HeaderEntries } from './core.js';

/** Writes an answer with the raw node API (Express's response is a node response too). */
export function send(res: ServerResponse, answer: HttpAnswer): void {
  if (res.headersSent) return;
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/**
 * A node request and its response as the seam's {@link Exchange}, for the node:http handler and
 * the Express router. `preParsed` is a body an upstream parser already consumed (`express.json()`
 * mounted before the router): reading the stream again would hang forever, so the parsed value is
 * used instead, and its Content-Encoding was the parser's to decode (body-parser inflates gzip
 * within its own limit).
 */
export class NodeExchange implements Exchange {
  readonly method: string;
  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly url: string,
    private readonly preParsed?: { readonly body: unknown },
  ) {
    this.method = req.method ?? 'GET';
  }

  header(name: string): string | undefined {
    return firstHeader(this.req.headers, name);
  }

  contentEncoding(): string | undefined {
    return this.preParsed === undefined ? this.req.headers['content-encoding'] : undefined;
  }

  discard(): void {
    this.req.resume();
  }

  readBody(
    limit: number,
    timeoutMs: number,
    done: (error: WebhookError | undefined, body: RequestBody) => void,
  ): void {
    if (this.preParsed !== undefined) {
      const value = this.preParsed.body;
      done(
        undefined,
        Buffer.isBuffer(value) || typeof value === 'string' ? { raw: value } : { parsed: value },
      );
    } else if (this.req.readableEnded) {
      done(new BodyUnreadableError('the body stream was already consumed by another middleware'), NO_BODY);
    } else {
      collectBody(this.req, limit, (error, raw) => done(error, { raw }), timeoutMs);
    }
  }

  headerEntries(): HeaderEntries {
    return Object.entries(this.req.headers);
  }

  send(answer: HttpAnswer): void {
    send(this.res, answer);
  }
}
