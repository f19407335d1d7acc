import {
  BodyUnreadableError,
  NotFoundError,
  PayloadTooLargeError,
  RequestTimeoutError,
  toErrorResponse,
  WebhookError,
  type HttpAnswer,
} from '../errors.js';
import {
  createMemoryDispatcher,
  type Dispatcher,
  type EnqueueOutcome,
  type JobRunner,
  type WebhookJob,
} from '../dispatch/index.js';
import {
  belowBasePath,
  createWebhookPipeline,
  normaliseBasePath,
  type RequestHead,
  type WebhookPipelineOptions,
} from '../pipeline/index.js';
import { controlsOf, type WebhookReceiverControls } from './express.js';
import { capture, captureSettingsOf, encodingError, INTERNAL_ERROR } from './handle.js';
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
 * the runtime alive (waitUntil). Keyed by request id (the job carries it; several requests may
 * share one, a sender's `x-request-id`, so each key counts its watchers) and by job object.
 * Costs two `size` checks per event when nobody watches.
 */
class Followed {
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

  /**
   * Called just before a job is offered to the dispatcher: a callback may run (and finish)
   * before `enqueue` even returns, so the promise must exist first.
   */
  offered(job: WebhookJob): boolean {
    if (this.watched.size === 0) return false;
    const entry = this.watched.get(job.requestId);
    if (entry === undefined) return false;
    entry.done.push(new Promise<void>((resolve) => this.pending.set(job, resolve)));
    return true;
  }

  /** The job's callbacks are over (or it was never queued): its promise settles. */
  finished(job: WebhookJob): void {
    if (this.pending.size === 0) return;
    const resolve = this.pending.get(job);
    if (resolve === undefined) return;
    this.pending.delete(job);
    resolve();
  }
}

/** The runner with its end-of-event reports forwarded to `followed`. */
function followRunner(runner: JobRunner, followed: Followed): JobRunner {
  return {
    handles: (type) => runner.handles(type),
    run(job, attempt) {
      // A dispatcher that uses run() reports a failed attempt by retrying or dead-lettering it.
      const result = runner.run(job, attempt);
      if (result === undefined) followed.finished(job);
      else void result.then(() => followed.finished(job), IGNORE);
      return result;
    },
    start: (job, attempt) => runner.start(job, attempt),
    succeeded(job) {
      runner.succeeded(job);
      followed.finished(job);
    },
    failed: (job, error, attempt, willRetry) => runner.failed(job, error, attempt, willRetry),
    deadLettered(deadLetter) {
      runner.deadLettered(deadLetter);
      followed.finished(deadLetter.job);
    },
  };
}

/** The dispatcher with each offered job of a watched request followed to its end. */
function followDispatcher(dispatcher: Dispatcher, followed: Followed): Dispatcher {
  const refused = (job: WebhookJob, outcome: EnqueueOutcome): EnqueueOutcome => {
    if (outcome !== 'accepted') followed.finished(job);
    return outcome;
  };
  return {
    enqueue(job) {
      if (!followed.offered(job)) return dispatcher.enqueue(job);
      try {
        const outcome = dispatcher.enqueue(job);
        return outcome instanceof Promise
          ? outcome.then(
              (value) => refused(job, value),
              (error: unknown) => {
                followed.finished(job);
                throw error;
              },
            )
          : refused(job, outcome);
      } catch (error) {
        followed.finished(job);
        throw error;
      }
    },
    idle: () => dispatcher.idle(),
    close: (timeoutMs) => dispatcher.close(timeoutMs),
    counts: (type) => dispatcher.counts(type),
  };
}

const IGNORE = (): void => undefined;

/**
 * The pipeline options with the in-process dispatcher wrapped so that callbacks can be followed
 * per request. A dispatcher given as an object is left alone: it stores jobs durably before the
 * 200 and runs them elsewhere, so there is nothing for this process to wait for.
 */
function withFollowedDispatcher(options: WebhookPipelineOptions, followed: Followed): WebhookPipelineOptions {
  const given = options.dispatcher;
  if (given !== undefined && typeof given !== 'function') return options;
  return {
    ...options,
    dispatcher: (runner) => {
      const tracked = followRunner(runner, followed);
      const dispatcher =
        given === undefined
          ? createMemoryDispatcher({
              runner: tracked,
              concurrency: options.concurrency,
              maxQueueSize: options.maxQueueSize,
              retry: options.retry,
            })
          : given(tracked);
      return followDispatcher(dispatcher, followed);
    },
  };
}

/** The head of a fetch request as the pipeline reads it. */
class FetchRequestHead implements RequestHead {
  readonly method: string;
  constructor(
    private readonly headers: Headers,
    method: string,
    readonly url: string,
  ) {
    this.method = method;
  }

  header(name: string): string | undefined {
    return this.headers.get(name) ?? undefined;
  }
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
  // The pipeline gets its own options only (it rejects keys it does not know).
  const { basePath: givenBasePath, waitUntil, ...pipelineOptions } = options;
  const basePath = normaliseBasePath(givenBasePath);
  const followed = new Followed();
  const pipeline = createWebhookPipeline(withFollowedDispatcher(pipelineOptions, followed), {
    factory: 'createFetchHandler',
  });
  const captureSettings = captureSettingsOf(pipelineOptions);

  async function webhookFetchHandler(request: Request, context?: FetchHandlerContext): Promise<Response> {
    try {
      const url = belowBasePath(pathAndQuery(request.url), basePath);
      if (url === undefined) return respond(NOT_FOUND);
      const head = pipeline.head(new FetchRequestHead(request.headers, request.method, url));
      // Refused before the body: it is left unread, and the runtime discards it.
      if (head instanceof WebhookError) return respond(toErrorResponse(head));
      const encoding = encodingError(request.headers.get('content-encoding') ?? undefined);
      if (encoding !== undefined) return respond(pipeline.refuse(head, encoding));
      const body = await readBytes(request, pipeline.bodyLimit, pipeline.bodyTimeoutMs);
      if (body instanceof WebhookError) return respond(pipeline.refuse(head, body));
      if (captureSettings) capture(captureSettings, request.headers, head, { raw: body }, pipeline.logger);
      const keeper = typeof context?.waitUntil === 'function' ? context : undefined;
      if (keeper === undefined && waitUntil === undefined) {
        const accepted = pipeline.accept(head, { raw: body });
        // The in-memory defaults answer synchronously: no await (a promise turn) for them.
        return respond(accepted instanceof Promise ? await accepted : accepted);
      }
      followed.watch(head.requestId);
      let answer: HttpAnswer;
      let queued: Promise<void>[];
      try {
        answer = await pipeline.accept(head, { raw: body });
      } finally {
        queued = followed.unwatch(head.requestId);
      }
      const [only] = queued;
      if (answer.status === 200 && only !== undefined) {
        const done = queued.length === 1 ? only : Promise.all(queued);
        if (keeper) keeper.waitUntil(done);
        else waitUntil?.(done);
      }
      return respond(answer);
    } catch (error) {
      pipeline.logger.error({ err: error }, 'webhook request failed');
      return respond(INTERNAL_ERROR);
    }
  }
  return Object.assign(webhookFetchHandler, controlsOf(pipeline));
}
