// The pipeline's public types: what adapters hand it, what it answers, and who may watch it.
import type { Logger } from 'pino';
import type { JobObserver, JobTracer, WebhookJob } from '../dispatch/index.js';
import type { HttpAnswer, WebhookError } from '../errors.js';
import type { WebhookType } from '../schemas/index.js';
import type { StatsBucket, WebhookStats } from './stats.js';

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
  /**
   * The request's Content-Length as a number, already checked against the body limit; NaN without
   * one (a chunked body) or when it is not a number. Read once, here, for the adapter's body read.
   */
  readonly declaredLength: number;
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
 * Adapters supply the request head and body and write the answer, through the seam of
 * `messaging-webhooks/adapter` (`serve`), as the built-in ones do (Express, node:http, fetch,
 * Fastify, Hono, Lambda; Cloudflare Workers through fetch).
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
