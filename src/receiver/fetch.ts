import { NotFoundError, toErrorResponse, WebhookError, type HttpAnswer } from '../errors.js';
import {
  belowBasePath,
  normaliseBasePath,
  type AcceptedHead,
  type RequestBody,
  type WebhookPipelineOptions,
} from '../pipeline/index.js';
import { controlsOf, type WebhookReceiverControls } from './controls.js';
import { INTERNAL_ERROR, receiverOf, serve, type Exchange, type HeaderEntries } from './core.js';
import { readBytes } from './body.js';
import { Followed, shareObserver } from './follow.js';

/**
 * Keeps a serverless invocation alive until a promise settles: Cloudflare Workers'
 * `ctx.waitUntil`, a service worker's `event.waitUntil`, Vercel's `waitUntil` from
 * `@vercel/functions`, Next.js's `after`.
 */
type WaitUntil = (promise: Promise<unknown>) => void;

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

/** Path and query of an absolute URL (`https://host/webhooks/chatbot?token=x` → `/webhooks/chatbot?token=x`), fragment dropped. */
function pathAndQuery(url: string): string {
  const scheme = url.indexOf('://');
  const start = url.indexOf('/', scheme === -1 ? 0 : scheme + 3);
  if (start === -1) return '/';
  const hash = url.indexOf('#', start);
  return hash === -1 ? url.slice(start) : url.slice(start, hash);
}

const NOT_FOUND = toErrorResponse(new NotFoundError());

const respond = (answer: HttpAnswer): Response =>
  new Response(answer.body, { status: answer.status, headers: answer.headers });

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
    declaredLength: number,
  ): void {
    readBytes(this.request, declaredLength, limit, timeoutMs, (error, bytes) => done(error, { raw: bytes }));
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
