import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Dispatcher, DispatcherCounts, EnqueueOutcome, WebhookJob } from '../dispatch/types.js';
import { withTimeout } from '../util/timeout.js';
import { createLibraryLogger, type LoggerOptions } from '../logger.js';
import { checkNestedKeys, checkOptions, optionKeys } from '../util/options.js';
import {
  checkEvictionPolicy,
  checkPersistence,
  closeClient,
  DEFAULT_COMMAND_TIMEOUT_MS,
  logClientErrors,
  openClient,
  refuseKeyPrefix,
  resolveConnection,
  serversOf,
  validatePersistenceOptions,
  waitUntilReady,
  type PersistenceCheckOptions,
  type RedisClient,
  type RedisConnection,
} from './connection.js';
import {
  openQueue,
  DEFAULT_KEEP_COMPLETED_MS,
  jobIdOf,
  partitionOf,
  prefixTagWarning,
  resolveTopology,
  type QueueTopology,
} from './queues.js';
import { createRedisProbe, redisHealth, type ComponentHealth } from './health.js';

/** Options of {@link createBullMQDispatcher}. */
export interface BullMQDispatcherOptions extends QueueTopology, LoggerOptions, PersistenceCheckOptions {
  /**
   * Where Redis is: options, a URL or cluster nodes (the dispatcher opens its own client, tuned to
   * fail fast, and closes it), or an ioredis `Redis` or `Cluster` instance, used as given for
   * every add: not closed by `close()`, not retuned (give it `enableOfflineQueue: false` and a
   * `commandTimeout`, or an add waits for the pipeline's `enqueueTimeoutMs` during an outage).
   */
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
  /**
   * Answer 200 only once the job is on at least `replicas` replicas of its primary (Redis `WAIT`),
   * so that a failover (a replica promoted after its primary died) cannot lose an acknowledged
   * event. Replicas that do not confirm within `timeoutMs` make the enqueue fail: the router
   * answers 503, the job stays queued, and the sender's redelivery is not run twice (the jobId).
   * Off by default: asynchronous replication, where a failover can lose the last acknowledged jobs.
   * @default undefined (do not wait for replicas)
   */
  readonly waitForReplicas?: ReplicaAckOptions | undefined;
}

/** Options of {@link BullMQDispatcherOptions.waitForReplicas}. */
export interface ReplicaAckOptions {
  /** Replicas that must hold the job before the 200; at least 1. */
  readonly replicas: number;
  /**
   * Longest wait for them (Redis `WAIT`'s timeout), below `commandTimeoutMs` and the pipeline's
   * `enqueueTimeoutMs`. @default half of commandTimeoutMs (500)
   */
  readonly timeoutMs?: number | undefined;
}

/** The keys of {@link ReplicaAckOptions}. */
export const REPLICA_ACK_OPTION_KEYS = optionKeys<ReplicaAckOptions>()(['replicas', 'timeoutMs']);

/**
 * An enqueue refused because its job could not be shown to be on enough replicas: they did not
 * confirm in time, or the job was no longer on the primary (a failover between the add and the
 * check). The router answers 503; the sender redelivers.
 */
export class RedisReplicationError extends Error {
  override readonly name = 'RedisReplicationError';
  readonly code = 'redis_replication' as const;
}

/** The keys of {@link BullMQDispatcherOptions}; anything else throws at construction. */
export const BULLMQ_DISPATCHER_OPTION_KEYS = optionKeys<BullMQDispatcherOptions>()([
  'connection',
  'requirePersistence',
  'keepCompletedMs',
  'keepFailedMs',
  'commandTimeoutMs',
  'waitForReplicas',
  'queueName',
  'partitions',
  'prefix',
  'hashTags',
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
 * The replica check of a batch of jobs of one partition: KEYS[1] is the partition's marker key,
 * the others its jobs' keys (all in the partition's slot). Answers, per job, whether it is on this
 * primary, after writing the marker. The `WAIT` sent after it on the same connection then covers the
 * marker and so everything before it in this primary's replication stream: the jobs found here,
 * whichever connection or earlier primary added them.
 */
const MARK_REPLICATED = `
local found = {}
for i = 2, #KEYS do found[i - 1] = redis.call('EXISTS', KEYS[i]) end
redis.call('SET', KEYS[1], ARGV[1], 'PX', 60000)
return found`;

/** Jobs waiting for their replica check: of one partition on a cluster, of any on one Redis. */
interface ReplicaBatch {
  pending: {
    readonly partition: number;
    readonly key: string;
    readonly resolve: () => void;
    readonly reject: (error: Error) => void;
  }[];
  flushing: boolean;
}

/** The `commandTimeout` a given client runs its commands with, when it has one. */
function commandTimeoutOf(client: RedisClient): number | undefined {
  const options = client.options as { commandTimeout?: number; redisOptions?: { commandTimeout?: number } };
  return options.commandTimeout ?? options.redisOptions?.commandTimeout;
}

function resolveReplicaAck(
  value: ReplicaAckOptions | undefined,
  commandTimeoutMs: number | undefined,
): { replicas: number; timeoutMs: number } | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(`waitForReplicas: expected { replicas, timeoutMs? }, got ${String(value)}`);
  }
  checkNestedKeys('createBullMQDispatcher', 'waitForReplicas', value, REPLICA_ACK_OPTION_KEYS);
  const { replicas } = value;
  if (!Number.isInteger(replicas) || replicas < 1) {
    throw new TypeError(`waitForReplicas.replicas: expected an integer >= 1, got ${String(replicas)}`);
  }
  const limit = commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const timeoutMs = value.timeoutMs ?? Math.floor(limit / 2);
  // WAIT blocks its connection: one outliving the command timeout would hold every later add.
  if (
    !Number.isInteger(timeoutMs) ||
    timeoutMs < 1 ||
    (commandTimeoutMs !== undefined && timeoutMs >= commandTimeoutMs)
  ) {
    throw new TypeError(
      `waitForReplicas.timeoutMs: expected a whole number of ms from 1 to below the command timeout (${commandTimeoutMs ?? 'none'}), got ${String(timeoutMs)}`,
    );
  }
  return { replicas, timeoutMs };
}

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
  const connection = resolveConnection(options.connection);
  refuseKeyPrefix(connection);
  const topology = resolveTopology(options, connection);
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
  // A given client keeps its own command timeout, which bounds the WAIT instead.
  const replicaAck = resolveReplicaAck(
    options.waitForReplicas,
    connection.kind === 'client' ? commandTimeoutOf(connection.client) : commandTimeoutMs,
  );
  const { client, owned } = openClient(connection, 'receiver', commandTimeoutMs);
  if (owned) logClientErrors(client, logger, 'bullmq dispatcher');
  const tagWarning = prefixTagWarning(topology);
  if (tagWarning !== undefined) logger.warn(tagWarning);
  const queues = topology.partitionNames.map((name) => openQueue(name, client, topology));
  const markers = queues.map((queue) => queue.toKey('mw-replicated'));
  const batches: ReplicaBatch[] = queues.map(() => ({ pending: [], flushing: false }));
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
    if (replicaAck !== undefined) await checkReplicas(client, replicaAck.replicas, logger);
  });
  started.catch(() => undefined);

  /**
   * Sends one replica check for every job of the batch waiting for one (a marker write per
   * partition, then one WAIT), until none waits.
   */
  async function flush(batch: ReplicaBatch): Promise<void> {
    batch.flushing = true;
    while (batch.pending.length > 0) {
      const waiting = batch.pending;
      batch.pending = [];
      const groups = new Map<number, ReplicaBatch['pending']>();
      for (const entry of waiting) {
        const group = groups.get(entry.partition);
        if (group === undefined) groups.set(entry.partition, [entry]);
        else group.push(entry);
      }
      try {
        const pipeline = client.pipeline();
        for (const [partition, entries] of groups) {
          const keys = entries.map((entry) => entry.key);
          pipeline.eval(MARK_REPLICATED, 1 + keys.length, markers[partition]!, ...keys, Date.now());
        }
        pipeline.call('WAIT', replicaAck!.replicas, replicaAck!.timeoutMs);
        const replies = (await pipeline.exec()) ?? [];
        const [waitError, acked] = replies.at(-1) ?? [new Error('WAIT: no reply')];
        if (waitError) throw waitError;
        const confirmed = Number(acked);
        for (const [index, entries] of [...groups.values()].entries()) {
          const [markError, found] = replies[index] ?? [new Error('replica check: no reply')];
          for (const [position, entry] of entries.entries()) {
            if (markError) entry.reject(markError);
            else if ((found as number[])[position] !== 1) {
              entry.reject(
                new RedisReplicationError(
                  'the job is no longer on its primary (a failover after the add?): not acknowledged',
                ),
              );
            } else if (confirmed < replicaAck!.replicas) {
              entry.reject(
                new RedisReplicationError(
                  `the job reached ${confirmed} of ${replicaAck!.replicas} replicas within ${replicaAck!.timeoutMs} ms: not acknowledged`,
                ),
              );
            } else entry.resolve();
          }
        }
      } catch (error) {
        for (const entry of waiting) entry.reject(error as Error);
      }
    }
    batch.flushing = false;
  }

  /**
   * Resolves once the job is on enough replicas. Jobs that finish their add while a check is on
   * the wire share the next one: one WAIT at a time per connection (per partition on a cluster,
   * where a pipeline holds one slot), not one per job.
   */
  function replicated(partition: number, key: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const batch = batches[client.isCluster ? partition : 0]!;
      batch.pending.push({ partition, key, resolve, reject });
      if (!batch.flushing) void flush(batch);
    });
  }

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
        const partition = partitionOf(job.orderingKey, topology.partitions);
        const queue = queues[partition]!;
        const jobId = jobIdOf(job);
        const added = await queue.add(
          job.type,
          job,
          jobId === undefined ? jobOptions : { ...jobOptions, jobId },
        );
        if (replicaAck !== undefined) await replicated(partition, queue.toKey(added.id ?? jobId ?? ''));
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
      if (owned) await closeClient(client);
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

/**
 * Warns when a primary has fewer connected replicas than `waitForReplicas` asks for: every enqueue
 * to it would wait out its timeout and be refused (503).
 */
async function checkReplicas(client: RedisClient, replicas: number, logger: Logger): Promise<void> {
  const servers: Redis[] = serversOf(client);
  await Promise.all(
    servers.map(async (server) => {
      try {
        const info = await server.info('replication');
        const connected = Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
        if (connected < replicas) {
          logger.warn(
            {
              node: `${server.options.host ?? '127.0.0.1'}:${server.options.port ?? 6379}`,
              connected,
              replicas,
            },
            `IMPORTANT: waitForReplicas asks for ${replicas} replica(s) but this primary has ${connected}: its enqueues will be refused (503) until enough replicas are connected`,
          );
        }
      } catch (error) {
        logger.debug({ err: error }, 'could not read INFO replication');
      }
    }),
  );
}
