import type { JsonlSink } from '../capture/jsonl.js';
import type { CaptureSink } from '../capture/types.js';
import type { StatusTrackingOption } from '../delivery/tracker.js';
import type { DedupeKeyFn, DedupeStore } from '../dedupe/index.js';
import type {
  BackoffOptions,
  Dispatcher,
  JobRunner,
  RetryOptions,
  UnfinishedJob,
  WebhookHandlers,
} from '../dispatch/index.js';
import type { LoggerOptions } from '../logger.js';
import { DEFAULT_JSON_LIMITS, type JsonLimits } from './json.js';
import { WEBHOOK_TYPES, type ChatbotPayloadVersion, type WebhookType } from '../schemas/index.js';
import { checkNestedKeys, checkOptions, optionKeys, positiveInteger } from '../util/options.js';

// Defined in src/capture/types.ts; here for the pipeline's barrel, beside the `capture` option.
export type { CaptureRecord, CaptureSink } from '../capture/types.js';

/** Deduplication settings. */
export interface DedupeOptions {
  /** Keys remembered by the default in-memory store. @default 100_000 */
  readonly max?: number | undefined;
  /** How long the default store remembers a key, in milliseconds; covers the sender's retries. @default 3 days */
  readonly ttlMs?: number | undefined;
  /** Another store (e.g. the Redis store of `messaging-webhooks/redis`). @default the in-memory store (`createMemoryDedupeStore`) */
  readonly store?: DedupeStore | undefined;
  /** Which types are deduplicated. @default all five (chatbot by eventId; see DEFAULT_DEDUPE_KEYS) */
  readonly types?: Partial<Record<WebhookType, boolean>> | undefined;
  /** Replaces the identity function of a type. */
  readonly keys?: { readonly [T in WebhookType]?: DedupeKeyFn<T> } | undefined;
  /**
   * When the store fails (Redis unreachable): `reject` answers 503 so the sender retries (no
   * duplicate can slip through); `dispatch` accepts the event undeduplicated (nothing waits, but
   * a redelivery may run twice). @default 'reject'
   */
  readonly onStoreError?: 'reject' | 'dispatch' | undefined;
}

/**
 * Options of the webhook pipeline, shared by every adapter: `createWebhookRouter` (Express),
 * `createNodeHandler` (node:http), `createFetchHandler` and the Fastify plugin.
 */
export interface WebhookPipelineOptions extends WebhookHandlers, LoggerOptions {
  /**
   * Shared secret(s). The platform does not sign webhooks, so put a token in the URL you
   * configure: as a path segment (`/webhooks/<token>/chatbot`), a query parameter (`?token=`) or
   * the `tokenHeader` header. Several tokens are accepted at once, for rotation. Compared in
   * constant time. `false` accepts requests without a token on purpose (e.g. behind a gateway
   * that authenticates). Left undefined (an unset `process.env.WEBHOOK_TOKEN`, say), the endpoint
   * is open as well, but the pipeline logs a warning at construction saying so.
   * @default undefined (no authentication, with a start-up warning)
   */
  readonly token?: string | readonly string[] | false | undefined;
  /** Header carrying the token. @default 'x-webhook-token' */
  readonly tokenHeader?: string | undefined;
  /** Query parameter carrying the token. @default 'token' */
  readonly tokenQueryParam?: string | undefined;
  /** Largest accepted body, in bytes. @default 1_048_576 (1 MiB) */
  readonly bodyLimit?: number | undefined;
  /**
   * Longest wait for a whole request body, in milliseconds, from the moment its head passed the
   * checks: a body trickled slowly, or shorter than its Content-Length, is answered 408 and its
   * connection closed. Bodies an upstream parser read (`express.json()`) are not covered: set the
   * server's `requestTimeout` (docs/receiver.md, "Production: server timeouts"). @default 10_000
   */
  readonly bodyTimeoutMs?: number | undefined;
  /**
   * Deepest nesting of objects and arrays in a body (the root is depth 1); deeper bodies get 400
   * `payload_too_complex`. `Infinity` turns the bound off. @default 32
   */
  readonly maxJsonDepth?: number | undefined;
  /** Object keys in a whole body before 400 `payload_too_complex`. @default 1000 */
  readonly maxJsonKeys?: number | undefined;
  /** Array items in a whole body before 400 `payload_too_complex`. @default 1000 */
  readonly maxJsonItems?: number | undefined;
  /** Callbacks running at once (in-memory dispatcher). @default 16 */
  readonly concurrency?: number | undefined;
  /** Accepted-but-unfinished events before new ones get 503 + Retry-After. @default 10_000 */
  readonly maxQueueSize?: number | undefined;
  /**
   * Unfinished events (queued, running, waiting for a retry) at which `health()` reports not ready,
   * so a load balancer drains the instance before the queue is full and answers 503. Applies to
   * the in-memory queue by default; with a `dispatcher` of your own, only when set.
   * @default 80 % of `maxQueueSize`, rounded up
   */
  readonly healthQueueThreshold?: number | undefined;
  /** Retries of a failing callback. @default { attempts: 3, backoff: { type: 'exponential', delay: 1000 } } */
  readonly retry?: RetryOptions | undefined;
  /** Fail an attempt whose callback has not settled after this many ms. @default undefined (no limit) */
  readonly callbackTimeoutMs?: number | undefined;
  /** Deduplication; `false` turns it off for every type. */
  readonly dedupe?: DedupeOptions | false | undefined;
  /**
   * Replaces the in-memory dispatcher (e.g. BullMQ from `messaging-webhooks/redis`). A factory
   * receives the job runner that calls this pipeline's callbacks. A dispatcher given as an object
   * receives every webhook type (its workers, elsewhere, decide what to run), so a receiver-only
   * process needs no callbacks.
   */
  readonly dispatcher?: Dispatcher | ((runner: JobRunner) => Dispatcher) | undefined;
  /**
   * Longest wait for an asynchronous dedupe store or dispatcher before answering 503, well
   * inside the platform's 5-second budget. @default 2000
   */
  readonly enqueueTimeoutMs?: number | undefined;
  /** Retry-After seconds on 503 answers. @default 5 */
  readonly retryAfterSeconds?: number | undefined;
  /** Validate chatbot events as this payload version instead of detecting it from the payload. */
  readonly chatbotPayloadVersion?: ChatbotPayloadVersion | undefined;
  /**
   * Track each outbound message's forward-only delivery state and hand it to `onStatus` as
   * `ctx.delivery`; `false` turns it off. @default { max: 100_000 }
   */
  readonly statusTracking?: StatusTrackingOption;
  /** Records every received request (for replay); see {@link CaptureSink}. @default undefined */
  readonly capture?: CaptureSink | undefined;
  /**
   * Called when `close(timeoutMs)` times out, with every acknowledged event that has not run
   * (queued, or waiting for a retry), before `close` resolves; a returned promise is awaited.
   * These events will not run in this process: keep them, e.g. with `spillToJsonl(file)`, whose
   * file `messaging-webhooks replay` sends again after the restart. A callback still running at
   * that moment is not handed over: it may finish, and if it fails it is dead-lettered instead
   * of retried. Without this option the events stay queued (lost if the process exits). The
   * BullMQ dispatcher keeps its jobs in Redis and hands nothing over. @default undefined
   */
  readonly onUnfinished?: ((jobs: readonly UnfinishedJob[]) => unknown) | undefined;
  /**
   * Also writes every dead letter (an event whose callback failed on every attempt; `onDeadLetter`
   * is still called) to a JSONL file in the capture format, so that after the fix
   * `messaging-webhooks replay <file> --to <url>` runs the events again. A path is opened at the
   * first dead letter and closed by `close()`; a `JsonlSink` (`createJsonlSink`, e.g. one shared
   * with `spillToJsonl`) is flushed by `close()` and left open. Once its line is written, the
   * event's dedupe claim is forgotten (as for the shutdown spill; the store's `forget`, else
   * `release`), so the replay is not answered as a duplicate, also by other instances sharing a
   * Redis dedupe store. With the BullMQ dispatcher dead letters go to Redis instead (`dlq` commands).
   * @default undefined
   */
  readonly deadLetterSink?: string | JsonlSink | undefined;
}

export const DEFAULT_BODY_LIMIT = 1_048_576;
export const DEFAULT_ENQUEUE_TIMEOUT_MS = 2000;
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRY_AFTER_SECONDS = 5;
/** Share of `maxQueueSize` at which `health()` turns not ready (`healthQueueThreshold`). */
export const DEFAULT_HEALTH_QUEUE_SHARE = 0.8;

const positiveIntegerOption = (name: string, value: number | undefined): void => {
  if (value !== undefined) positiveInteger(name, value);
};

/** The accepted tokens as a list (none, one, or several during a rotation). */
export function tokensOf(options: Pick<WebhookPipelineOptions, 'token'>): readonly string[] {
  return options.token === undefined || options.token === false
    ? []
    : typeof options.token === 'string'
      ? [options.token]
      : options.token;
}

/** A positive integer, or Infinity (no bound). */
const positiveLimit = (name: string, value: number | undefined): void => {
  if (value !== undefined && value !== Infinity && (!Number.isInteger(value) || value < 1)) {
    throw new TypeError(`${name}: expected a positive integer or Infinity, got ${String(value)}`);
  }
};

/** The structural bounds of a JSON body, defaults filled in. */
export function jsonLimitsOf(
  options: Pick<WebhookPipelineOptions, 'maxJsonDepth' | 'maxJsonKeys' | 'maxJsonItems'>,
): JsonLimits {
  return {
    maxDepth: options.maxJsonDepth ?? DEFAULT_JSON_LIMITS.maxDepth,
    maxKeys: options.maxJsonKeys ?? DEFAULT_JSON_LIMITS.maxKeys,
    maxItems: options.maxJsonItems ?? DEFAULT_JSON_LIMITS.maxItems,
  };
}

/** The callback names of {@link WebhookHandlers}. */
export const WEBHOOK_HANDLER_KEYS = optionKeys<WebhookHandlers>()([
  'onIncoming',
  'onStatus',
  'onSession',
  'onEvent',
  'onChatbot',
  'onError',
  'onDeadLetter',
  'onInvalid',
]);

/** The keys of {@link WebhookPipelineOptions}; anything else throws at construction. */
export const PIPELINE_OPTION_KEYS = optionKeys<WebhookPipelineOptions>()([
  ...WEBHOOK_HANDLER_KEYS,
  'logger',
  'redactLogs',
  'token',
  'tokenHeader',
  'tokenQueryParam',
  'bodyLimit',
  'concurrency',
  'maxQueueSize',
  'healthQueueThreshold',
  'retry',
  'callbackTimeoutMs',
  'dedupe',
  'dispatcher',
  'enqueueTimeoutMs',
  'retryAfterSeconds',
  'chatbotPayloadVersion',
  'statusTracking',
  'capture',
  'onUnfinished',
  'deadLetterSink',
  'bodyTimeoutMs',
  'maxJsonDepth',
  'maxJsonKeys',
  'maxJsonItems',
]);

/** The keys of {@link DedupeOptions}. */
export const DEDUPE_OPTION_KEYS = optionKeys<DedupeOptions>()([
  'max',
  'ttlMs',
  'store',
  'types',
  'keys',
  'onStoreError',
]);

/** The keys of {@link RetryOptions} (the pipeline's and the BullMQ worker's `retry`). */
export const RETRY_OPTION_KEYS = optionKeys<RetryOptions>()(['attempts', 'backoff']);

/** The keys of {@link BackoffOptions}. */
export const BACKOFF_OPTION_KEYS = optionKeys<BackoffOptions>()(['type', 'delay', 'maxDelay']);

/** The keys of the object form of {@link StatusTrackingOption}. */
export const STATUS_TRACKING_OPTION_KEYS = optionKeys<Exclude<StatusTrackingOption, false | undefined>>()([
  'max',
]);

/** How an adapter over the pipeline is named in construction errors, and the options it adds. */
export interface PipelineOptionsCheck {
  /** The factory named in errors. @default 'createWebhookPipeline' */
  readonly factory?: string | undefined;
  /** Option keys the adapter takes besides the pipeline's (e.g. `basePath`). @default [] */
  readonly extraKeys?: readonly string[] | undefined;
}

/**
 * Validates options at construction; throws a TypeError naming what was expected: an unknown
 * key (with the closest known name), a logger that is not pino-compatible, a wrong value.
 */
export function validatePipelineOptions(
  options: WebhookPipelineOptions,
  check: PipelineOptionsCheck = {},
): void {
  const factory = check.factory ?? 'createWebhookPipeline';
  checkOptions(
    factory,
    options,
    check.extraKeys === undefined ? PIPELINE_OPTION_KEYS : [...PIPELINE_OPTION_KEYS, ...check.extraKeys],
  );
  checkNestedKeys(factory, 'retry', options.retry, RETRY_OPTION_KEYS);
  checkNestedKeys(factory, 'retry.backoff', options.retry?.backoff, BACKOFF_OPTION_KEYS);
  checkNestedKeys(factory, 'statusTracking', options.statusTracking, STATUS_TRACKING_OPTION_KEYS);
  checkNestedKeys(factory, 'dedupe', options.dedupe, DEDUPE_OPTION_KEYS);
  if (options.dedupe) {
    checkNestedKeys(factory, 'dedupe.types', options.dedupe.types, WEBHOOK_TYPES);
    checkNestedKeys(factory, 'dedupe.keys', options.dedupe.keys, WEBHOOK_TYPES);
  }
  positiveIntegerOption('bodyLimit', options.bodyLimit);
  positiveIntegerOption('enqueueTimeoutMs', options.enqueueTimeoutMs);
  positiveIntegerOption('callbackTimeoutMs', options.callbackTimeoutMs);
  positiveIntegerOption('bodyTimeoutMs', options.bodyTimeoutMs);
  positiveIntegerOption('healthQueueThreshold', options.healthQueueThreshold);
  positiveLimit('maxJsonDepth', options.maxJsonDepth);
  positiveLimit('maxJsonKeys', options.maxJsonKeys);
  positiveLimit('maxJsonItems', options.maxJsonItems);
  if (options.retryAfterSeconds !== undefined && !(options.retryAfterSeconds >= 0)) {
    throw new TypeError(
      `retryAfterSeconds: expected a number >= 0, got ${String(options.retryAfterSeconds)}`,
    );
  }
  const tokens = tokensOf(options);
  if (!Array.isArray(tokens) || tokens.some((token) => typeof token !== 'string' || token === '')) {
    throw new TypeError(
      'token: expected a non-empty string, an array of non-empty strings, or false (no authentication)',
    );
  }
  for (const name of [...WEBHOOK_HANDLER_KEYS, 'onUnfinished'] as const) {
    const callback = options[name];
    if (callback !== undefined && typeof callback !== 'function') {
      throw new TypeError(`${name}: expected a function, got ${typeof callback}`);
    }
  }
  const sink = options.deadLetterSink;
  if (
    sink !== undefined &&
    (typeof sink === 'string' ? sink === '' : typeof sink?.writeRecord !== 'function')
  ) {
    throw new TypeError(
      `deadLetterSink: expected a non-empty path or a JsonlSink (createJsonlSink), got ${sink === '' ? '""' : typeof sink}`,
    );
  }
}
