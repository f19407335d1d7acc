import PQueue from 'p-queue';
import type { Logger } from 'pino';
import { deliveryTrackerFor, type StatusTrackingOption } from '../delivery/tracker.js';
import { backoffDelay } from '../dispatch/backoff.js';
import { createJobRunner } from '../dispatch/runner.js';
import type { AnyWebhookJob, BackoffOptions, WebhookHandlers, WebhookJob } from '../dispatch/types.js';
import { createLibraryLogger, type LoggerOptions } from '../logger.js';
import {
  BACKOFF_OPTION_KEYS,
  STATUS_TRACKING_OPTION_KEYS,
  WEBHOOK_HANDLER_KEYS,
} from '../pipeline/options.js';
import { createStatsRecorder, type WebhookStats } from '../pipeline/stats.js';
import { WEBHOOK_TYPES } from '../schemas/index.js';
import { checkNestedKeys, checkOptions, optionKeys, positiveInteger } from '../util/options.js';
import type { QueueBatch, QueueMessage } from './bindings.js';

/** Cloudflare Queues' default `max_retries` of a consumer. */
export const DEFAULT_QUEUE_MAX_RETRIES = 3;
const DEFAULT_CONCURRENCY = 16;
/** Longest delay Queues accepts for a retry, in seconds (12 hours). */
const MAX_DELAY_SECONDS = 43_200;

/** Options of {@link createQueueConsumer}. */
export interface QueueConsumerOptions extends LoggerOptions {
  /** The typed callbacks (`onIncoming`, `onChatbot`, ..., `onError`, `onDeadLetter`). */
  readonly handlers: WebhookHandlers;
  /**
   * The consumer's `max_retries` in wrangler.toml, which this handler cannot read: a message is
   * delivered at most `maxRetries + 1` times, and its last failure is the one handed to
   * `onDeadLetter` (Queues then moves it to the `dead_letter_queue`, or deletes it without one).
   * @default 3 (Queues' default)
   */
  readonly maxRetries?: number | undefined;
  /**
   * Delay before a failed message is delivered again, by attempt, in BullMQ's shape; rounded up to
   * whole seconds (Queues' `delaySeconds`, at most 12 hours). `false` leaves it to the consumer's
   * `retry_delay` in wrangler.toml. @default { type: 'exponential', delay: 1000, maxDelay: 60_000 }
   */
  readonly backoff?: BackoffOptions | false | undefined;
  /** Conversations of one batch whose callbacks run at once. @default 16 */
  readonly concurrency?: number | undefined;
  /** Fail an attempt whose callback has not settled after this many ms. @default undefined (no limit) */
  readonly callbackTimeoutMs?: number | undefined;
  /**
   * Track each outbound message's forward-only delivery state (`ctx.delivery`), in the isolate's
   * memory: receipts handled by another isolate are not seen. @default { max: 100_000 }
   */
  readonly statusTracking?: StatusTrackingOption;
}

/** The keys of {@link QueueConsumerOptions}; anything else throws at construction. */
const QUEUE_CONSUMER_OPTION_KEYS = optionKeys<QueueConsumerOptions>()([
  'handlers',
  'maxRetries',
  'backoff',
  'concurrency',
  'callbackTimeoutMs',
  'statusTracking',
  'logger',
  'redactLogs',
]);

/**
 * A Worker's `queue` handler running the events of {@link createQueuesDispatcher}: export it as
 * the `queue` of the Worker's default export. It also answers `stats()`, the counts of this
 * isolate.
 */
export type QueueConsumer = ((batch: QueueBatch, env?: unknown, ctx?: unknown) => Promise<void>) & {
  /** Counts per webhook type, of this isolate since it started. */
  stats(): WebhookStats;
};

/** A message of the batch and the job it carries. */
interface Delivery {
  readonly message: QueueMessage;
  readonly job: WebhookJob;
}

/** Whether a message body is a job as the dispatcher sends it (a type, an ordering key, a payload). */
function isJob(body: unknown): body is WebhookJob {
  if (typeof body !== 'object' || body === null) return false;
  const job = body as Partial<Record<keyof WebhookJob, unknown>>;
  return (
    typeof job.type === 'string' &&
    (WEBHOOK_TYPES as readonly string[]).includes(job.type) &&
    typeof job.orderingKey === 'string' &&
    typeof job.requestId === 'string' &&
    typeof job.receivedAt === 'number' &&
    typeof job.payload === 'object' &&
    job.payload !== null
  );
}

const nonNegativeInteger = (name: string, value: number): number => {
  if (!Number.isInteger(value) || value < 0) {
    throw new TypeError(`${name}: expected an integer >= 0, got ${String(value)}`);
  }
  return value;
};

/**
 * Creates the `queue` handler of a Worker consuming the queue {@link createQueuesDispatcher} sends
 * to, running each event through the same typed callbacks, job runner and `ctx` as the in-memory
 * dispatcher and the BullMQ worker.
 *
 * Attempts are Queues' deliveries: `ctx.attempt` is the message's `attempts`. A message whose
 * callback succeeds is acknowledged at once (`ack()`), so a later failure in the batch does not
 * deliver it again. A failure calls `onError`, then `retry()` with the backoff's delay; the last
 * allowed delivery's failure (see `maxRetries`) calls `onDeadLetter` and `retry()`, which makes
 * Queues move the message to the consumer's dead-letter queue.
 *
 * Ordering, as far as Queues allows (it promises none): within a batch, one conversation's events
 * run one at a time in the order the receiver took them in (`receivedAt`, then batch order),
 * different conversations at once. After a failure that will be retried, the conversation's later
 * events in the batch are not run but sent back with it (`retry()` with the same delay), so they do
 * not overtake it here; one on its own last delivery runs anyway rather than being dead-lettered
 * unrun. Across batches nothing holds: a retried event comes back after its delay, possibly after
 * newer events of its conversation ran, and batches run in parallel unless the consumer has
 * `max_concurrency = 1` (docs/cloudflare.md).
 *
 * A message that is not a job (sent to the queue by something else) is logged and retried, so it
 * ends in the dead-letter queue rather than vanishing.
 *
 * @example
 * export default {
 *   fetch: (request, env, ctx) => receiverFor(env)(request, ctx),
 *   queue: createQueueConsumer({ handlers: { onChatbot: async (event, ctx) => reply(event) } }),
 * };
 */
export function createQueueConsumer(options: QueueConsumerOptions): QueueConsumer {
  checkOptions('createQueueConsumer', options, QUEUE_CONSUMER_OPTION_KEYS);
  if (typeof options.handlers !== 'object' || options.handlers === null) {
    throw new TypeError(`handlers: expected an object of callbacks, got ${String(options.handlers)}`);
  }
  checkNestedKeys('createQueueConsumer', 'handlers', options.handlers, WEBHOOK_HANDLER_KEYS);
  for (const name of WEBHOOK_HANDLER_KEYS) {
    const callback = options.handlers[name];
    if (callback !== undefined && typeof callback !== 'function') {
      throw new TypeError(`handlers.${name}: expected a function, got ${typeof callback}`);
    }
  }
  checkNestedKeys('createQueueConsumer', 'backoff', options.backoff, BACKOFF_OPTION_KEYS);
  checkNestedKeys(
    'createQueueConsumer',
    'statusTracking',
    options.statusTracking,
    STATUS_TRACKING_OPTION_KEYS,
  );
  const maxRetries = nonNegativeInteger('maxRetries', options.maxRetries ?? DEFAULT_QUEUE_MAX_RETRIES);
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TypeError(`concurrency: expected an integer >= 1, got ${String(concurrency)}`);
  }
  const { backoff } = options;
  if (backoff !== undefined && backoff !== false && (typeof backoff !== 'object' || backoff === null)) {
    throw new TypeError(`backoff: expected { type, delay, maxDelay } or false, got ${String(backoff)}`);
  }
  if (backoff && backoff.delay !== undefined && !(backoff.delay >= 0)) {
    throw new TypeError(`backoff.delay: expected a number >= 0, got ${String(backoff.delay)}`);
  }
  const callbackTimeoutMs =
    options.callbackTimeoutMs === undefined
      ? undefined
      : positiveInteger('callbackTimeoutMs', options.callbackTimeoutMs);
  const logger: Logger = createLibraryLogger(options, 'messaging-webhooks/cloudflare');
  const stats = createStatsRecorder();
  const runner = createJobRunner({
    handlers: options.handlers,
    logger,
    stats,
    tracker: deliveryTrackerFor(options.statusTracking),
    callbackTimeoutMs,
    redactLogs: options.redactLogs,
  });

  /** The retry's delay after attempt `attempt` failed; undefined leaves it to wrangler.toml. */
  const delayAfter = (attempt: number): { delaySeconds: number } | undefined =>
    backoff === false
      ? undefined
      : { delaySeconds: Math.min(Math.ceil(backoffDelay(backoff, attempt) / 1000), MAX_DELAY_SECONDS) };

  /** Runs one conversation's deliveries in order; see the ordering rules above. */
  async function runConversation(deliveries: readonly Delivery[]): Promise<void> {
    // Set once an earlier event of the conversation failed and will be delivered again: the
    // later ones go back with it, after the same delay.
    let holding = false;
    let heldDelay: { delaySeconds: number } | undefined;
    for (const { message, job } of deliveries) {
      const attempt = message.attempts;
      const last = attempt > maxRetries;
      if (holding && !last) {
        message.retry(heldDelay);
        logger.debug(
          { requestId: job.requestId, type: job.type },
          'held behind a failed event of its conversation',
        );
        continue;
      }
      try {
        await runner.run(job, attempt);
        message.ack();
      } catch (error) {
        runner.failed(job, error, attempt, !last);
        if (last) {
          runner.deadLettered({ job: job as AnyWebhookJob, error, attempts: attempt });
          // Past max_retries, a retry moves the message to the dead-letter queue.
          message.retry();
        } else {
          holding = true;
          heldDelay = delayAfter(attempt);
          message.retry(heldDelay);
        }
      }
    }
  }

  async function webhookQueueConsumer(batch: QueueBatch): Promise<void> {
    const conversations = new Map<string, Delivery[]>();
    for (const message of batch.messages) {
      const { body } = message;
      if (!isJob(body)) {
        logger.error(
          { queue: batch.queue, messageId: message.id, attempts: message.attempts },
          'queue message is not a webhook job: retried until Queues dead-letters it',
        );
        message.retry();
        continue;
      }
      const deliveries = conversations.get(body.orderingKey);
      if (deliveries === undefined) conversations.set(body.orderingKey, [{ message, job: body }]);
      else deliveries.push({ message, job: body });
    }
    const queue = new PQueue({ concurrency });
    await queue.addAll(
      [...conversations.values()].map(
        // A stable sort: events taken in at the same millisecond keep their batch order.
        (deliveries) => () => runConversation(deliveries.sort((a, b) => a.job.receivedAt - b.job.receivedAt)),
      ),
    );
  }

  return Object.assign(webhookQueueConsumer, {
    stats: () => stats.snapshot(() => ({ queued: 0, running: 0 })),
  });
}
