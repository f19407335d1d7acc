import {
  BodyUnreadableError,
  NotFoundError,
  PayloadTooLargeError,
  RequestTimeoutError,
  toErrorResponse,
  WebhookError,
  type HttpAnswer,
} from '../errors.js';
import type { WebhookJob } from '../dispatch/index.js';
import {
  belowBasePath,
  normaliseBasePath,
  type AcceptedHead,
  type RequestBody,
  type WebhookObserver,
  type WebhookPipeline,
  type WebhookPipelineOptions,
} from '../pipeline/index.js';
import { controlsOf, type WebhookReceiverControls } from './controls.js';
import { INTERNAL_ERROR, receiverOf, serve, type Exchange, type HeaderEntries } from './core.js';
import { withTimeout } from '../util/timeout.js';

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

/** Options of {@link createFetchHandler}. */
export interface FetchHandlerOptions extends WebhookPipelineOptions {
  /** Path prefix the endpoints live under, e.g. `/webhooks`. @default '' */
  readonly basePath?: string | undefined;
  /**
   * Called once per acknowledged request that queued callbacks in this process, with a promise
   * that settles (never rejects) when those callbacks have finished: succeeded, or failed on
   * their last attempt (retries included). Give the platform's `waitUntil` so that a runtime
   * which may freeze after the response keeps running them. A `context` passed to the handler
   * (Workers' per-request `ctx`) takes precedence. Not called for duplicates, errors, types
   * without a callback, or a dispatcher given as an object (BullMQ: the event is stored before
   * the 200, its workers run elsewhere). @default undefined
   */
  readonly waitUntil?: WaitUntil | undefined;
}

/**
 * A web-standard request handler (`Request` → `Response`) serving the webhook endpoints, with
 * its controls. The optional second argument is the platform's per-request context: anything with
 * a `waitUntil` method (see {@link FetchHandlerOptions.waitUntil}).
 */
export type FetchWebhookHandler = ((request: Request, context?: FetchHandlerContext) => Promise<Response>) &
  WebhookReceiverControls;

/**
 * Follows accepted events to the end of their callbacks, for the requests whose caller can keep
 * the runtime alive (waitUntil), through the pipeline's observer: `enqueuing` before a job is
 * offered to the dispatcher (a callback may run, and finish, before the enqueue returns, so the
 * promise must exist first), `jobSettled` once its callbacks are over or it was refused. Keyed by
 * request id (the job carries it; several requests may share one, a sender's `x-request-id`, so
 * each key counts its watchers) and by job object. Costs two `size` checks per event when nobody
 * watches.
 */
class Followed implements WebhookObserver {
  /** Requests being answered with a waitUntil, by request id: the events they queued so far. */
  private readonly watched = new Map<string, { watchers: number; done: Promise<void>[] }>();
  /** Queued events of watched requests, each with the resolve of its promise. */
  private readonly pending = new Map<WebhookJob, () => void>();

  watch(requestId: string): void {
    const entry = this.watched.get(requestId);
    if (entry) entry.watchers += 1;
    else this.watched.set(requestId, { watchers: 1, done: [] });
  }

  /** Stops watching; returns the promises of the events queued under `requestId` meanwhile. */
  unwatch(requestId: string): Promise<void>[] {
    const entry = this.watched.get(requestId);
    if (entry === undefined) return [];
    entry.watchers -= 1;
    if (entry.watchers === 0) this.watched.delete(requestId);
    const { done } = entry;
    entry.done = [];
    return done;
  }

  enqueuing(job: WebhookJob): void {
    if (this.watched.size === 0) return;
    const entry = this.watched.get(job.requestId);
    if (entry === undefined) return;
    entry.done.push(new Promise<void>((resolve) => this.pending.set(job, resolve)));
  }

  jobSettled(job: WebhookJob): void {
    if (this.pending.size === 0) return;
    const resolve = this.pending.get(job);
    if (resolve === undefined) return;
    this.pending.delete(job);
    resolve();
  }

  answered(): void {}
  callbackSettled(): void {}
  retried(): void {}
}

/**
 * Shares the pipeline's one observer slot between the app's observer (`messaging-webhooks/metrics`
 * sets it through `pipeline.observe`) and `followed`, which takes its place from the first
 * request with a waitUntil on: until then the slot holds the app's observer alone, so a handler
 * that never follows pays nothing. Returns the function that starts following.
 */
function shareObserver(pipeline: WebhookPipeline, followed: Followed): () => void {
  const setObserver = pipeline.observe.bind(pipeline);
  let app: WebhookObserver | undefined;
  let following = false;
  const update = () => setObserver(following ? (app === undefined ? followed : both(app, followed)) : app);
  pipeline.observe = (observer) => {
    app = observer;
    update();
  };
  return () => {
    if (following) return;
    following = true;
    update();
  };
}

/** An observer telling `first`, then `second`. */
function both(first: WebhookObserver, second: Followed): WebhookObserver {
  return {
    answered: (type, status, code, seconds) => first.answered(type, status, code, seconds),
    callbackSettled: (type, seconds) => first.callbackSettled(type, seconds),
    retried: (type) => first.retried(type),
    enqueuing(job) {
      first.enqueuing?.(job);
      second.enqueuing(job);
    },
    jobSettled(job) {
      first.jobSettled?.(job);
      second.jobSettled(job);
    },
  };
}

/** Path and query of an absolute URL (`https://host/webhooks/chatbot?token=x` → `/webhooks/chatbot?token=x`), fragment dropped. */
function pathAndQuery(url: string): string {
  const scheme = url.indexOf('://');
  const start = url.indexOf('/', scheme === -1 ? 0 : scheme + 3);
  if (start === -1) return '/';
  const hash = url.indexOf('#', start);
  return hash === -1 ? url.slice(start) : url.slice(start, hash);
}

/**
 * Reads a request body up to `limit` bytes, as bytes: the pipeline decodes them (strict UTF-8, a
 * BOM skipped) exactly as it does the node adapters' Buffers. With a declared Content-Length (already
 * checked against the limit by the pipeline's head), the body is read at once: the HTTP framing
 * holds it to that length, and `arrayBuffer()` takes runtimes' fast paths (@hono/node-server reads
 * the node stream directly instead of through a web stream); a body that still comes out longer
 * (a hand-made Request) is refused. Without one (chunked), the stream is read chunk by chunk and
 * cancelled as soon as the limit is passed: nothing past it is buffered. A body not complete
 * within `timeoutMs` is a 408, as on the node adapters (issue 16: a trickled or short body must
 * not hold its request open); a streamed one is cancelled then, and a declared-length one ends
 * when the server closes the connection the 408 asks it to close.
 */
function readBytes(request: Request, limit: number, timeoutMs: number): Promise<Uint8Array | WebhookError> {
  if (request.bodyUsed) {
    return Promise.resolve(new BodyUnreadableError('the body was already read by another handler'));
  }
  // NaN (no header, or an unreadable value) is not <= limit: such a body is streamed.
  const timedOut = () => new RequestTimeoutError(timeoutMs);
  if (Number(request.headers.get('content-length') ?? Number.NaN) <= limit) {
    // One promise and one timer, not withTimeout's race (an async function, Promise.race and a
    // promise per side): this read runs once per request.
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(timedOut()), timeoutMs);
      request.arrayBuffer().then(
        (bytes) => {
          clearTimeout(timer);
          resolve(bytes.byteLength > limit ? new PayloadTooLargeError(limit) : new Uint8Array(bytes));
        },
        (error: unknown) => {
          clearTimeout(timer);
          resolve(unreadable(error));
        },
      );
    });
  }
  const body = request.body as ReadableStream<Uint8Array> | null;
  if (body === null) return Promise.resolve(new Uint8Array(0));
  const reader = body.getReader();
  return withTimeout(readStreamed(reader, limit).catch(unreadable), timeoutMs, () => {
    reader.cancel().catch(IGNORE);
    return timedOut();
  });
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

const NOT_FOUND = toErrorResponse(new NotFoundError());

const respond = (answer: HttpAnswer): Response =>
  new Response(answer.body, { status: answer.status, headers: answer.headers });

const NO_BODY: RequestBody = { raw: '' };

/**
 * A web request as the seam's {@link Exchange}; its answer resolves the handler's promise. With
 * `keep` (the request's waitUntil), the callbacks its event queued are followed and `keep` is
 * given the promise of their end once the request is acknowledged.
 */
class FetchExchange implements Exchange {
  readonly method: string;
  /** Read once: `Request.headers` is a getter (a brand check, a lazily built object in some runtimes). */
  private readonly headers: Headers;
  private watching: string | undefined;
  private sent = false;
  constructor(
    private readonly request: Request,
    readonly url: string,
    private readonly resolve: (response: Response) => void,
    private readonly follow: Follow | undefined,
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
  ): void {
    readBytes(this.request, limit, timeoutMs).then(
      (bytes) => (bytes instanceof WebhookError ? done(bytes, NO_BODY) : done(undefined, { raw: bytes })),
      (error: unknown) => done(unreadable(error), NO_BODY),
    );
  }

  headerEntries(): HeaderEntries {
    return this.headers;
  }

  accepting(head: AcceptedHead): void {
    if (this.follow === undefined) return;
    this.follow.start();
    this.follow.followed.watch(head.requestId);
    this.watching = head.requestId;
  }

  send(answer: HttpAnswer): void {
    if (this.sent) return;
    this.sent = true;
    if (this.watching !== undefined) {
      const queued = this.follow!.followed.unwatch(this.watching);
      const [only] = queued;
      if (answer.status === 200 && only !== undefined)
        this.follow!.keep(queued.length === 1 ? only : Promise.all(queued));
    }
    this.resolve(respond(answer));
  }
}

/** How one request is followed: the handler's {@link Followed}, and the request's waitUntil. */
interface Follow {
  readonly followed: Followed;
  /** Puts the observer in place (once per handler). */
  readonly start: () => void;
  readonly keep: WaitUntil;
}

/**
 * Creates a web-standard handler (`Request` → `Promise<Response>`) over the same pipeline as the
 * Express router: same options, answers, error bodies, stats, close and idle. It uses only web
 * APIs on the request path (`Headers`, the body stream, `TextDecoder`), so it runs in Hono,
 * Next.js route handlers, `Bun.serve`, `Deno.serve` and Cloudflare Workers (with the
 * `nodejs_compat` flag: the pipeline uses `node:crypto` and `node:timers`).
 *
 * Callbacks run on the in-memory queue after the answer. Where the runtime may freeze or end the
 * invocation once the response is sent (serverless), pass its `waitUntil` (as an option, or the
 * per-request `ctx` as the second argument) so queued callbacks keep it alive; without one,
 * callbacks not finished by then may never run. For durability use the BullMQ dispatcher of
 * `messaging-webhooks/redis`.
 *
 * @example
 * const handler = createFetchHandler({ basePath: '/webhooks', onChatbot: async (event) => reply(event) });
 * app.all('/webhooks/*', (c) => handler(c.req.raw)); // Hono
 * export default { fetch: (request, env, ctx) => handler(request, ctx) }; // Cloudflare Workers
 */
export function createFetchHandler(options: FetchHandlerOptions): FetchWebhookHandler {
  if (options.basePath !== undefined && typeof options.basePath !== 'string') {
    throw new TypeError(`basePath: expected a string, got ${typeof options.basePath}`);
  }
  if (options.waitUntil !== undefined && typeof options.waitUntil !== 'function') {
    throw new TypeError(`waitUntil: expected a function, got ${typeof options.waitUntil}`);
  }
  const receiver = receiverOf(options, 'createFetchHandler', ['basePath', 'waitUntil']);
  const basePath = normaliseBasePath(options.basePath);
  const { waitUntil } = options;
  // A dispatcher given as an object (BullMQ) stores each event before the 200 and runs it
  // elsewhere: there is nothing for this process to wait for.
  const followable = typeof options.dispatcher !== 'object';
  const followed = new Followed();
  const start = shareObserver(receiver.pipeline, followed);

  function webhookFetchHandler(request: Request, context?: FetchHandlerContext): Promise<Response> {
    let url: string | undefined;
    try {
      url = belowBasePath(pathAndQuery(request.url), basePath);
    } catch (error) {
      receiver.pipeline.logger.error({ err: error }, 'webhook request failed');
      return Promise.resolve(respond(INTERNAL_ERROR));
    }
    if (url === undefined) return Promise.resolve(respond(NOT_FOUND));
    // The per-request context (Workers' ctx) first; called as its method, as Workers require.
    const keep: WaitUntil | undefined = !followable
      ? undefined
      : typeof context?.waitUntil === 'function'
        ? (promise) => context.waitUntil(promise)
        : waitUntil;
    return new Promise((resolve) => {
      serve(receiver, new FetchExchange(request, url, resolve, keep && { followed, start, keep }));
    });
  }
  return Object.assign(webhookFetchHandler, controlsOf(receiver.pipeline));
}
