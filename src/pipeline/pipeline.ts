// Imported, not the global: Node 20's global `performance` is a getter (407 against 232
// instructions per call under callgrind, measured for issue 15's metrics cost).
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { deadLettersToJsonl } from '../capture/jsonl.js';
import { deliveryTrackerFor } from '../delivery/tracker.js';
import {
  createMemoryDedupeStore,
  digestDedupeKey,
  DEFAULT_DEDUPE_KEYS,
  ORDERING_KEYS,
  type DedupeKeyFn,
  type DedupeStore,
} from '../dedupe/index.js';
import {
  createJobRunner,
  createMemoryDispatcher,
  DEFAULT_MAX_QUEUE_SIZE,
  type DeadLetter,
  type Dispatcher,
  type EnqueueOutcome,
  type JobObserver,
  type JobRunner,
  type JobTracer,
  type WebhookJob,
} from '../dispatch/index.js';
import {
  InvalidJsonError,
  InvalidPayloadError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooComplexError,
  PayloadTooLargeError,
  QueueFullError,
  ShuttingDownError,
  StoreUnavailableError,
  ClaimHeldError,
  jsonAnswer,
  toErrorResponse,
  UnauthorizedError,
  UnknownWebhookTypeError,
  UnsupportedMediaTypeError,
  type HttpAnswer,
  type WebhookError,
} from '../errors.js';
import { createLibraryLogger, logRef, redactsLogs, scrubError } from '../logger.js';
import { callSafely } from '../util/call-safely.js';
import { withTimeout } from '../util/timeout.js';
import { detectWebhookType, parseWebhook, WEBHOOK_TYPES, type WebhookType } from '../schemas/index.js';
import { createTokenCheck, type TokenCheck } from './auth.js';
import { inspectJson, parseJsonText, scanJsonStructure, scanThreshold, type JsonLimits } from './json.js';
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_HEALTH_QUEUE_SHARE,
  jsonLimitsOf,
  DEFAULT_ENQUEUE_TIMEOUT_MS,
  DEFAULT_RETRY_AFTER_SECONDS,
  tokensOf,
  validatePipelineOptions,
  type PipelineOptionsCheck,
  type WebhookPipelineOptions,
} from './options.js';
import { parseRoute } from './route.js';
import { answerCounter, createStatsRecorder, type StatsBucket, type WebhookStats } from './stats.js';

/** What an adapter knows about a request before reading its body. */
export interface RequestHead {
  readonly method: string;
  /** Path and query below the mount point, e.g. `/chatbot?token=...`. */
  readonly url: string;
  /** Reads a request header (lower-case name). */
  header(name: string): string | undefined;
}

/** A request that passed the pre-body checks. */
export interface AcceptedHead {
  readonly type: WebhookType | undefined;
  readonly requestId: string;
  readonly receivedAt: number;
  /** `performance.now()` when the head passed, set only while an observer is watching. */
  readonly startedAt?: number | undefined;
  /** The request's span, set only while a tracer is set ({@link WebhookPipeline.trace}). */
  readonly span?: unknown;
}

/**
 * Told about each answer and callback attempt, for metrics. Set with {@link WebhookPipeline.observe};
 * while none is set the pipeline reads one property per answer and calls nothing.
 */
export interface WebhookObserver extends JobObserver {
  /**
   * A request was answered: `code` is `ok`, `duplicate` or the error code; `seconds` from the
   * passed head checks to the answer, undefined for a request refused by the head checks.
   */
  answered(type: StatsBucket, status: number, code: string, seconds: number | undefined): void;
  /**
   * An accepted event is about to be enqueued (`job` is the object the runner will see). A
   * callback may run, and settle, before the enqueue returns; a job refused by the dispatcher is
   * reported settled at once.
   */
  enqueuing?(job: WebhookJob): void;
}

/**
 * Traces requests and callback attempts (`messaging-webhooks/otel`). Set with
 * {@link WebhookPipeline.trace}; while none is set the pipeline reads one property per request.
 */
export interface RequestTracer extends JobTracer {
  /** First thing in `head()`: returns the request's span (carried as `AcceptedHead.span`), or undefined. */
  requested(request: RequestHead): unknown;
  /**
   * An accepted event is about to be enqueued: returns the job to enqueue, carrying the span's
   * context. `claimed`: its dedupe key was claimed (false: no key, or the store failed open).
   */
  dispatching(span: unknown, job: WebhookJob, claimed: boolean): WebhookJob;
  /** The request was answered: `code` is `ok`, `duplicate` or the error code. Ends the span. */
  answered(span: unknown, type: StatsBucket, status: number, code: string): void;
}

/** Readiness of a receiver, for a load balancer's probe. */
export interface WebhookHealth {
  /** False while closing or with the queue past its threshold. */
  readonly ready: boolean;
  /**
   * Why not ready: `closing`, `queue_over_threshold`, and what the dedupe store and dispatcher
   * report from their own `health()` (`redis_unreachable` for the Redis ones); empty when ready.
   */
  readonly reasons: readonly string[];
  readonly closing: boolean;
  /** Accepted events not finished (queued, running, waiting for a retry). */
  readonly unfinished: number;
  /** Unfinished events at which readiness turns false; undefined when not applied. */
  readonly queueThreshold: number | undefined;
}

/** The body as the adapter has it: raw bytes, or a value a body parser already produced. */
export type RequestBody = { readonly raw: Uint8Array | string } | { readonly parsed: unknown };

/**
 * The framework-free webhook pipeline: authenticate → parse → validate → dedupe → enqueue → ack.
 * Adapters (Express, node:http) supply the request head and body and write the answer.
 */
export interface WebhookPipeline {
  /** Largest accepted body, in bytes. */
  readonly bodyLimit: number;
  /** Longest wait for a whole body, in milliseconds, before 408. */
  readonly bodyTimeoutMs: number;
  readonly logger: Logger;
  /** Checks a request before its body is read: method, path, token, content type, length. */
  head(request: RequestHead): AcceptedHead | WebhookError;
  /**
   * Takes the body of a request that passed {@link WebhookPipeline.head}; returns the answer to send, as a
   * promise only when an asynchronous store or dispatcher is involved.
   */
  accept(head: AcceptedHead, body: RequestBody): HttpAnswer | Promise<HttpAnswer>;
  /**
   * Answers a request the adapter refused itself (e.g. a body over the limit while streaming).
   * Without a head (refused before {@link WebhookPipeline.head}: a Node-level client error, an upstream body
   * parser's error) the request is also counted as received.
   */
  refuse(head: AcceptedHead | undefined, error: WebhookError): HttpAnswer;
  /**
   * Stops accepting (503 from now on); waits up to `timeoutMs` for accepted events; true when all
   * ran. On a timeout, the events not run yet are handed to `onUnfinished` (when set) first.
   */
  close(timeoutMs?: number): Promise<boolean>;
  /** Counts per webhook type. */
  stats(): WebhookStats;
  /** Resolves when no event is queued, running or waiting for a retry. */
  idle(): Promise<void>;
  /** Readiness: false while closing or with the queue past `healthQueueThreshold`. */
  health(): WebhookHealth;
  /** Sets (or, with undefined, clears) the observer told about answers and callback attempts. */
  observe(observer: WebhookObserver | undefined): void;
  /** Sets (or, with undefined, clears) the tracer told about requests and callback attempts. */
  trace(tracer: RequestTracer | undefined): void;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const ACK = JSON.stringify({ received: true });
/**
 * The code a dedupe store's claim rejects with while another request holds the event's claim
 * (the Redis store's `DedupeClaimPendingError`): answered 503 `claim_held`, not a store failure.
 */
export const CLAIM_PENDING_CODE = 'dedupe_claim_pending';
const isClaimHeld = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === CLAIM_PENDING_CODE;
const ACK_DUPLICATE = JSON.stringify({ received: true, duplicate: true });

/**
 * Creates the pipeline behind the Express router and the node:http handler. An adapter passes
 * `check` to be named in construction errors and to declare the options it adds.
 *
 * @example
 * const pipeline = createWebhookPipeline({ onChatbot: async (event, ctx) => reply(event) });
 */
export function createWebhookPipeline(
  options: WebhookPipelineOptions,
  check?: PipelineOptionsCheck,
): WebhookPipeline {
  validatePipelineOptions(options, check);
  const logger = createLibraryLogger(options, 'messaging-webhooks');
  // Redaction (the default) logs no payload value: keys and unlisted values appear as logRefs.
  const redactLogs = redactsLogs(options);
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const jsonLimits: JsonLimits = jsonLimitsOf(options);
  const scanFrom = scanThreshold(jsonLimits);
  const enqueueTimeoutMs = options.enqueueTimeoutMs ?? DEFAULT_ENQUEUE_TIMEOUT_MS;
  const retryAfter = options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  const tokens = tokensOf(options);
  // An unset variable (`token: process.env.WEBHOOK_TOKEN`) must not open the endpoint silently;
  // `token: false` says it is open on purpose.
  if (options.token === undefined) {
    try {
      logger.warn(
        'no webhook token: anyone who finds the URL can post events; set `token` (or `token: false` to accept requests without one on purpose)',
      );
    } catch {
      // A logger that throws (its transport down) must not stop the receiver from starting.
    }
  }
  const checkToken: TokenCheck | undefined = tokens.length > 0 ? createTokenCheck(tokens) : undefined;
  const tokenHeader = (options.tokenHeader ?? 'x-webhook-token').toLowerCase();
  const tokenQueryParam = options.tokenQueryParam ?? 'token';
  const stats = createStatsRecorder();
  // Read at every answer and attempt; holds an observer only while metrics are collected.
  const probe: { observer: WebhookObserver | undefined; tracer: RequestTracer | undefined } = {
    observer: undefined,
    tracer: undefined,
  };
  const parseOptions = { chatbotPayloadVersion: options.chatbotPayloadVersion };

  const dedupe = options.dedupe === false ? undefined : (options.dedupe ?? {});
  const store: DedupeStore | undefined =
    dedupe === undefined
      ? undefined
      : (dedupe.store ?? createMemoryDedupeStore({ max: dedupe.max, ttlMs: dedupe.ttlMs }));
  const dedupeKeyOf: Partial<Record<WebhookType, DedupeKeyFn<WebhookType>>> = {};
  if (dedupe !== undefined) {
    for (const type of WEBHOOK_TYPES) {
      if (dedupe.types?.[type] === false) continue;
      dedupeKeyOf[type] = (dedupe.keys?.[type] ?? DEFAULT_DEDUPE_KEYS[type]) as DedupeKeyFn<WebhookType>;
    }
  }
  const failOpen = dedupe !== undefined && dedupe.onStoreError === 'dispatch';

  // Dead letters to a replayable file (deadLetterSink), before the user's onDeadLetter.
  const deadLetters =
    options.deadLetterSink === undefined ? undefined : deadLettersToJsonl(options.deadLetterSink);
  const runner: JobRunner = createJobRunner({
    handlers:
      deadLetters === undefined
        ? options
        : {
            ...options,
            onDeadLetter(deadLetter) {
              keepDeadLetter(deadLetter);
              return options.onDeadLetter?.(deadLetter);
            },
          },
    logger,
    stats,
    tracker: deliveryTrackerFor(options.statusTracking),
    callbackTimeoutMs: options.callbackTimeoutMs,
    redactLogs,
    observe: probe,
  });
  const dispatcher: Dispatcher =
    typeof options.dispatcher === 'function'
      ? options.dispatcher(runner)
      : (options.dispatcher ??
        createMemoryDispatcher({
          runner,
          concurrency: options.concurrency,
          maxQueueSize: options.maxQueueSize,
          retry: options.retry,
        }));
  // A dispatcher given as an object hands jobs to workers elsewhere (BullMQ): this process cannot
  // know which types they handle, so it enqueues every type. Without one, a type that has no
  // callback here is acknowledged and not queued.
  const enqueueEveryType = options.dispatcher !== undefined && typeof options.dispatcher !== 'function';
  // The in-memory queue's threshold defaults to a share of its size; a dispatcher of the caller's
  // own has no known size, so only an explicit threshold applies to it.
  const queueThreshold =
    options.healthQueueThreshold ??
    (options.dispatcher === undefined
      ? Math.ceil((options.maxQueueSize ?? DEFAULT_MAX_QUEUE_SIZE) * DEFAULT_HEALTH_QUEUE_SHARE)
      : undefined);
  let closing = false;

  /** Tells the observer, when one is set, about an answer. */
  function answered(
    bucket: StatsBucket,
    status: number,
    code: string,
    startedAt: number | undefined,
    span?: unknown,
  ): void {
    if (span !== undefined) probe.tracer?.answered(span, bucket, status, code);
    const observer = probe.observer;
    if (observer === undefined) return;
    observer.answered(
      bucket,
      status,
      code,
      startedAt === undefined ? undefined : (performance.now() - startedAt) / 1000,
    );
  }

  function refuse(
    bucket: StatsBucket,
    error: WebhookError,
    accepted?: AcceptedHead,
    span: unknown = accepted?.span,
  ): WebhookError {
    stats.inc(bucket, answerCounter(error.status));
    if (probe.observer !== undefined || span !== undefined)
      answered(bucket, error.status, error.code, accepted?.startedAt, span);
    logger.debug({ type: bucket, code: error.code }, 'webhook refused');
    return error;
  }

  function head(request: RequestHead): AcceptedHead | WebhookError {
    const span = probe.tracer?.requested(request);
    const queryStart = request.url.indexOf('?');
    const pathname = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
    const route = parseRoute(pathname, checkToken !== undefined);
    const bucket: StatsBucket = route?.type ?? 'unknown';
    stats.inc(bucket, 'received');
    // The path is not echoed: it may hold a token segment.
    if (route === undefined) return refuse(bucket, new NotFoundError(), undefined, span);
    if (request.method !== 'POST')
      return refuse(bucket, new MethodNotAllowedError(request.method), undefined, span);
    if (checkToken) {
      // Accepted when any presented token is right: an empty or stale header (a proxy's, a
      // forgotten default) must not hide the right token in the query or the path.
      const query = queryStart === -1 ? undefined : new URLSearchParams(request.url.slice(queryStart + 1));
      if (
        !checkToken(request.header(tokenHeader)) &&
        !checkToken(query?.get(tokenQueryParam) ?? undefined) &&
        !checkToken(route.pathToken)
      ) {
        return refuse(bucket, new UnauthorizedError(), undefined, span);
      }
    }
    if (closing) return refuse(bucket, new ShuttingDownError(retryAfter), undefined, span);
    const contentType = request.header('content-type');
    // The exact common value first: a string comparison, not a regular expression.
    if (contentType !== 'application/json' && (contentType === undefined || !JSON_TYPE.test(contentType))) {
      return refuse(bucket, new UnsupportedMediaTypeError(contentType), undefined, span);
    }
    const length = Number(request.header('content-length'));
    if (length > bodyLimit) return refuse(bucket, new PayloadTooLargeError(bodyLimit), undefined, span);
    const given = request.header('x-request-id');
    const requestId = given !== undefined && given.length > 0 && given.length <= 128 ? given : randomUUID();
    return {
      type: route.type,
      requestId,
      receivedAt: Date.now(),
      startedAt: probe.observer === undefined ? undefined : performance.now(),
      span,
    };
  }

  function invalid(
    accepted: AcceptedHead,
    type: WebhookType | undefined,
    payload: unknown,
    error: WebhookError,
  ): HttpAnswer {
    const issues =
      error instanceof InvalidPayloadError ? error.issues : [{ path: '', message: error.message }];
    refuse(type ?? 'unknown', error, accepted);
    logger.warn({ requestId: accepted.requestId, type, issues }, 'invalid webhook payload');
    const onInvalid = options.onInvalid;
    if (onInvalid) {
      const receivedAt = new Date(accepted.receivedAt);
      callSafely(logger, 'onInvalid', () =>
        onInvalid({ type, payload, issues, requestId: accepted.requestId, receivedAt }),
      );
    }
    return toErrorResponse(error);
  }

  /** A payload over a structural bound: not handed on, to validation or to onInvalid. */
  function tooComplex(accepted: AcceptedHead, exceeded: keyof JsonLimits): HttpAnswer {
    const error = new PayloadTooComplexError(exceeded, jsonLimits[exceeded]);
    return invalid(accepted, accepted.type, undefined, error);
  }

  /** Runs `next` on a value now, or once its promise settles: no promise turn for synchronous stores. */
  const chain = <T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> =>
    value instanceof Promise ? value.then(next) : next(value);

  /**
   * Calls the store or dispatcher with one argument; an asynchronous answer is awaited up to the
   * enqueue deadline. A throw, a rejection or a missed deadline becomes `failed` (logged), never
   * an exception. A function and its argument rather than a closure: nothing is allocated on the
   * synchronous path, which every request takes with the in-memory defaults.
   */
  function guarded<A, T>(
    what: string,
    call: (arg: A) => T | Promise<T>,
    arg: A,
  ): T | 'failed' | Promise<T | 'failed'> {
    try {
      const result = call(arg);
      if (!(result instanceof Promise)) return result;
      // An asynchronous store or dispatcher is waited for, but never past the enqueue deadline.
      return withTimeout(result, enqueueTimeoutMs, () => {
        throw new Error(`no answer within ${enqueueTimeoutMs} ms`);
      }).catch((error: unknown) => failed(what, error, arg));
    } catch (error) {
      return failed(what, error, arg);
    }
  }

  /** A claim of the dedupe store: `held` when another request holds the event's claim (not a failure). */
  function claimOf(key: string): boolean | 'held' | 'failed' | Promise<boolean | 'held' | 'failed'> {
    try {
      const result = claim(key);
      if (!(result instanceof Promise)) return result;
      return withTimeout(result, enqueueTimeoutMs, () => {
        throw new Error(`no answer within ${enqueueTimeoutMs} ms`);
      }).catch((error: unknown) => (isClaimHeld(error) ? 'held' : failed('dedupe store', error, key)));
    } catch (error) {
      return isClaimHeld(error) ? 'held' : failed('dedupe store', error, key);
    }
  }

  function failed(what: string, error: unknown, arg?: unknown): 'failed' {
    // A store's error may name the dedupe key (phone numbers, texts): logged as a logRef.
    const key = typeof arg === 'string' ? arg : (arg as WebhookJob | undefined)?.dedupeKey;
    logger.error({ err: redactLogs ? scrubError(error, key) : error }, `${what} failed`);
    return 'failed';
  }

  // The store and dispatcher calls, made once. The store is only called for jobs with a dedupe key,
  // which exist only when deduplication is on.
  const claim = (key: string) => store!.claim(key);
  const release = (key: string) => store!.release(key);
  const confirm = (key: string) => store!.confirm!(key);
  // A confirmed claim of an event accepted but not handled: forgotten so a replay runs it.
  const forget = store?.forget === undefined ? release : (key: string) => store.forget!(key);
  const enqueue = (job: WebhookJob) => dispatcher.enqueue(job);

  const forgetting = new Set<Promise<unknown>>();
  /** Writes a dead letter to `deadLetterSink` and forgets its claim, so a replay of the file runs it. */
  function keepDeadLetter(deadLetter: DeadLetter): void {
    const { job } = deadLetter;
    if (!deadLetters!(deadLetter)) {
      logger.error(
        { requestId: job.requestId, type: job.type, file: deadLetters!.file },
        'dead letter not written',
      );
      return;
    }
    if (job.dedupeKey === undefined) return;
    const forgotten = guarded('dedupe forget', forget, job.dedupeKey);
    if (!(forgotten instanceof Promise)) return;
    // close() waits for it before closing the store.
    forgetting.add(forgotten);
    void forgotten.finally(() => forgetting.delete(forgotten));
  }

  const ACK_ANSWER = jsonAnswer(200, ACK);
  const DUPLICATE_ANSWER = jsonAnswer(200, ACK_DUPLICATE);

  function accept(accepted: AcceptedHead, body: RequestBody): HttpAnswer | Promise<HttpAnswer> {
    // One parse path for raw and pre-parsed bodies: JSON.parse without a reviver, then one
    // iterative walk that strips prototype keys and bounds the structure. Its verdict depends on
    // neither escapes nor depth (a reviver's recursion used to fail ~2,670-deep bodies).
    let payload: unknown;
    if ('raw' in body) {
      // Large bodies only (smaller ones cannot exceed the key and item bounds): refused before the
      // parse, which is where a wide 1 MiB body spends its time.
      if (body.raw.length > scanFrom) {
        const exceeded = scanJsonStructure(
          typeof body.raw === 'string' ? Buffer.from(body.raw) : body.raw,
          jsonLimits,
        );
        if (exceeded !== undefined) return tooComplex(accepted, exceeded);
      }
      try {
        payload = parseJsonText(body.raw);
      } catch (error) {
        return invalid(accepted, accepted.type, undefined, new InvalidJsonError({ cause: error }));
      }
    } else {
      payload = body.parsed;
    }
    const inspection = inspectJson(payload, jsonLimits);
    if (inspection.sanitized)
      logger.warn({ requestId: accepted.requestId }, 'prototype keys dropped from payload');
    if (inspection.exceeded !== undefined) return tooComplex(accepted, inspection.exceeded);

    const type = accepted.type ?? detectWebhookType(payload);
    if (accepted.type === undefined && type !== undefined) {
      // The auto-detecting endpoint counted the request as unknown until now.
      stats.inc('unknown', 'received', -1);
      stats.inc(type, 'received');
    }
    if (type === undefined) return invalid(accepted, undefined, payload, new UnknownWebhookTypeError());
    const parsed = parseWebhook(type, payload, parseOptions);
    if (!parsed.success)
      return invalid(accepted, type, payload, new InvalidPayloadError(type, parsed.issues));
    if (parsed.unlisted.length > 0) {
      stats.inc(type, 'unlistedEnumValues', parsed.unlisted.length);
      // The value is sender-controlled (it could be a phone number or a text): its field, length
      // and a logRef (equal values, equal refs) say enough to notice a new platform value.
      logger.warn(
        {
          requestId: accepted.requestId,
          type,
          unlisted: redactLogs
            ? parsed.unlisted.map(({ field, value }) => ({ field, length: value.length, ref: logRef(value) }))
            : parsed.unlisted,
        },
        'undocumented enum value accepted',
      );
    }
    if (!enqueueEveryType && !runner.handles(type)) {
      stats.inc(type, 'acked');
      answered(type, 200, 'ok', accepted.startedAt, accepted.span);
      return ACK_ANSWER;
    }

    const identity = dedupeKeyOf[type]?.(parsed.data);
    const job: WebhookJob = {
      type,
      payload: parsed.data,
      requestId: accepted.requestId,
      receivedAt: accepted.receivedAt,
      orderingKey: (ORDERING_KEYS[type] as (p: unknown) => string)(parsed.data),
      // A digest of the identity, never the identity: fixed size, no personal data (issue 16).
      dedupeKey: identity === undefined ? undefined : digestDedupeKey(type, identity),
      payloadVersion: parsed.payloadVersion,
    };
    const dedupeKey = job.dedupeKey;
    if (dedupeKey === undefined) return dispatch(job, false, accepted);
    const claimed = claimOf(dedupeKey);
    return claimed instanceof Promise
      ? claimed.then((outcome) => afterClaim(job, outcome, accepted))
      : afterClaim(job, claimed, accepted);
  }

  /**
   * Answers a duplicate, asks the sender to retry while another request holds the claim, refuses
   * when the store failed (unless failing open), else enqueues.
   */
  function afterClaim(
    job: WebhookJob,
    outcome: boolean | 'held' | 'failed',
    accepted: AcceptedHead,
  ): HttpAnswer | Promise<HttpAnswer> {
    const { type } = job;
    if (outcome === false) {
      stats.inc(type, 'duplicates');
      stats.inc(type, 'acked');
      answered(type, 200, 'duplicate', accepted.startedAt, accepted.span);
      // The key holds phone numbers and texts: logged as a logRef, and only when debug is on.
      if (logger.isLevelEnabled('debug')) {
        const key = job.dedupeKey ?? '';
        logger.debug(
          redactLogs
            ? { requestId: job.requestId, type, eventRef: logRef(key) }
            : { requestId: job.requestId, type, dedupeKey: key },
          'duplicate webhook acknowledged',
        );
      }
      return DUPLICATE_ANSWER;
    }
    if (outcome === 'held') {
      // Two deliveries of one event at two instances at once (a sender's retry racing its first
      // attempt): the store is healthy, so a warning, not an error; the key only as a logRef.
      stats.inc(type, 'rejected');
      const error = new ClaimHeldError(retryAfter);
      answered(type, error.status, error.code, accepted.startedAt, accepted.span);
      logger.warn(
        redactLogs
          ? { requestId: job.requestId, type, eventRef: logRef(job.dedupeKey ?? '') }
          : { requestId: job.requestId, type, dedupeKey: job.dedupeKey },
        'event claimed by another request: answered 503 claim_held, the sender retries',
      );
      return toErrorResponse(error);
    }
    if (outcome === 'failed' && !failOpen) {
      stats.inc(type, 'rejected');
      const error = new StoreUnavailableError(retryAfter);
      answered(type, error.status, error.code, accepted.startedAt, accepted.span);
      return toErrorResponse(error);
    }
    return dispatch(job, outcome === true, accepted);
  }

  /** Enqueues an accepted job; a claim is confirmed once it is queued, released if it is not. */
  function dispatch(
    job: WebhookJob,
    claimed: boolean,
    accepted: AcceptedHead,
  ): HttpAnswer | Promise<HttpAnswer> {
    // Traced: the job carries the receive span's context to the worker that runs it.
    if (accepted.span !== undefined && probe.tracer !== undefined)
      job = probe.tracer.dispatching(accepted.span, job, claimed);
    probe.observer?.enqueuing?.(job);
    const outcome = guarded('enqueue', enqueue, job);
    return outcome instanceof Promise
      ? outcome.then((value) => afterEnqueue(job, claimed, value, accepted))
      : afterEnqueue(job, claimed, outcome, accepted);
  }

  function afterEnqueue(
    job: WebhookJob,
    claimed: boolean,
    outcome: EnqueueOutcome | 'failed',
    accepted: AcceptedHead,
  ): HttpAnswer | Promise<HttpAnswer> {
    const { startedAt, span } = accepted;
    const key = claimed ? job.dedupeKey : undefined;
    if (outcome !== 'accepted') {
      stats.inc(job.type, 'rejected');
      probe.observer?.jobSettled?.(job);
      const error =
        outcome === 'full'
          ? new QueueFullError(retryAfter)
          : outcome === 'closed'
            ? new ShuttingDownError(retryAfter)
            : new StoreUnavailableError(retryAfter);
      answered(job.type, error.status, error.code, startedAt, span);
      // Not enqueued: forget the claim so the sender's retry is not swallowed as a duplicate.
      const released = key === undefined ? undefined : guarded('dedupe release', release, key);
      return chain(released, () => toErrorResponse(error));
    }
    if (key === undefined || !store?.confirm) {
      stats.inc(job.type, 'acked');
      answered(job.type, 200, 'ok', startedAt, span);
      return ACK_ANSWER;
    }
    // The job is queued: a claim that cannot be confirmed stays a lease that expires on its own.
    return chain(guarded('dedupe confirm', confirm, key), () => {
      stats.inc(job.type, 'acked');
      answered(job.type, 200, 'ok', startedAt, span);
      return ACK_ANSWER;
    });
  }

  /**
   * After a close that timed out: the accepted events not run yet go to `onUnfinished` (awaited,
   * so a spill file is on disk before close resolves). Without `onUnfinished` they stay queued
   * and keep running while the process lives; the count is logged either way.
   */
  async function handOverUnfinished(): Promise<void> {
    const onUnfinished = options.onUnfinished;
    const total = stats.snapshot((type) => dispatcher.counts(type)).total;
    if (onUnfinished === undefined || dispatcher.withdraw === undefined) {
      logger.warn(
        { queued: total.queued, running: total.running },
        'close timed out: accepted events not finished (set onUnfinished to keep them)',
      );
      return;
    }
    const jobs = dispatcher.withdraw();
    logger.warn(
      { unfinished: jobs.length, running: total.running },
      'close timed out: events not run handed to onUnfinished; running callbacks may still finish',
    );
    if (jobs.length === 0) return;
    // Forget their claims: a replay of the spill, or the sender's redelivery, must run them.
    const releases: Promise<unknown>[] = [];
    for (const { job } of jobs) {
      if (job.dedupeKey === undefined) continue;
      const released = guarded('dedupe forget', forget, job.dedupeKey);
      if (released instanceof Promise) releases.push(released);
    }
    await Promise.all(releases);
    try {
      await onUnfinished(jobs);
    } catch (error) {
      logger.error({ err: error, unfinished: jobs.length }, 'onUnfinished failed: these events are lost');
    }
  }

  return {
    bodyLimit,
    bodyTimeoutMs,
    logger,
    head,
    accept,
    refuse(accepted, error) {
      // Without a head, the request never passed head(), which counts it received.
      if (accepted === undefined) stats.inc('unknown', 'received');
      refuse(accepted?.type ?? 'unknown', error, accepted);
      return toErrorResponse(error);
    },
    async close(timeoutMs) {
      closing = true;
      const drained = await dispatcher.close(timeoutMs);
      if (!drained) await handOverUnfinished();
      await deadLetters?.close().catch((error: unknown) => {
        logger.error({ err: error, file: deadLetters.file }, 'dead-letter file failed');
      });
      await Promise.all(forgetting);
      await store?.close?.();
      return drained;
    },
    stats: () => stats.snapshot((type) => dispatcher.counts(type)),
    idle: () => dispatcher.idle(),
    health() {
      const { total } = stats.snapshot((type) => dispatcher.counts(type));
      const unfinished = total.queued + total.running;
      const reasons: string[] = [];
      if (closing) reasons.push('closing');
      // Turns false before the queue is full, so a load balancer drains this instance before it
      // has to answer 503 (issue 15).
      if (queueThreshold !== undefined && unfinished >= queueThreshold) reasons.push('queue_over_threshold');
      // A store or dispatcher with a health() of its own (the Redis ones: `redis_unreachable`).
      for (const part of [store, dispatcher]) {
        const more: unknown = part?.health?.().reasons;
        // a store or dispatcher of the user's may answer anything: strings only, each once
        if (!Array.isArray(more)) continue;
        for (const reason of more as unknown[]) {
          if (typeof reason === 'string' && !reasons.includes(reason)) reasons.push(reason);
        }
      }
      return { ready: reasons.length === 0, reasons, closing, unfinished, queueThreshold };
    },
    observe(observer) {
      probe.observer = observer;
    },
    trace(tracer) {
      probe.tracer = tracer;
    },
  };
}
