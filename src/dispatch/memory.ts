import { setImmediate } from 'node:timers';
import PQueue from 'p-queue';
import type { WebhookType } from '../schemas/index.js';
import { perType } from '../util/per-type.js';
import { callSafely } from '../util/call-safely.js';
import { withTimeout } from '../util/timeout.js';
import { backoffDelay, resolveRetry } from './backoff.js';
import type { JobRunner } from './runner.js';
import type {
  AnyWebhookJob,
  Dispatcher,
  DispatcherCounts,
  EnqueueOutcome,
  RetryOptions,
  UnfinishedJob,
  WebhookJob,
} from './types.js';

const DEFAULT_CONCURRENCY = 16;
/** Jobs one conversation runs in a row before going to the back of the ready list. */
const DRAIN_BATCH = 32;

/** One type's jobs: accepted and not finished (`pending`), of which running now (`running`). */
interface Gauges {
  pending: number;
  running: number;
}

/** Each type's {@link Gauges} (perType); a job of none of the webhook types (a hand-made one) counts under `unknown`. */
function createGauges(): (type: WebhookType) => Gauges {
  const gauges = perType((): Gauges => ({ pending: 0, running: 0 }));
  return (type) => gauges.of(type) ?? gauges.values.unknown;
}

/** A queued job, the attempt it is on, whether that attempt runs, and its retry timer. */
interface Entry {
  readonly job: WebhookJob;
  attempt: number;
  running: boolean;
  retryTimer: NodeJS.Timeout | undefined;
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
 * The default dispatcher: callbacks run in p-queue tasks, so p-queue bounds how many run at once;
 * a FIFO per ordering key makes one conversation's callbacks run one at a time in arrival order
 * while different conversations run in parallel. A failing callback is retried with backoff and
 * the conversation waits for it (ordering holds through retries); an event that exhausts its
 * attempts is dead-lettered. Accepted events live in memory: a crash loses them (use
 * `messaging-webhooks/redis` for durability).
 *
 * A p-queue task is a worker, not one event: it takes conversations from the ready list and runs
 * their jobs until the list is empty, then waits one event-loop turn for more before giving its
 * slot back. A steady stream of events thus reuses a few tasks instead of paying p-queue's
 * per-task bookkeeping (a promise, a Symbol, a Map entry, several events) for every event: the
 * largest cost of dispatch in the benchmark.
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
  // Conversations whose head waits for a worker, in the order they became ready.
  const ready: string[] = [];
  // Workers waiting for the next event-loop turn; they take the ready conversations then.
  let parked = 0;
  let turn: Promise<void> | undefined;
  // Gauges per type, as plain objects: each job moves them four times.
  const gaugesOf = createGauges();
  let size = 0;
  let closed = false;
  // Set by withdraw(): the jobs left were handed over, so a failing callback is not retried.
  let withdrawn = false;
  let idleWaiters: (() => void)[] = [];

  /** Marks a conversation ready; adds a worker unless enough are parked or waiting for a slot. */
  function makeReady(orderingKey: string): void {
    ready.push(orderingKey);
    if (ready.length > parked + queue.size) void queue.add(work);
  }

  /**
   * One event-loop turn, shared by every parked worker. `setImmediate` from node:timers, not the
   * global: a test that fakes timers must not freeze the queue.
   */
  const nextTurn = (): Promise<void> =>
    (turn ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        turn = undefined;
        resolve();
      }),
    ));

  /**
   * A p-queue task: runs ready conversations until none is left for a whole turn. A loop of
   * callbacks rather than an async function: an asynchronous callback costs one promise reaction
   * before the worker goes on, not three.
   */
  function work(): Promise<void> {
    return new Promise<void>((resolve) => {
      let waited = false;
      const resume = (): void => {
        for (;;) {
          const orderingKey = ready.shift();
          if (orderingKey === undefined) {
            if (waited) return resolve();
            waited = true;
            parked += 1;
            void nextTurn().then(() => {
              parked -= 1;
              resume();
            });
            return;
          }
          waited = false;
          const list = conversations.get(orderingKey);
          // An asynchronous callback: drain calls resume once the conversation has had its turn.
          if (list !== undefined && drain(orderingKey, list, resume)) return;
        }
      };
      resume();
    });
  }

  /**
   * Runs a conversation's jobs one after another, up to DRAIN_BATCH, then puts it at the back of
   * the ready list (a busy conversation cannot starve the others). Returns true when a callback
   * went asynchronous: `resume` is then called once the conversation's turn is over.
   */
  function drain(orderingKey: string, list: Entry[], resume: () => void, ran = 0): boolean {
    for (; ran < DRAIN_BATCH; ran += 1) {
      const entry = list[0];
      if (entry === undefined) return false;
      let result: void | Promise<unknown>;
      gaugesOf(entry.job.type).running += 1;
      entry.running = true;
      try {
        result = runner.start(entry.job, entry.attempt);
      } catch (error) {
        if (!settle(orderingKey, list, entry, { error })) return false;
        continue;
      }
      if (result instanceof Promise) {
        const next = ran + 1;
        // Two handlers rather than one shared closure: this runs once per asynchronous callback.
        result.then(
          () => {
            if (!settle(orderingKey, list, entry) || !drain(orderingKey, list, resume, next)) resume();
          },
          (error: unknown) => {
            if (!settle(orderingKey, list, entry, { error }) || !drain(orderingKey, list, resume, next))
              resume();
          },
        );
        return true;
      }
      if (!settle(orderingKey, list, entry)) return false;
    }
    // The worker running this conversation takes it up again once the others in line had a turn.
    ready.push(orderingKey);
    return false;
  }

  /**
   * Books a finished attempt: a success, or a failure that is retried later or dead-lettered.
   * True when the conversation's next job may run now.
   */
  function settle(
    orderingKey: string,
    list: Entry[],
    entry: Entry,
    failure?: { readonly error: unknown },
  ): boolean {
    gaugesOf(entry.job.type).running -= 1;
    entry.running = false;
    if (failure === undefined) runner.succeeded(entry.job);
    else if (failed(orderingKey, entry, failure.error)) return false;
    return finishHead(orderingKey, list);
  }

  /**
   * Records a failed attempt. True when the job will be retried: the conversation keeps its head
   * until then, so later events wait, and the worker moves on meanwhile.
   */
  function failed(orderingKey: string, entry: Entry, error: unknown): boolean {
    const { job, attempt } = entry;
    // After withdraw() the rest of the queue was handed over: a retry would run after that.
    const willRetry = attempt < retry.attempts && !withdrawn;
    // The runner logs through the user's logger; one that throws must not stall the conversation
    // (and is not told: it is the logger that failed).
    callSafely(undefined, 'runner.failed', () => runner.failed(job, error, attempt, willRetry));
    if (!willRetry) {
      // A job's payload always is its type's (validated by that type's schema).
      callSafely(undefined, 'runner.deadLettered', () =>
        runner.deadLettered({ job: job as AnyWebhookJob, error, attempts: attempt }),
      );
      return false;
    }
    entry.attempt = attempt + 1;
    entry.retryTimer = setTimeout(
      () => {
        entry.retryTimer = undefined;
        makeReady(orderingKey);
      },
      backoffDelay(retry.backoff, attempt),
    );
    entry.retryTimer.unref();
    return true;
  }

  /** Removes a conversation's finished head; true when another job waits behind it. */
  function finishHead(orderingKey: string, list: Entry[]): boolean {
    const done = list.shift();
    if (done) {
      size -= 1;
      gaugesOf(done.job.type).pending -= 1;
    }
    if (size === 0) wakeIdleWaiters();
    if (list.length > 0) return true;
    conversations.delete(orderingKey);
    return false;
  }

  function wakeIdleWaiters(): void {
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Takes every job that is not running out of the conversations (see Dispatcher.withdraw). */
  function withdraw(): UnfinishedJob[] {
    closed = true;
    withdrawn = true;
    const jobs: UnfinishedJob[] = [];
    for (const [orderingKey, list] of conversations) {
      // A running head stays: it may still finish, and its worker books it then.
      for (const entry of list.splice(list[0]?.running === true ? 1 : 0)) {
        clearTimeout(entry.retryTimer);
        jobs.push({ job: entry.job as AnyWebhookJob, attempts: entry.attempt - 1 });
        size -= 1;
        gaugesOf(entry.job.type).pending -= 1;
      }
      if (list.length === 0) conversations.delete(orderingKey);
    }
    // Workers find these conversations gone and skip them.
    ready.length = 0;
    if (size === 0) wakeIdleWaiters();
    return jobs;
  }

  const idle = (): Promise<void> =>
    size === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve));

  return {
    enqueue(job): EnqueueOutcome {
      if (closed) return 'closed';
      if (size >= maxQueueSize) return 'full';
      size += 1;
      gaugesOf(job.type).pending += 1;
      const list = conversations.get(job.orderingKey);
      if (list) {
        list.push({ job, attempt: 1, running: false, retryTimer: undefined });
      } else {
        conversations.set(job.orderingKey, [{ job, attempt: 1, running: false, retryTimer: undefined }]);
        makeReady(job.orderingKey);
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
    withdraw,
    counts(type): DispatcherCounts {
      const { pending, running } = gaugesOf(type);
      return { queued: pending - running, running };
    },
  };
}
