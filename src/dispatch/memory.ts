import PQueue from 'p-queue';
import { WEBHOOK_TYPES, type WebhookType } from '../schemas/index.js';
import { backoffDelay, resolveRetry } from './backoff.js';
import type { JobRunner } from './runner.js';
import type { Dispatcher, DispatcherCounts, EnqueueOutcome, RetryOptions, WebhookJob } from './types.js';

export const DEFAULT_CONCURRENCY = 16;
export const DEFAULT_MAX_QUEUE_SIZE = 10_000;

export interface MemoryDispatcherOptions {
  readonly runner: JobRunner;
  /** Callbacks running at once, across conversations. @default 16 */
  readonly concurrency?: number | undefined;
  /** Events accepted but not finished (queued, running or awaiting a retry) before new ones get 503. @default 10_000 */
  readonly maxQueueSize?: number | undefined;
  readonly retry?: RetryOptions | undefined;
}

/**
 * The default dispatcher: p-queue bounds concurrency; a FIFO per ordering key makes one
 * conversation's callbacks run one at a time in arrival order while different conversations run
 * in parallel. A failing callback is retried with backoff and the conversation waits for it
 * (ordering holds through retries); an event that exhausts its attempts is dead-lettered.
 * Accepted events live in memory: a crash loses them (use `messaging-webhooks/redis` for
 * durability).
 */
export function createMemoryDispatcher(options: MemoryDispatcherOptions): Dispatcher {
  const { runner } = options;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const maxQueueSize = options.maxQueueSize ?? DEFAULT_MAX_QUEUE_SIZE;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TypeError(`concurrency: expected an integer >= 1, got ${String(concurrency)}`);
  }
  if (!Number.isInteger(maxQueueSize) || maxQueueSize < 1) {
    throw new TypeError(`maxQueueSize: expected an integer >= 1, got ${String(maxQueueSize)}`);
  }
  const retry = resolveRetry(options.retry);
  const queue = new PQueue({ concurrency });
  // The head of each list is the job being run (or awaiting its retry); the rest wait behind it.
  const conversations = new Map<string, WebhookJob[]>();
  const pending = new Map<WebhookType, number>(WEBHOOK_TYPES.map((type) => [type, 0]));
  const running = new Map<WebhookType, number>(WEBHOOK_TYPES.map((type) => [type, 0]));
  const retryTimers = new Set<NodeJS.Timeout>();
  let size = 0;
  let closed = false;
  let idleWaiters: (() => void)[] = [];

  const bump = (gauge: Map<WebhookType, number>, type: WebhookType, by: number) =>
    gauge.set(type, (gauge.get(type) ?? 0) + by);

  function schedule(job: WebhookJob, attempt: number): void {
    void queue.add(() => execute(job, attempt));
  }

  async function execute(job: WebhookJob, attempt: number): Promise<void> {
    bump(running, job.type, 1);
    try {
      await runner.run(job, attempt);
      finish(job);
    } catch (error) {
      const willRetry = attempt < retry.attempts;
      runner.failed(job, error, attempt, willRetry);
      if (willRetry) {
        // The conversation keeps its head until the retry settles, so later events wait.
        const timer = setTimeout(
          () => {
            retryTimers.delete(timer);
            schedule(job, attempt + 1);
          },
          backoffDelay(retry.backoff, attempt),
        );
        timer.unref();
        retryTimers.add(timer);
      } else {
        runner.deadLettered({ job, error, attempts: attempt });
        finish(job);
      }
    } finally {
      bump(running, job.type, -1);
    }
  }

  function finish(job: WebhookJob): void {
    size -= 1;
    bump(pending, job.type, -1);
    const list = conversations.get(job.orderingKey);
    list?.shift();
    const next = list?.[0];
    if (next) schedule(next, 1);
    else conversations.delete(job.orderingKey);
    if (size === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  const idle = (): Promise<void> =>
    size === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve));

  return {
    enqueue(job): EnqueueOutcome {
      if (closed) return 'closed';
      if (size >= maxQueueSize) return 'full';
      size += 1;
      bump(pending, job.type, 1);
      const list = conversations.get(job.orderingKey);
      if (list) {
        list.push(job);
      } else {
        conversations.set(job.orderingKey, [job]);
        schedule(job, 1);
      }
      return 'accepted';
    },
    idle,
    async close(timeoutMs) {
      closed = true;
      if (size === 0) return true;
      if (timeoutMs === undefined) {
        await idle();
        return true;
      }
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const drained = await Promise.race([idle().then(() => true as const), timedOut]);
      clearTimeout(timer);
      return drained;
    },
    counts(type): DispatcherCounts {
      const run = running.get(type) ?? 0;
      return { queued: (pending.get(type) ?? 0) - run, running: run };
    },
  };
}
