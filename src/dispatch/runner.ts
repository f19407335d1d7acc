// Imported, not the global: Node 20's global `performance` is a getter, dearer per call than the
// module's binding on a path that reads the clock per job (figures: docs/bench.md).
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { DeliveryTracker } from '../delivery/tracker.js';
import { logRef } from '../logger.js';
import { callSafely } from '../util/call-safely.js';
import { withTimeout } from '../util/timeout.js';
import type { WebhookType } from '../schemas/index.js';
import type { StatsRecorder } from '../pipeline/stats.js';
import type { DeadLetter, WebhookCallback, WebhookContext, WebhookHandlers, WebhookJob } from './types.js';

/** A callback that did not settle within `callbackTimeoutMs`. */
class CallbackTimeoutError extends Error {
  readonly code = 'callback_timeout';
  constructor(readonly timeoutMs: number) {
    super(`Callback did not settle within ${timeoutMs} ms`);
  }
}

/**
 * Told about callback attempts; set only while something (the metrics collector) watches, so an
 * unwatched runner pays one property read per attempt.
 */
export interface JobObserver {
  /** An attempt settled (fulfilled, threw, rejected or timed out) after `seconds`. */
  callbackSettled(type: WebhookType, seconds: number): void;
  /** A failed attempt will be retried. */
  retried(type: WebhookType): void;
  /**
   * The job's callbacks are over: succeeded, or dead-lettered after its last attempt (or, told by
   * the pipeline, it was never queued). Optional: metrics do not need it.
   */
  jobSettled?(job: WebhookJob): void;
}

/**
 * Traces callback attempts (`messaging-webhooks/otel`); set, like the observer, only while tracing.
 * `attemptStarted` returns the attempt's scope (its span), or undefined to leave it untraced.
 */
export interface JobTracer {
  attemptStarted(job: WebhookJob, attempt: number): unknown;
  /** Calls `callback(payload, ctx)` with the attempt's scope current (its span the active one). */
  runAttempt(
    scope: unknown,
    callback: (payload: unknown, ctx: WebhookContext) => unknown,
    payload: unknown,
    ctx: WebhookContext,
  ): unknown;
  /** The attempt settled: fulfilled (`failed` false), or threw, rejected or timed out with `error`. */
  attemptSettled(scope: unknown, failed: boolean, error: unknown): void;
}

/** Where a runner looks for its observer on each attempt; the owner sets and clears `observer`. */
interface JobObserverSlot {
  readonly observer: JobObserver | undefined;
  /** Read on each attempt too: the tracer, while tracing. */
  readonly tracer?: JobTracer | undefined;
}

export interface JobRunnerOptions {
  readonly handlers: WebhookHandlers;
  readonly logger: Logger;
  readonly stats: StatsRecorder;
  /** Forward-only delivery state for status receipts; undefined disables tracking. */
  readonly tracker?: DeliveryTracker | undefined;
  /** Fail an attempt whose callback has not settled after this many milliseconds. @default undefined (wait forever) */
  readonly callbackTimeoutMs?: number | undefined;
  /**
   * Bind the dedupe key into `ctx.logger` as a pseudonymous `eventRef` (see `logRef`) rather than
   * as it is (it holds phone numbers, texts, ids). @default true
   */
  readonly redactLogs?: boolean | undefined;
  /** Read on each attempt: the observer to tell about it, when one is set. */
  readonly observe?: JobObserverSlot | undefined;
}

/**
 * Runs one job through its typed callback; shared by the in-memory dispatcher and the BullMQ
 * worker so both call callbacks the same way.
 */
export interface JobRunner {
  /** Whether any callback is registered for the type (no callback: nothing to enqueue). */
  handles(type: WebhookType): boolean;
  /**
   * Runs attempt `attempt` of `job`. A synchronous callback settles at once (returns undefined or
   * throws); an asynchronous one returns a promise that rejects with the callback's error.
   */
  run(job: WebhookJob, attempt: number): void | Promise<void>;
  /**
   * {@link run} in two halves, for a dispatcher that tracks settlement itself (one promise
   * reaction per job instead of two): `start` calls the callback and returns its promise (with
   * the callback timeout applied) or undefined when it settled at once; the caller reports a
   * fulfilled attempt with `succeeded`, a failed one with {@link failed}.
   */
  start(job: WebhookJob, attempt: number): void | Promise<unknown>;
  succeeded(job: WebhookJob): void;
  /** Records a failed attempt and tells `onError`. */
  failed(job: WebhookJob, error: unknown, attempt: number, willRetry: boolean): void;
  /** Records an event that exhausted its attempts and tells `onDeadLetter`. */
  deadLettered(deadLetter: DeadLetter): void;
}

type AnyCallback = (payload: unknown, ctx: WebhookContext) => unknown;

/**
 * A callback's context. The child logger and the Date are made on first use, by prototype
 * getters (no closures per job): most callbacks never read them, and a pino child serialises its
 * bindings when it is created, even at level silent.
 */
class JobContext implements WebhookContext {
  readonly type: WebhookType;
  readonly requestId: string;
  readonly dedupeKey: string | undefined;
  readonly orderingKey: string;
  readonly payloadVersion: WebhookContext['payloadVersion'];
  #logger: Logger | undefined;
  #receivedAt: Date | undefined;

  constructor(
    private readonly job: WebhookJob,
    readonly attempt: number,
    readonly delivery: WebhookContext['delivery'],
    private readonly parentLogger: Logger,
    private readonly redactLogs: boolean,
    /** Set on the context handed to `onError`. */
    readonly willRetry?: boolean,
  ) {
    this.type = job.type;
    this.requestId = job.requestId;
    this.dedupeKey = job.dedupeKey;
    this.orderingKey = job.orderingKey;
    this.payloadVersion = job.payloadVersion;
  }

  get receivedAt(): Date {
    return (this.#receivedAt ??= new Date(this.job.receivedAt));
  }

  /**
   * Bound: requestId (the sender's x-request-id header or a fresh UUID, never a payload value),
   * type, attempt, and `eventRef`, a keyed digest of the dedupe key that joins an event's lines
   * (its retries, its duplicates) without carrying its content. No payload value is bound: ids
   * such as eventId or gstId are sender-controlled strings of any length and content (bind them
   * yourself, e.g. `ctx.logger.child({ gstId })`, if yours are safe to log). With
   * `redactLogs: false`, the dedupe key itself is bound as `dedupeKey`.
   */
  get logger(): Logger {
    const { job } = this;
    return (this.#logger ??= this.parentLogger.child(
      this.redactLogs
        ? {
            requestId: job.requestId,
            type: job.type,
            eventRef: job.dedupeKey === undefined ? undefined : logRef(job.dedupeKey),
            attempt: this.attempt,
          }
        : { requestId: job.requestId, type: job.type, dedupeKey: job.dedupeKey, attempt: this.attempt },
    ));
  }
}

export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const { handlers, logger, stats, tracker, callbackTimeoutMs, observe } = options;
  const redactLogs = options.redactLogs !== false;
  const callbacks: Record<WebhookType, WebhookCallback<never> | undefined> = {
    incoming: handlers.onIncoming,
    status: handlers.onStatus,
    session: handlers.onSession,
    event: handlers.onEvent,
    chatbot: handlers.onChatbot,
  };
  // Delivery state moves once per job, not once per attempt: a retry sees the same change.
  const deliveryOf = new WeakMap<WebhookJob, WebhookContext['delivery']>();

  function contextOf(job: WebhookJob, attempt: number, willRetry?: boolean): JobContext {
    let delivery: WebhookContext['delivery'];
    if (job.type === 'status' && tracker) {
      delivery = deliveryOf.get(job);
      if (delivery === undefined) {
        const payload = job.payload as { gstId: string; status: string };
        delivery = tracker.apply(payload.gstId, payload.status);
        deliveryOf.set(job, delivery);
      }
    }
    return new JobContext(job, attempt, delivery, logger, redactLogs, willRetry);
  }

  const timed = (result: Promise<unknown>): Promise<unknown> =>
    withTimeout(result, callbackTimeoutMs, () => {
      throw new CallbackTimeoutError(callbackTimeoutMs ?? 0);
    });

  function start(job: WebhookJob, attempt: number): void | Promise<unknown> {
    const callback = callbacks[job.type] as AnyCallback | undefined;
    if (!callback) return undefined;
    if (observe !== undefined) {
      const { observer, tracer } = observe;
      // A tracer without an SDK gives no scope: the attempt then runs as an unwatched one.
      const scope = tracer?.attemptStarted(job, attempt);
      if (observer !== undefined || scope !== undefined)
        return startObserved(observer, tracer, scope, callback, job, attempt);
    }
    const result = callback(job.payload, contextOf(job, attempt));
    // A synchronous callback settles here: no promise, no microtask.
    if (!(result instanceof Promise)) return undefined;
    return timed(result);
  }

  /** {@link start} timed for an observer and traced; a separate function so the unwatched path stays as it was. */
  function startObserved(
    observer: JobObserver | undefined,
    tracer: JobTracer | undefined,
    scope: unknown,
    callback: AnyCallback,
    job: WebhookJob,
    attempt: number,
  ): void | Promise<unknown> {
    const { type } = job;
    const began = performance.now();
    const settle = (failed: boolean, error: unknown): void => {
      observer?.callbackSettled(type, (performance.now() - began) / 1000);
      if (scope !== undefined) tracer!.attemptSettled(scope, failed, error);
    };
    let result: unknown;
    try {
      const ctx = contextOf(job, attempt);
      result =
        scope === undefined
          ? callback(job.payload, ctx)
          : tracer!.runAttempt(scope, callback, job.payload, ctx);
    } catch (error) {
      settle(true, error);
      throw error;
    }
    if (!(result instanceof Promise)) {
      settle(false, undefined);
      return undefined;
    }
    const settled = timed(result);
    // A handled branch of its own: the caller still gets (and handles) `settled`'s rejection.
    settled.then(
      () => settle(false, undefined),
      (error: unknown) => settle(true, error),
    );
    return settled;
  }

  const succeeded = (job: WebhookJob): void => {
    stats.inc(job.type, 'succeeded');
    observe?.observer?.jobSettled?.(job);
  };

  return {
    handles: (type) => callbacks[type] !== undefined,
    run(job, attempt) {
      const result = start(job, attempt);
      if (result === undefined) return succeeded(job);
      return result.then(() => succeeded(job));
    },
    start,
    succeeded,
    failed(job, error, attempt, willRetry) {
      stats.inc(job.type, 'failed');
      if (willRetry) observe?.observer?.retried(job.type);
      const ctx = contextOf(job, attempt, willRetry);
      ctx.logger.warn({ err: error, willRetry }, 'webhook callback failed');
      if (handlers.onError) {
        const onError = handlers.onError;
        callSafely(logger, 'onError', () =>
          onError(error, ctx as WebhookContext & { readonly willRetry: boolean }),
        );
      }
    },
    deadLettered(deadLetter) {
      stats.inc(deadLetter.job.type, 'deadLettered');
      observe?.observer?.jobSettled?.(deadLetter.job);
      logger.error(
        { requestId: deadLetter.job.requestId, type: deadLetter.job.type, attempts: deadLetter.attempts },
        'webhook dead-lettered',
      );
      if (handlers.onDeadLetter) {
        const onDeadLetter = handlers.onDeadLetter;
        callSafely(logger, 'onDeadLetter', () => onDeadLetter(deadLetter));
      }
    },
  };
}
