import type { Logger } from 'pino';
import type { DeliveryStateChange } from '../delivery/tracker.js';
import type { ChatbotPayloadVersion, WebhookPayloads, WebhookType } from '../schemas/index.js';

/**
 * One accepted webhook, as it waits for its callback. Plain data, so a durable queue (BullMQ)
 * can store it as JSON.
 */
export interface WebhookJob<T extends WebhookType = WebhookType> {
  readonly type: T;
  readonly payload: WebhookPayloads[T];
  /** Request id: the sender's `x-request-id` header, else a fresh UUID. */
  readonly requestId: string;
  /** Unix milliseconds when the request arrived. */
  readonly receivedAt: number;
  /** Jobs with one ordering key run one at a time, in arrival order. */
  readonly orderingKey: string;
  /** The event's identity, when it is deduplicated. */
  readonly dedupeKey?: string | undefined;
  /** Chatbot events: the payload version. */
  readonly payloadVersion?: ChatbotPayloadVersion | undefined;
  /**
   * The trace context of the request's `webhook receive` span (W3C `traceparent`/`tracestate`),
   * set only while the receiver is traced (`messaging-webhooks/otel`): how a worker, in this or
   * another process, links its `webhook process` spans to the receiver's.
   */
  readonly trace?: Readonly<Record<string, string>> | undefined;
}

/** What a callback is handed beside the payload. */
export interface WebhookContext<T extends WebhookType = WebhookType> {
  readonly type: T;
  readonly receivedAt: Date;
  readonly requestId: string;
  /** A child of the router's logger carrying requestId, type and the event's ids. */
  readonly logger: Logger;
  /** 1 on the first try, 2 on the first retry, ... */
  readonly attempt: number;
  readonly dedupeKey: string | undefined;
  readonly orderingKey: string;
  /** Chatbot events: v1 or v2. */
  readonly payloadVersion: T extends 'chatbot' ? ChatbotPayloadVersion : undefined;
  /** Status receipts: what the receipt did to the message's forward-only delivery state. */
  readonly delivery: T extends 'status' ? DeliveryStateChange | undefined : undefined;
}

/** A typed callback for one webhook type. Its returned promise is awaited; a throw is a failure. */
export type WebhookCallback<T extends WebhookType> = (
  payload: WebhookPayloads[T],
  ctx: WebhookContext<T>,
) => unknown;

/**
 * A job of one of the five types, discriminated by `type`: `if (job.type === 'incoming')` narrows
 * `job.payload` to an incoming message.
 */
export type AnyWebhookJob = { [T in WebhookType]: WebhookJob<T> }[WebhookType];

/** An event whose callback failed on every attempt. */
export interface DeadLetter {
  /** Narrow it on `job.type` to reach its payload's fields. */
  readonly job: AnyWebhookJob;
  readonly error: unknown;
  readonly attempts: number;
}

/**
 * An accepted (answered 200) event that had not run when `close(timeoutMs)` timed out: queued,
 * or waiting for a retry. Handed to `onUnfinished`, so it can be kept and replayed.
 */
export interface UnfinishedJob {
  /** Narrow it on `job.type` to reach its payload's fields. */
  readonly job: AnyWebhookJob;
  /** Attempts already made: 0 when it never started, more when it failed and awaited a retry. */
  readonly attempts: number;
}

/** A payload that failed validation, handed over so nothing vanishes silently. */
export interface InvalidPayload {
  /** The webhook type (from the path, or detected); undefined when it could not be told. */
  readonly type: WebhookType | undefined;
  /** The parsed JSON body. */
  readonly payload: unknown;
  readonly issues: readonly { readonly path: string; readonly message: string }[];
  readonly requestId: string;
  readonly receivedAt: Date;
}

/** The user's callbacks. */
export interface WebhookHandlers {
  readonly onIncoming?: WebhookCallback<'incoming'> | undefined;
  readonly onStatus?: WebhookCallback<'status'> | undefined;
  readonly onSession?: WebhookCallback<'session'> | undefined;
  readonly onEvent?: WebhookCallback<'event'> | undefined;
  readonly onChatbot?: WebhookCallback<'chatbot'> | undefined;
  /** Called on every failed callback attempt, with `willRetry` telling whether another follows. */
  readonly onError?:
    ((error: unknown, ctx: WebhookContext & { readonly willRetry: boolean }) => unknown) | undefined;
  /** Called once for an event whose callback failed on every attempt. */
  readonly onDeadLetter?: ((deadLetter: DeadLetter) => unknown) | undefined;
  /** Called for a payload that failed validation (answered 400). */
  readonly onInvalid?: ((invalid: InvalidPayload) => unknown) | undefined;
}

/** Backoff between attempts, in the shape BullMQ uses. */
export interface BackoffOptions {
  /** `fixed`: `delay` every time; `exponential`: `delay * 2^(attempt-1)`. @default 'exponential' */
  readonly type?: 'fixed' | 'exponential' | undefined;
  /** Milliseconds. @default 1000 */
  readonly delay?: number | undefined;
  /** Upper bound of one wait, in milliseconds. @default 60_000 */
  readonly maxDelay?: number | undefined;
}

export interface RetryOptions {
  /** Total attempts per event, the first included; 1 disables retries. @default 3 */
  readonly attempts?: number | undefined;
  readonly backoff?: BackoffOptions | undefined;
}

/** The outcome of offering a job to a dispatcher. */
export type EnqueueOutcome = 'accepted' | 'full' | 'closed';

/** Per-type gauges a dispatcher reports. */
export interface DispatcherCounts {
  readonly queued: number;
  readonly running: number;
}

/** Readiness of one part of a receiver (a dedupe store, a dispatcher, a worker). */
export interface ComponentHealth {
  readonly ready: boolean;
  /** Why not ready (`redis_unreachable`, `worker_not_running`); empty when ready. */
  readonly reasons: readonly string[];
}

/**
 * Runs accepted jobs through the callbacks. The in-memory dispatcher (p-queue) is the default;
 * `messaging-webhooks/redis` provides a durable one on BullMQ.
 */
export interface Dispatcher {
  /** Takes a job. Resolves `accepted` only once the job will not be lost while the process is up (or durably stored). */
  enqueue(job: WebhookJob): EnqueueOutcome | Promise<EnqueueOutcome>;
  /** Resolves when no job is queued, running or waiting for a retry. */
  idle(): Promise<void>;
  /** Stops taking jobs; waits up to `timeoutMs` for the accepted ones. Resolves true when all finished. */
  close(timeoutMs?: number): Promise<boolean>;
  /**
   * After a `close` that timed out: takes every accepted job that is not running (queued, or
   * waiting for a retry) out of the dispatcher, so none of them runs from now on, and returns
   * them. A callback running at that moment is left to finish; should it fail, it is
   * dead-lettered rather than retried (it cannot be both run and handed over). A durable
   * dispatcher (BullMQ) has nothing to hand over and leaves this out.
   */
  withdraw?(): readonly UnfinishedJob[];
  /** Current gauges per type. */
  counts(type: WebhookType): DispatcherCounts;
  /** Readiness, synchronously; `router.health()` adds its reasons. Optional. */
  health?(): ComponentHealth;
}
