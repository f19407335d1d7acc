import PQueue from 'p-queue';
import { WEBHOOK_TYPES, type WebhookType } from '../schemas/index.js';
import { withTimeout } from '../util/timeout.js';
import { backoffDelay, resolveRetry } from './backoff.js';
import type { JobRunner } from './runner.js';
import type { Dispatcher, DispatcherCounts, EnqueueOutcome, RetryOptions, WebhookJob } from './types.js';

export const DEFAULT_CONCURRENCY = 16;
/** Jobs one conversation runs in a row before giving its p-queue slot to the next in line. */
const DRAIN_BATCH = 32;

/** A queued job and the attempt it is on. */
interface Entry {
  readonly job: WebhookJob;
  attempt: number;
}
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
 * in parallel (each conversation with a backlog holds at most one p-queue slot). A failing callback is retried with backoff and the conversation waits for it
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
  // Each conversation's FIFO; its head is the job being run (or awaiting its retry).
  const conversations = new Map<string, Entry[]>();
  const pending = new Map<WebhookType, number>(WEBHOOK_TYPES.map((type) => [type, 0]));
  const running = new Map<WebhookType, number>(WEBHOOK_TYPES.map((type) => [type, 0]));
  let size = 0;
  let closed = false;
  let idleWaiters: (() => void)[] = [];

  const bump = (gauge: Map<WebhookType, number>, type: WebhookType, by: number) =>
    gauge.set(type, (gauge.get(type) ?? 0) + by);

  /** Gives a conversation a p-queue slot; the slot runs its jobs in order (see {@link drain}). */
  function schedule(orderingKey: string): void {
    void queue.add(() => drain(orderingKey));
  }

  /**
   * Runs a conversation's jobs one after another in one p-queue task, up to DRAIN_BATCH, then
   * yields the slot (requeued at the back, so a busy conversation cannot starve the others).
   * One task per backlog rather than one per event: p-queue's per-task bookkeeping is the
   * largest cost of dispatch (measured by the benchmark).
   */
  async function drain(orderingKey: string): Promise<void> {
    const list = conversations.get(orderingKey);
    for (let ran = 0; list !== undefined && ran < DRAIN_BATCH; ran += 1) {
      const entry = list[0];
      if (entry === undefined) return;
      const { job, attempt } = entry;
      bump(running, job.type, 1);
      try {
        const result = runner.run(job, attempt);
        if (result instanceof Promise) await result;
      } catch (error) {
        const willRetry = attempt < retry.attempts;
        runner.failed(job, error, attempt, willRetry);
        if (willRetry) {
          // The conversation keeps its head until the retry settles, so later events wait; the
          // slot is free meanwhile.
          entry.attempt = attempt + 1;
          const timer = setTimeout(() => schedule(orderingKey), backoffDelay(retry.backoff, attempt));
          timer.unref();
          return;
        }
        runner.deadLettered({ job, error, attempts: attempt });
      } finally {
        bump(running, job.type, -1);
      }
      if (!finishHead(orderingKey, list)) return;
    }
    if (list !== undefined && list.length > 0) schedule(orderingKey);
  }

  /** Removes a conversation's finished head; true when another job waits behind it. */
  function finishHead(orderingKey: string, list: Entry[]): boolean {
    const done = list.shift();
    if (done) {
      size -= 1;
      bump(pending, done.job.type, -1);
    }
    if (size === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
    if (list.length > 0) return true;
    conversations.delete(orderingKey);
    return false;
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
        list.push({ job, attempt: 1 });
      } else {
        conversations.set(job.orderingKey, [{ job, attempt: 1 }]);
        schedule(job.orderingKey);
      }
      return 'accepted';
    },
    idle,
    async close(timeoutMs) {
      closed = true;
      if (size === 0) return true;
      return withTimeout(
        idle().then(() => true),
        timeoutMs,
        () => false,
      );
    },
    counts(type): DispatcherCounts {
      const run = running.get(type) ?? 0;
      return { queued: (pending.get(type) ?? 0) - run, running: run };
    },
  };
}
