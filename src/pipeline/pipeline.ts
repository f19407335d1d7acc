import type { Logger } from 'pino';
import { deadLettersToJsonl } from '../capture/jsonl.js';
import { deliveryTrackerFor } from '../delivery/tracker.js';
import {
  createMemoryDedupeStore,
  DEFAULT_DEDUPE_KEYS,
  type DedupeKeyFn,
  type DedupeStore,
} from '../dedupe/index.js';
import {
  createJobRunner,
  createMemoryDispatcher,
  DEFAULT_MAX_QUEUE_SIZE,
  type Dispatcher,
  type JobRunner,
} from '../dispatch/index.js';
import { toErrorResponse } from '../errors.js';
import { createLibraryLogger, redactsLogs } from '../logger.js';
import { WEBHOOK_TYPES, type WebhookType } from '../schemas/index.js';
import { createAdmit } from './admit.js';
import { createAnswers } from './answers.js';
import { createStoreCalls } from './calls.js';
import { createHeadCheck } from './head.js';
import { createLifecycle, type Lifecycle } from './lifecycle.js';
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_ENQUEUE_TIMEOUT_MS,
  DEFAULT_HEALTH_QUEUE_SHARE,
  DEFAULT_RETRY_AFTER_SECONDS,
  jsonLimitsOf,
  validatePipelineOptions,
  type PipelineOptionsCheck,
  type WebhookPipelineOptions,
} from './options.js';
import { createPayloadCheck } from './payload.js';
import type { PipelineState } from './state.js';
import { createStatsRecorder } from './stats.js';
import type { WebhookPipeline } from './types.js';

export type {
  AcceptedHead,
  RequestBody,
  RequestHead,
  RequestTracer,
  WebhookHealth,
  WebhookObserver,
  WebhookPipeline,
} from './types.js';
export { CLAIM_PENDING_CODE } from './calls.js';

/**
 * Creates the pipeline behind every adapter, assembled from its stages: head checks (head.ts),
 * payload (payload.ts), admit (admit.ts) with its guarded calls to the dedupe store and the
 * dispatcher (calls.ts), answers (answers.ts), lifecycle (lifecycle.ts). An adapter passes `check`
 * to be named in construction errors and to declare the options it adds.
 *
 * @example
 * const pipeline = createWebhookPipeline({ onChatbot: async (event, ctx) => reply(event) });
 */
export function createWebhookPipeline(
  options: WebhookPipelineOptions,
  check?: PipelineOptionsCheck,
): WebhookPipeline {
  validatePipelineOptions(options, check);
  const logger: Logger = createLibraryLogger(options, 'messaging-webhooks');
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
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
  const stats = createStatsRecorder();
  const state: PipelineState = {
    options,
    logger,
    redactLogs: redactsLogs(options),
    stats,
    probe: { observer: undefined, tracer: undefined },
    retryAfter: options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS,
    closing: false,
  };
  const { probe, redactLogs } = state;

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
              lifecycle.keepDeadLetter(deadLetter);
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

  const answers = createAnswers(state);
  const calls = createStoreCalls(
    state,
    store,
    dispatcher,
    options.enqueueTimeoutMs ?? DEFAULT_ENQUEUE_TIMEOUT_MS,
  );
  const head = createHeadCheck(state, answers, bodyLimit);
  const checkPayload = createPayloadCheck(state, answers, jsonLimitsOf(options));
  const admit = createAdmit(state, answers, calls, {
    runner,
    confirms: store?.confirm !== undefined,
    dedupeKeyOf,
    failOpen,
    enqueueEveryType,
  });
  const lifecycle: Lifecycle = createLifecycle(state, calls, {
    store,
    dispatcher,
    deadLetters,
    queueThreshold,
  });

  return {
    bodyLimit,
    bodyTimeoutMs,
    logger,
    head,
    accept(accepted, body) {
      const valid = checkPayload(accepted, body);
      return 'success' in valid ? admit(accepted, valid) : valid;
    },
    refuse(accepted, error) {
      // Without a head, the request never passed head(), which counts it received.
      if (accepted === undefined) stats.inc('unknown', 'received');
      answers.refuse(accepted?.type ?? 'unknown', error, accepted);
      return toErrorResponse(error);
    },
    close: lifecycle.close,
    stats: lifecycle.stats,
    idle: () => dispatcher.idle(),
    health: lifecycle.health,
    observe(observer) {
      probe.observer = observer;
    },
    trace(tracer) {
      probe.tracer = tracer;
    },
  };
}
