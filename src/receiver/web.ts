/**
 * Serving a web `Request` through the seam, for the adapters that speak the Fetch API (the fetch
 * handler, the Hono adapter off Node): the request as an {@link Exchange}, its answer as a
 * `Response`, and the callbacks it queued followed for the runtime's `waitUntil`.
 */
import type { HttpAnswer, WebhookError } from '../errors.js';
import type { AcceptedHead, RequestBody } from '../pipeline/index.js';
import { readBytes } from './body.js';
import { serve, type Exchange, type HeaderEntries, type Receiver } from './core.js';
import { Follower } from './follow.js';

/**
 * Keeps a serverless invocation alive until a promise settles: Cloudflare Workers'
 * `ctx.waitUntil`, a service worker's `event.waitUntil`, Vercel's `waitUntil` from
 * `@vercel/functions`, Next.js's `after`.
 */
export type WaitUntil = (promise: Promise<unknown>) => void;

/** What a runtime hands beside the request and the handler can use: an object with `waitUntil` (Workers' `ctx`, Hono's `c.executionCtx`). */
export interface FetchHandlerContext {
  waitUntil(promise: Promise<unknown>): void;
}

/** Path and query of an absolute URL (`https://host/webhooks/chatbot?token=x` → `/webhooks/chatbot?token=x`), fragment dropped. */
export function pathAndQuery(url: string): string {
  const scheme = url.indexOf('://');
  const start = url.indexOf('/', scheme === -1 ? 0 : scheme + 3);
  if (start === -1) return '/';
  const hash = url.indexOf('#', start);
  return hash === -1 ? url.slice(start) : url.slice(start, hash);
}

/** An answer as a web `Response`. */
export const respond = (answer: HttpAnswer): Response =>
  new Response(answer.body, { status: answer.status, headers: answer.headers });

/**
 * A web request as the seam's {@link Exchange}; its answer resolves the handler's promise. With
 * `keep` (the request's waitUntil), the callbacks its event queued are followed and `keep` is
 * given the promise of their end once the request is acknowledged.
 */
class WebExchange implements Exchange {
  readonly method: string;
  /** Read once: `Request.headers` is a getter (a brand check, a lazily built object in some runtimes). */
  private readonly headers: Headers;
  private watching: string | undefined;
  private sent = false;
  constructor(
    private readonly request: Request,
    readonly url: string,
    private readonly resolve: (response: Response) => void,
    private readonly follower: Follower,
    /** The request's waitUntil: without it, nothing is followed. */
    private readonly keep: WaitUntil | undefined,
  ) {
    this.method = request.method;
    this.headers = request.headers;
  }

  header(name: string): string | undefined {
    return this.headers.get(name) ?? undefined;
  }

  contentEncoding(): string | undefined {
    return this.headers.get('content-encoding') ?? undefined;
  }

  /** The body is left unread: the runtime discards it. */
  discard(): void {}

  readBody(
    limit: number,
    timeoutMs: number,
    done: (error: WebhookError | undefined, body: RequestBody) => void,
    declaredLength: number,
  ): void {
    readBytes(this.request, declaredLength, limit, timeoutMs, (error, bytes) => done(error, { raw: bytes }));
  }

  headerEntries(): HeaderEntries {
    return this.headers;
  }

  accepting(head: AcceptedHead): void {
    if (this.keep === undefined) return;
    this.follower.watch(head.requestId);
    this.watching = head.requestId;
  }

  send(answer: HttpAnswer): void {
    if (this.sent) return;
    this.sent = true;
    if (this.watching !== undefined) {
      const queued = this.follower.unwatch(this.watching);
      const [only] = queued;
      if (answer.status === 200 && only !== undefined)
        this.keep!(queued.length === 1 ? only : Promise.all(queued));
    }
    this.resolve(respond(answer));
  }
}

/** Serves one web request, `url` being its path and query below the mount point. */
export type ServeWeb = (request: Request, url: string, context?: FetchHandlerContext) => Promise<Response>;

/**
 * The web serving of a receiver. `waitUntil` is the fallback when a request comes without a
 * context (Workers' per-request `ctx` takes precedence, called as its method, as Workers
 * require). A dispatcher given as an object (BullMQ) stores each event before the 200 and runs it
 * elsewhere: there is nothing for this process to wait for, so nothing is followed.
 */
export function webServing(
  receiver: Receiver,
  waitUntil: WaitUntil | undefined,
  followable: boolean,
): ServeWeb {
  const follower = new Follower(receiver.pipeline);
  return function serveWeb(request, url, context) {
    const keep: WaitUntil | undefined = !followable
      ? undefined
      : typeof context?.waitUntil === 'function'
        ? (promise) => context.waitUntil(promise)
        : waitUntil;
    return new Promise((resolve) => {
      serve(receiver, new WebExchange(request, url, resolve, follower, keep));
    });
  };
}

/** Validates a `waitUntil` option (a TypeError naming it otherwise). */
export function checkWaitUntil(waitUntil: unknown): void {
  if (waitUntil !== undefined && typeof waitUntil !== 'function') {
    throw new TypeError(`waitUntil: expected a function, got ${typeof waitUntil}`);
  }
}
