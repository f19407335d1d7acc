import { Queue, WaitingError, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { deliveryTrackerFor, type StatusTrackingOption } from '../delivery/tracker.js';
import { backoffDelay, resolveRetry } from '../dispatch/backoff.js';
import { createJobRunner, type JobObserver, type JobTracer } from '../dispatch/runner.js';
import type { AnyWebhookJob, RetryOptions, WebhookHandlers, WebhookJob } from '../dispatch/types.js';
import { withTimeout } from '../util/timeout.js';
import { createLibraryLogger, type LoggerOptions } from '../logger.js';
import {
  BACKOFF_OPTION_KEYS,
  RETRY_OPTION_KEYS,
  STATUS_TRACKING_OPTION_KEYS,
  WEBHOOK_HANDLER_KEYS,
} from '../pipeline/options.js';
import { createStatsRecorder, type WebhookStats } from '../pipeline/stats.js';
import { checkNestedKeys, checkOptions, optionKeys } from '../util/options.js';
import {
  checkEvictionPolicy,
  closeClient,
  logClientErrors,
  openClient,
  refuseKeyPrefix,
  resolveConnection,
  waitUntilReady,
  type RedisConnection,
} from './connection.js';
import { checkPersistence, validatePersistenceOptions, type PersistenceCheckOptions } from './persistence.js';
import {
  ACKED_FIELD,
  DISCARDED_FIELD,
  openQueue,
  prefixTagWarning,
  resolveTopology,
  type QueueTopology,
} from './queues.js';
import { createRedisProbe, type ComponentHealth } from './health.js';

/** Options of {@link createWorker}. */
export interface WebhookWorkerOptions extends QueueTopology, LoggerOptions, PersistenceCheckOptions {
  /**
   * Where Redis is: options, a URL or cluster nodes, or an ioredis `Redis` or `Cluster` instance.
   * The worker's clients wait out outages (`maxRetriesPerRequest: null`, which BullMQ's blocking
   * commands require), so a given instance is not used itself: the worker duplicates it with those
   * two settings changed (address, credentials, TLS, Sentinel or cluster nodes kept) and closes the
   * duplicate on `close()`; the given instance is never closed. BullMQ opens two more connections
   * per partition queue from it (one for its blocking fetch).
   */
  readonly connection: RedisConnection;
  /** The typed callbacks (`onIncoming`, `onChatbot`, ..., `onError`, `onDeadLetter`). */
  readonly handlers: WebhookHandlers;
  /**
   * Attempts and backoff, in BullMQ's shape. Retries run inside the job, so later events of
   * the same conversation wait for them. @default { attempts: 3, backoff: { type: 'exponential', delay: 1000 } }
   */
  readonly retry?: RetryOptions | undefined;
  /** Fail an attempt whose callback has not settled after this many ms. @default undefined (no limit) */
  readonly callbackTimeoutMs?: number | undefined;
  /**
   * Track each outbound message's forward-only delivery state (`ctx.delivery`), in this
   * worker's memory. @default { max: 100_000 }
   */
  readonly statusTracking?: StatusTrackingOption;
  /** Start taking jobs at once; else call `run()`. @default true */
  readonly autorun?: boolean | undefined;
}

/** The keys of {@link WebhookWorkerOptions}; anything else throws at construction. */
export const WORKER_OPTION_KEYS = optionKeys<WebhookWorkerOptions>()([
  'connection',
  'requirePersistence',
  'handlers',
  'retry',
  'callbackTimeoutMs',
  'statusTracking',
  'autorun',
  'queueName',
  'partitions',
  'prefix',
  'hashTags',
  'logger',
  'redactLogs',
]);

/** A dead-lettered job as stored in the `<queueName>-dead` queue. */
export interface DeadLetterRecord {
  readonly job: WebhookJob;
  readonly error: { readonly name: string; readonly message: string; readonly stack?: string | undefined };
  readonly attempts: number;
  readonly failedAt: number;
  /** When its first attempt failed, over earlier redrives too (records of older versions lack it). */
  readonly firstFailedAt?: number | undefined;
  /** Times it was redriven from the dead-letter queue before this failure. */
  readonly redrives?: number | undefined;
}

/** A running BullMQ worker. */
export interface WebhookWorker {
  /** Starts taking jobs (only needed with `autorun: false`); resolves once started. */
  run(): Promise<void>;
  /**
   * Resolves once connected, the eviction policy and persistence checked and the partitions
   * configured; rejects with a `RedisPersistenceError` (and takes no job) when
   * `requirePersistence` is set and Redis persists nothing.
   */
  ready(): Promise<void>;
  /**
   * Stops taking jobs and waits up to `timeoutMs` for running ones. A job waiting for a retry is
   * put back at the head of its partition (with its attempt count) instead of being waited for.
   * Resolves true when no job was cut off.
   */
  close(timeoutMs?: number): Promise<boolean>;
  /** Counts per webhook type, of this worker process. */
  stats(): WebhookStats;
  /**
   * Readiness, synchronously, for a probe (`createHealthHandler(worker)`): not ready with
   * `worker_not_running` before it started taking jobs (starting, `autorun: false` without
   * `run()`, a refused start), once closing, or when a partition's BullMQ worker stopped or is
   * paused; with `redis_unreachable` while its connection is down or Redis did not answer the last
   * background PING.
   */
  health(): WorkerHealth;
  /**
   * Sets (or, with undefined, clears) the observer told about callback attempts, as the router's
   * pipeline does: `collectMetrics(worker)` sets it.
   */
  observe(observer: JobObserver | undefined): void;
  /**
   * The BullMQ queues of the topology, partitions first, then `<queueName>-dead`, on this worker's
   * connection (opened on the first call, closed by `close()`): queue depths for the metrics,
   * or bull-board.
   */
  queues(): readonly Queue[];
  /** Sets (or, with undefined, clears) the tracer told about callback attempts (`messaging-webhooks/otel`). */
  trace(tracer: JobTracer | undefined): void;
}

/** Readiness of a {@link WebhookWorker}. */
export interface WorkerHealth extends ComponentHealth {
  /** Every partition's BullMQ worker is taking jobs. */
  readonly running: boolean;
}

/**
 * Job data: the webhook job, plus the attempt to resume at after a shutdown, and what a redrive
 * from the dead-letter queue carries over (the first failure, the redrive count).
 */
type JobData = WebhookJob & {
  readonly resumeAttempt?: number | undefined;
  readonly firstFailedAt?: number | undefined;
  readonly redrives?: number | undefined;
};

class ShutdownSignal extends Error {
  constructor() {
    super('worker is closing');
  }
}

/** BullMQ's pause after a connection error in a worker's loop, before it tries again. */
const RUN_RETRY_DELAY_MS = 1000;

/** Longest wait for the health probe's background PING (the worker's client has no command timeout). */
const DEFAULT_PING_TIMEOUT_MS = 1000;

/**
 * A held job's verdict, once it was held past its hold (see `HELD_JOB_MS`): 1 when a receiver
 * acknowledged it (it runs), else marks it discarded, atomically against a late acknowledgement
 * (MARK_ACKED refuses a discarded job), and answers 0.
 */
const DISCARD_UNACKED = `
if redis.call('HEXISTS', KEYS[1], '${ACKED_FIELD}') == 1 then return 1 end
redis.call('HSET', KEYS[1], '${DISCARDED_FIELD}', '1')
return 0`;

const toRecordError = (error: unknown): DeadLetterRecord['error'] =>
  error instanceof Error
    ? { name: error.name, message: error.message, stack: error.stack }
    : { name: 'Error', message: String(error) };

/**
 * Creates a worker running the BullMQ jobs of {@link createBullMQDispatcher} through the same typed
 * callbacks as the in-memory dispatcher (via the shared job runner), in this or another process.
 *
 * Ordering: each partition queue has BullMQ global concurrency 1, so one conversation's events
 * (same partition) run one at a time in arrival order across all workers, retries included. A
 * job that fails every attempt goes to the `<queueName>-dead` queue and `onDeadLetter`.
 *
 * @example
 * const worker = createWorker({ connection: { host: '127.0.0.1', port: 6379 }, handlers });
 * process.on('SIGTERM', () => void worker.close(10_000).then(() => process.exit(0)));
 */
export function createWorker(options: WebhookWorkerOptions): WebhookWorker {
  checkOptions('createWorker', options, WORKER_OPTION_KEYS);
  checkNestedKeys('createWorker', 'retry', options.retry, RETRY_OPTION_KEYS);
  checkNestedKeys('createWorker', 'retry.backoff', options.retry?.backoff, BACKOFF_OPTION_KEYS);
  checkNestedKeys('createWorker', 'statusTracking', options.statusTracking, STATUS_TRACKING_OPTION_KEYS);
  const connection = resolveConnection(options.connection);
  refuseKeyPrefix(connection);
  const topology = resolveTopology(options, connection);
  const retry = resolveRetry(options.retry);
  if (typeof options.handlers !== 'object' || options.handlers === null) {
    throw new TypeError(`handlers: expected an object of callbacks, got ${String(options.handlers)}`);
  }
  checkNestedKeys('createWorker', 'handlers', options.handlers, WEBHOOK_HANDLER_KEYS);
  validatePersistenceOptions(options);
  const logger: Logger = createLibraryLogger(options, 'messaging-webhooks/redis');
  const stats = createStatsRecorder();
  // Read on each attempt; holds an observer while metrics are collected, a tracer while tracing.
  const probe: { observer: JobObserver | undefined; tracer: JobTracer | undefined } = {
    observer: undefined,
    tracer: undefined,
  };
  const runner = createJobRunner({
    handlers: options.handlers,
    logger,
    stats,
    tracker: deliveryTrackerFor(options.statusTracking),
    callbackTimeoutMs: options.callbackTimeoutMs,
    redactLogs: options.redactLogs,
    observe: probe,
  });
  const bullPrefix = topology.prefix === undefined ? {} : { prefix: topology.prefix };
  const { client } = openClient(connection, 'worker');
  logClientErrors(client, logger, 'bullmq worker');
  const tagWarning = prefixTagWarning(topology);
  if (tagWarning !== undefined) logger.warn(tagWarning);
  const deadQueue = openQueue(topology.deadLetterName, client, topology);
  const reachable = createRedisProbe(client, DEFAULT_PING_TIMEOUT_MS);
  let partitionQueues: Queue[] | undefined;
  const shutdown = new AbortController();
  let cutOff = false;

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (shutdown.signal.aborted) return reject(new ShutdownSignal());
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(new ShutdownSignal());
      };
      const timer = setTimeout(() => {
        shutdown.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      shutdown.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Whether a job added held (`waitForReplicas`) may run. Released jobs run at once; one that
   * reached its worker only because its hold ran out is checked: run if a receiver acknowledged
   * it meanwhile (its release was lost, or it was late), else discarded with its dedupe claim
   * deleted, so that a later delivery of the event is accepted afresh. Every delivery of it was
   * answered 503 (or not at all), so running it would run what its sender was told was refused.
   */
  async function acknowledged(job: Job<JobData>): Promise<boolean> {
    const held = job.opts.delay;
    if (held === undefined || held <= 0 || Date.now() < job.timestamp + held) return true;
    const key = workersByName.get(job.queueName)?.toKey(job.id ?? '');
    if (key === undefined) return true;
    if ((await client.eval(DISCARD_UNACKED, 1, key)) === 1) return true;
    await job.removeDeduplicationKey();
    logger.warn(
      { queue: job.queueName, jobId: job.id, type: job.data.type },
      'job never acknowledged by the replicas (every delivery answered 503): discarded, not run',
    );
    return false;
  }

  async function processJob(job: Job<JobData>, token: string | undefined): Promise<string> {
    if (!(await acknowledged(job))) return 'unacknowledged';
    const { resumeAttempt, firstFailedAt: failedBefore, redrives, ...webhook } = job.data;
    let firstFailedAt = failedBefore;
    for (let attempt = resumeAttempt ?? 1; ; attempt++) {
      try {
        await runner.run(webhook, attempt);
        return 'done';
      } catch (error) {
        const willRetry = attempt < retry.attempts;
        runner.failed(webhook, error, attempt, willRetry);
        firstFailedAt ??= Date.now();
        if (!willRetry) {
          // Stored before the job completes: a crash in between re-runs the job, not loses it.
          const record: DeadLetterRecord = {
            job: webhook,
            error: toRecordError(error),
            attempts: attempt,
            failedAt: Date.now(),
            firstFailedAt,
            redrives,
          };
          // One dead letter per job even if a crash re-runs it; BullMQ's own ids are integers,
          // which a custom id may not be, hence the partition name in front.
          await deadQueue.add(webhook.type, record, { jobId: `${job.queueName}-${job.id ?? 'x'}` });
          runner.deadLettered({ job: webhook as AnyWebhookJob, error, attempts: attempt });
          return 'dead-lettered';
        }
        try {
          await sleep(backoffDelay(retry.backoff, attempt));
        } catch (signal) {
          if (!(signal instanceof ShutdownSignal)) throw signal;
          // Closing: hand the job back to the head of its partition, keeping its attempt count,
          // so the next worker resumes it before later events of the conversation.
          await job.updateData({ ...webhook, resumeAttempt: attempt + 1, firstFailedAt, redrives });
          await job.moveToWait(token);
          throw new WaitingError();
        }
      }
    }
  }

  const workers = topology.partitionNames.map((name) => {
    const worker = new Worker<JobData, string>(name, processJob, {
      connection: client,
      ...bullPrefix,
      concurrency: 1,
      autorun: false,
      // After a connection error (a failover, a Redis restart) BullMQ waits this long before it
      // fetches or completes again; its 15 s default held every partition that long after a
      // failover. The client reconnects on its own, so retrying each second costs little.
      runRetryDelay: RUN_RETRY_DELAY_MS,
    });
    worker.on('error', (error) => logger.warn({ err: error, queue: name }, 'bullmq worker error'));
    return worker;
  });

  const workersByName = new Map(workers.map((worker) => [worker.name, worker]));

  const started = (async () => {
    await waitUntilReady(client);
    await checkEvictionPolicy(client, logger);
    await checkPersistence(client, logger, options);
    // One job at a time per partition across every worker process: the ordering guarantee.
    const queues = topology.partitionNames.map(
      (name) => new Queue(name, { connection: client, ...bullPrefix }),
    );
    try {
      await Promise.all(queues.map((queue) => queue.setGlobalConcurrency(1)));
    } finally {
      await Promise.allSettled(queues.map((queue) => queue.close()));
    }
  })();
  started.catch((error: unknown) => logger.error({ err: error }, 'worker failed to start'));

  let running: Promise<void> | undefined;
  function run(): Promise<void> {
    running ??= started.then(() => {
      if (shutdown.signal.aborted) return;
      for (const worker of workers) {
        worker.run().catch((error: unknown) => logger.error({ err: error }, 'bullmq worker stopped'));
      }
    });
    return running;
  }
  if (options.autorun !== false) run().catch(() => undefined);

  return {
    run,
    ready: () => started,
    async close(timeoutMs) {
      shutdown.abort();
      const graceful = Promise.all(workers.map((worker) => worker.close())).then(() => true);
      const finished = await withTimeout(graceful, timeoutMs, () => false);
      if (!finished) {
        // A callback still running: its lock lapses and BullMQ's stalled check re-runs the job.
        cutOff = true;
        await Promise.allSettled(workers.map((worker) => worker.close(true)));
      }
      await Promise.allSettled([deadQueue, ...(partitionQueues ?? [])].map((queue) => queue.close()));
      await closeClient(client);
      return !cutOff;
    },
    stats: () => stats.snapshot(() => ({ queued: 0, running: 0 })),
    health() {
      const running =
        !shutdown.signal.aborted && workers.every((worker) => worker.isRunning() && !worker.isPaused());
      const reasons: string[] = [];
      if (!running) reasons.push('worker_not_running');
      if (!reachable()) reasons.push('redis_unreachable');
      return { ready: reasons.length === 0, reasons, running };
    },
    observe(observer) {
      probe.observer = observer;
    },
    queues() {
      partitionQueues ??= topology.partitionNames.map((name) => openQueue(name, client, topology));
      return [...partitionQueues, deadQueue];
    },
    trace(tracer) {
      probe.tracer = tracer;
    },
  };
}
