import type { Dispatcher, DispatcherCounts, EnqueueOutcome, WebhookJob } from '../dispatch/types.js';
import { checkOptions, optionKeys } from '../util/options.js';
import { withTimeout } from '../util/timeout.js';
import type { QueueProducer } from './bindings.js';
import { createInflight } from '../util/inflight.js';

/**
 * Largest message Cloudflare Queues takes, in bytes of its serialised body (128 KB; miniflare
 * refuses the same).
 */
export const QUEUE_MESSAGE_LIMIT = 128_000;

/** Options of {@link createQueuesDispatcher}. */
export interface QueuesDispatcherOptions {
  /**
   * The producer binding of the queue the events go to (`env.WEBHOOKS` for a
   * `[[queues.producers]]` entry with `binding = "WEBHOOKS"`). Its consumer runs them with
   * {@link createQueueConsumer}.
   */
  readonly queue: QueueProducer;
}

/** The keys of {@link QueuesDispatcherOptions}; anything else throws at construction. */
const QUEUES_DISPATCHER_OPTION_KEYS = optionKeys<QueuesDispatcherOptions>()(['queue']);

/**
 * An accepted event too large for one Queues message. The pipeline logs it and answers 503, as
 * for any enqueue that fails; keep `bodyLimit` below the limit so that such an event is refused
 * with 413 instead (docs/cloudflare.md).
 */
export class QueueMessageTooLargeError extends Error {
  override readonly name = 'QueueMessageTooLargeError';
  readonly code = 'queue_message_too_large' as const;
  constructor(readonly bytes: number) {
    super(
      `the event is ${bytes} bytes as a queue message, over Cloudflare Queues' ${QUEUE_MESSAGE_LIMIT}; set bodyLimit lower`,
    );
  }
}

/** The Cloudflare Queues dispatcher: a {@link Dispatcher} whose events wait in a queue until its consumer runs them. */
export interface QueuesDispatcher extends Dispatcher {
  enqueue(job: WebhookJob): Promise<EnqueueOutcome>;
}

/** Bytes of `text` in UTF-8, counted only when its length alone does not settle the comparison. */
function utf8Over(text: string, limit: number): number | undefined {
  if (text.length * 3 <= limit) return undefined;
  const bytes = new TextEncoder().encode(text).length;
  return bytes > limit ? bytes : undefined;
}

/**
 * Creates a dispatcher that sends each accepted event to a Cloudflare Queue: `enqueue` resolves
 * `accepted` once `queue.send` resolved, when Queues has stored the message, so the receiver
 * answers 200 only for an event that outlives the invocation (and 503 when the send fails or
 * misses the pipeline's `enqueueTimeoutMs`). The message body is the job as JSON
 * (`contentType: 'json'`), readable by any consumer of the queue and of its dead-letter queue.
 *
 * One `send` per event: a Worker invocation answers one webhook, whose 200 waits for its own
 * event only, so there is nothing for `sendBatch` to group.
 *
 * Given as an object, it makes the receiver enqueue every webhook type (the consumer decides which
 * it runs) and leaves `waitUntil` unused: nothing runs in the invocation after the answer.
 *
 * @example
 * let handler: FetchWebhookHandler | undefined;
 * export default {
 *   fetch(request: Request, env: Env, ctx: ExecutionContext) {
 *     handler ??= createFetchHandler({
 *       token: env.WEBHOOK_TOKEN,
 *       dispatcher: createQueuesDispatcher({ queue: env.WEBHOOKS }),
 *     });
 *     return handler(request, ctx);
 *   },
 *   queue: createQueueConsumer({ handlers }),
 * };
 */
export function createQueuesDispatcher(options: QueuesDispatcherOptions): QueuesDispatcher {
  checkOptions('createQueuesDispatcher', options, QUEUES_DISPATCHER_OPTION_KEYS);
  const { queue } = options;
  if (typeof queue !== 'object' || queue === null || typeof queue.send !== 'function') {
    throw new TypeError(
      `createQueuesDispatcher: queue: expected a Queues producer binding (with send()), got ${queue === null ? 'null' : typeof queue}`,
    );
  }
  let closed = false;
  const inflight = createInflight();

  return {
    async enqueue(job) {
      if (closed) return 'closed';
      const body = JSON.stringify(job);
      const over = utf8Over(body, QUEUE_MESSAGE_LIMIT);
      if (over !== undefined) throw new QueueMessageTooLargeError(over);
      inflight.enter();
      try {
        // Sent as the parsed job, serialised by the runtime as JSON: the body the consumer reads.
        await queue.send(job, { contentType: 'json' });
        return 'accepted';
      } finally {
        inflight.leave();
      }
    },
    /** Resolves once no send is on its way: the queue's consumer runs the events, elsewhere. */
    idle: inflight.none,
    async close(timeoutMs) {
      closed = true;
      return withTimeout(
        inflight.none().then(() => true),
        timeoutMs,
        () => false,
      );
    },
    counts(): DispatcherCounts {
      // The events wait in Queues, whose depth this process cannot see.
      return { queued: 0, running: 0 };
    },
  };
}
