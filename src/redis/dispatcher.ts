import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { Dispatcher, DispatcherCounts, EnqueueOutcome, WebhookJob } from '../dispatch/types.js';
import { withTimeout } from '../util/timeout.js';
import { createLibraryLogger, type LoggerOptions } from '../logger.js';
import { checkOptions, optionKeys } from '../util/options.js';
import {
  checkEvictionPolicy,
  checkPersistence,
  closeClient,
  createRedisClient,
  DEFAULT_COMMAND_TIMEOUT_MS,
  logClientErrors,
  validatePersistenceOptions,
  waitUntilReady,
  type PersistenceCheckOptions,
  type RedisConnection,
} from './connection.js';
import {
  openQueue,
  DEFAULT_KEEP_COMPLETED_MS,
  jobIdOf,
  partitionOf,
  resolveTopology,
  type QueueTopology,
} from './queues.js';
import { createRedisProbe, redisHealth, type ComponentHealth } from './health.js';

/** Options of {@link createBullMQDispatcher}. */
export interface BullMQDispatcherOptions extends QueueTopology, LoggerOptions, PersistenceCheckOptions {
  /** Where Redis is; the dispatcher opens its own client, tuned to fail fast. */
  readonly connection: RedisConnection;
  /**
   * How long a completed job is kept. While it is, a second add with the same jobId (a
   * redelivery that slipped past the dedupe store, e.g. after a crash between enqueue and
   * confirm) is ignored. @default 3_600_000 (1 hour)
   */
  readonly keepCompletedMs?: number | undefined;
  /** How long a failed job (one that stalled too often) is kept for inspection. @default 7 days */
  readonly keepFailedMs?: number | undefined;
  /** A Redis command unanswered after this many ms fails, so the router answers 503. @default 1000 */
  readonly commandTimeoutMs?: number | undefined;
}

/** The keys of {@link BullMQDispatcherOptions}; anything else throws at construction. */
export const BULLMQ_DISPATCHER_OPTION_KEYS = optionKeys<BullMQDispatcherOptions>()([
  'connection',
  'requirePersistence',
  'keepCompletedMs',
  'keepFailedMs',
  'commandTimeoutMs',
  'queueName',
  'partitions',
  'prefix',
  'logger',
  'redactLogs',
]);

/** The BullMQ dispatcher: a {@link Dispatcher} whose jobs live in Redis until a worker runs them. */
export interface BullMQDispatcher extends Dispatcher {
  enqueue(job: WebhookJob): Promise<EnqueueOutcome>;
  /**
   * Resolves once connected and the eviction policy and persistence were checked; rejects with
   * a `RedisPersistenceError` when `requirePersistence` is set and Redis persists nothing.
   */
  ready(): Promise<void>;
  /** Jobs per state summed over the partition queues (waiting, active, delayed, completed, failed...). */
  jobCounts(): Promise<Record<string, number>>;
  /**
   * Readiness, synchronously: not ready with `redis_unreachable` while the client is not
   * connected or Redis did not answer the last background PING. `router.health()` includes it.
   */
  health(): ComponentHealth;
  /**
   * The BullMQ queues of the topology, partitions first, then `<queueName>-dead` (opened on the
   * first call), on this dispatcher's connection: e.g. for bull-board. Closed by `close()`.
   */
  queues(): readonly Queue[];
}

const UNFINISHED = ['waiting', 'active', 'delayed', 'prioritized', 'paused', 'waiting-children'] as const;
const IDLE_POLL_MS = 50;

/**
 * Creates a dispatcher that adds each accepted webhook to BullMQ: `enqueue` resolves `accepted`
 * only after `queue.add` resolved, i.e. the job is in Redis, so the router answers 200 only for a
 * durable job (and 503 when the add fails or misses the pipeline's deadline). The jobId derives
 * from the dedupe key, so one event cannot be added twice. Jobs are spread over partition queues
 * by ordering key; run them with {@link createWorker}, in this or another process.
 *
 * @example
 * const connection = { host: '127.0.0.1', port: 6379 };
 * app.use('/webhooks', createWebhookRouter({
 *   ...handlers, // declares which types to enqueue; the worker runs them
 *   dedupe: { store: createRedisDedupeStore({ connection }) },
 *   dispatcher: createBullMQDispatcher({ connection }),
 * }));
 */
export function createBullMQDispatcher(options: BullMQDispatcherOptions): BullMQDispatcher {
  checkOptions('createBullMQDispatcher', options, BULLMQ_DISPATCHER_OPTION_KEYS);
  const topology = resolveTopology(options);
  const keepCompletedMs = options.keepCompletedMs ?? DEFAULT_KEEP_COMPLETED_MS;
  const keepFailedMs = options.keepFailedMs ?? 7 * 24 * 60 * 60 * 1000;
  for (const [name, value] of [
    ['keepCompletedMs', keepCompletedMs],
    ['keepFailedMs', keepFailedMs],
  ] as const) {
    if (!(value >= 1000)) throw new TypeError(`${name}: expected a number >= 1000, got ${String(value)}`);
  }
  const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  if (!(commandTimeoutMs > 0)) {
    throw new TypeError(`commandTimeoutMs: expected a positive number, got ${String(commandTimeoutMs)}`);
  }
  validatePersistenceOptions(options);
  const requirePersistence = options.requirePersistence === true;
  const logger: Logger = createLibraryLogger(options, 'messaging-webhooks/redis');
  const client = createRedisClient(options.connection, 'receiver', commandTimeoutMs);
  logClientErrors(client, logger, 'bullmq dispatcher');
  const queues = topology.partitionNames.map((name) => openQueue(name, client, topology));
  const reachable = createRedisProbe(client, commandTimeoutMs);
  let deadQueue: Queue | undefined;
  const jobOptions = {
    attempts: 1, // retries run inside the worker, so a conversation waits for them (ordering)
    removeOnComplete: { age: Math.ceil(keepCompletedMs / 1000) },
    removeOnFail: { age: Math.ceil(keepFailedMs / 1000) },
  };
  const started = waitUntilReady(client).then(async () => {
    await checkEvictionPolicy(client, logger);
    // No AOF and no RDB: a Redis restart drops every job answered 200 (warned, or refused).
    await checkPersistence(client, logger, options);
  });
  started.catch(() => undefined);

  let closed = false;
  let inflight = 0;
  let settled: (() => void)[] = [];

  async function jobCounts(): Promise<Record<string, number>> {
    const total: Record<string, number> = {};
    const all = await Promise.all(queues.map((queue) => queue.getJobCounts()));
    for (const counts of all) {
      for (const [state, n] of Object.entries(counts)) total[state] = (total[state] ?? 0) + n;
    }
    return total;
  }

  const noneInflight = (): Promise<void> =>
    inflight === 0 ? Promise.resolve() : new Promise<void>((resolve) => settled.push(resolve));

  return {
    async enqueue(job) {
      if (closed) return 'closed';
      // Refused to start: the add fails, so the router answers 503 rather than 200.
      if (requirePersistence) await started;
      inflight += 1;
      try {
        const queue = queues[partitionOf(job.orderingKey, topology.partitions)]!;
        const jobId = jobIdOf(job);
        await queue.add(job.type, job, jobId === undefined ? jobOptions : { ...jobOptions, jobId });
        return 'accepted';
      } finally {
        inflight -= 1;
        if (inflight === 0) {
          const waiters = settled;
          settled = [];
          for (const resolve of waiters) resolve();
        }
      }
    },
    ready: () => started,
    jobCounts,
    async idle() {
      await noneInflight();
      for (;;) {
        const counts = await jobCounts();
        if (UNFINISHED.every((state) => (counts[state] ?? 0) === 0)) return;
        await new Promise((resolve) => setTimeout(resolve, IDLE_POLL_MS));
      }
    },
    async close(timeoutMs) {
      closed = true;
      // Accepted jobs are in Redis already: closing waits only for adds still on the wire.
      const drained = await withTimeout(
        noneInflight().then(() => true),
        timeoutMs,
        () => false,
      );
      await Promise.allSettled([...queues, ...(deadQueue ? [deadQueue] : [])].map((queue) => queue.close()));
      await closeClient(client);
      return drained;
    },
    health: redisHealth(reachable),
    queues() {
      if (deadQueue === undefined) {
        deadQueue = openQueue(topology.deadLetterName, client, topology);
      }
      return [...queues, deadQueue];
    },
    counts(): DispatcherCounts {
      // BullMQ counts per queue, not per webhook type, and only asynchronously: see jobCounts().
      return { queued: 0, running: 0 };
    },
  };
}
