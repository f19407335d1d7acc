import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Dispatcher, DispatcherCounts, EnqueueOutcome, WebhookJob } from '../dispatch/types.js';
import { createInflight } from '../util/inflight.js';
import { withTimeout } from '../util/timeout.js';
import { createLibraryLogger, type LoggerOptions } from '../logger.js';
import { checkNestedKeys, checkOptions, optionKeys } from '../util/options.js';
import {
  checkEvictionPolicy,
  closeClient,
  DEFAULT_COMMAND_TIMEOUT_MS,
  logClientErrors,
  openClient,
  refuseKeyPrefix,
  resolveConnection,
  serversOf,
  waitUntilReady,
  type RedisClient,
  type RedisConnection,
} from './connection.js';
import { checkPersistence, validatePersistenceOptions, type PersistenceCheckOptions } from './persistence.js';
import {
  ACKED_FIELD,
  DISCARDED_FIELD,
  HELD_JOB_MS,
  openQueue,
  createClaimJobIds,
  DEFAULT_KEEP_COMPLETED_MS,
  jobIdOf,
  partitionOf,
  prefixTagWarning,
  resolveTopology,
  type QueueTopology,
} from './queues.js';
import { createRedisProbe, createReplicaProbe, type ComponentHealth } from './health.js';
import { registerClaimStep, type ClaimSettings } from './claim-step.js';
import { createDeadlines, type Deadlines } from './deadlines.js';
import type { ClaimedEnqueueOutcome } from '../dedupe/types.js';

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
   * How long a completed job is kept (for inspection, and for a redrive to find it). Without the
   * Redis dedupe store's claim in the add, a second add with the same jobId (a redelivery that
   * slipped past another dedupe store) is ignored while the job is kept. @default 3_600_000 (1 hour)
   */
  readonly keepCompletedMs?: number | undefined;
  /** How long a failed job (one that stalled too often) is kept for inspection. @default 7 days */
  readonly keepFailedMs?: number | undefined;
  /** A Redis command unanswered after this many ms fails, so the router answers 503. @default 1000 */
  readonly commandTimeoutMs?: number | undefined;
  /**
   * Answer 200 only once the job is on at least `replicas` replicas of its primary (Redis `WAIT`),
   * so that a failover (a replica promoted after its primary died) cannot lose an acknowledged
   * event. Each job is added held (delayed) and released to the workers only once the replicas
   * have it. Replicas that do not confirm within `timeoutMs` make the enqueue fail: the router
   * answers 503, the job stays held and does not run; the sender's redelivery is a duplicate of it
   * and releases it once the replicas confirm, and a job no redelivery released is discarded by
   * the worker after a minute. `health()` is not ready while a primary lacks the replicas.
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
const REPLICA_ACK_OPTION_KEYS = optionKeys<ReplicaAckOptions>()(['replicas', 'timeoutMs']);

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
   * connected or Redis did not answer the last background PING, and with `replicas_missing`
   * (`waitForReplicas` only) while the last acknowledgement or background `INFO replication` read
   * found a primary without enough replicas online. `router.health()` includes it.
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

/**
 * Marks held jobs acknowledged (their keys, one partition's): per job 1 when marked now, 0 when
 * marked before (by another delivery of the event), -1 when a worker discarded it, -2 when gone.
 */
const MARK_ACKED = `
local out = {}
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then out[i] = -2
  elseif redis.call('HEXISTS', KEYS[i], '${DISCARDED_FIELD}') == 1 then out[i] = -1
  else out[i] = redis.call('HSETNX', KEYS[i], '${ACKED_FIELD}', '1') end
end
return out`;

/** One enqueue waiting for its replica acknowledgement. */
interface ReplicaCheck {
  readonly partition: number;
  /** The BullMQ job: the one this enqueue added, or (a duplicate) the one added before. */
  readonly job: Job;
  /** This enqueue added the job; else it is a duplicate of an earlier delivery's. */
  readonly fresh: boolean;
  /** Resolved with whether this check released the job (a duplicate that did answers 200 as new). */
  readonly resolve: (released: boolean) => void;
  readonly reject: (error: Error) => void;
}

/** Jobs waiting for their replica check: of one partition on a cluster, of any on one Redis. */
interface ReplicaBatch {
  pending: ReplicaCheck[];
  flushing: boolean;
}

/** Entries grouped by partition, in arrival order (a cluster pipeline holds one slot). */
function byPartition(entries: readonly ReplicaCheck[]): Map<number, ReplicaCheck[]> {
  const groups = new Map<number, ReplicaCheck[]>();
  for (const entry of entries) {
    const group = groups.get(entry.partition);
    if (group === undefined) groups.set(entry.partition, [entry]);
    else group.push(entry);
  }
  return groups;
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
  // No ioredis timer per command on the dispatcher's own client: its adds are bounded by shared
  // deadlines (below), its other commands each by a timeout of their own.
  const { client, owned } = openClient(connection, 'receiver', commandTimeoutMs, {
    perCommandTimeout: false,
  });
  const noAnswer = (what: string) => (): never => {
    throw new Error(`${what}: no answer from Redis within ${commandTimeoutMs} ms`);
  };
  if (owned) logClientErrors(client, logger, 'bullmq dispatcher');
  const tagWarning = prefixTagWarning(topology);
  if (tagWarning !== undefined) logger.warn(tagWarning);
  const queues = topology.partitionNames.map((name) => openQueue(name, client, topology));
  const markers = queues.map((queue) => queue.toKey('mw-replicated'));
  const batches: ReplicaBatch[] = queues.map(() => ({ pending: [], flushing: false }));
  const reachable = createRedisProbe(client, commandTimeoutMs);
  const replicaProbe =
    replicaAck === undefined
      ? undefined
      : createReplicaProbe(() => serversOf(client), replicaAck.replicas, commandTimeoutMs);
  let deadQueue: Queue | undefined;
  // Kept objects: read (never changed) by BullMQ for every job.
  const removeOnComplete = { age: Math.ceil(keepCompletedMs / 1000) };
  const removeOnFail = { age: Math.ceil(keepFailedMs / 1000) };
  // One attempt (BullMQ's default): retries run inside the worker, so a conversation waits for
  // them (ordering). With the replica acknowledgement, held until the replicas have the job, then
  // released (promoted) by `replicated`.
  const jobOptions =
    replicaAck === undefined
      ? { removeOnComplete, removeOnFail }
      : { removeOnComplete, removeOnFail, delay: HELD_JOB_MS };
  // Claim-step jobIds: unique to their add, so that an add deduplicated by BullMQ answers another
  // jobId than the one it asked for (see createClaimJobIds).
  const nextClaimJobId = createClaimJobIds();
  const started = waitUntilReady(client).then(() =>
    withTimeout(
      (async () => {
        await checkEvictionPolicy(client, logger);
        // No AOF and no RDB: a Redis restart drops every job answered 200 (warned, or refused).
        await checkPersistence(client, logger, options);
        if (replicaAck !== undefined) await checkReplicas(client, replicaAck.replicas, logger);
      })(),
      3 * commandTimeoutMs,
      noAnswer('start-up checks'),
    ),
  );
  started.catch(() => undefined);

  /**
   * The replica acknowledgement of one batch, in three pipelines: (1) a marker write per partition
   * that also finds the jobs, then `WAIT`: the jobs are on the replicas; (2) the jobs marked
   * acknowledged and released to the workers (BullMQ's promote); (3) another marker write and
   * `WAIT`: the release is on the replicas too, so a failover cannot leave an acknowledged job held
   * (and then discarded). A job whose first check fails stays held and is answered 503.
   */
  async function flush(batch: ReplicaBatch): Promise<void> {
    batch.flushing = true;
    while (batch.pending.length > 0) {
      const waiting = batch.pending;
      batch.pending = [];
      try {
        const onReplicas = await markAndWait(waiting);
        const release: ReplicaCheck[] = [];
        for (const [entry, found] of onReplicas) {
          if (found === true) release.push(entry);
          else if (found === false) {
            // A duplicate of an event whose job ran and was removed since: nothing to release.
            if (entry.fresh) entry.reject(notOnPrimary());
            else entry.resolve(false);
          } else entry.reject(found);
        }
        if (release.length === 0) continue;
        const acked = await acknowledge(release);
        const released = await markAndWait(release);
        for (const entry of release) {
          const mark = acked.get(entry);
          const confirmed = released.get(entry);
          if (confirmed instanceof Error) entry.reject(confirmed);
          else if (mark === -1)
            entry.reject(
              new RedisReplicationError(
                'the job was held past its acknowledgement and discarded by a worker: not acknowledged',
              ),
            );
          else if (mark === -2 && entry.fresh) entry.reject(notOnPrimary());
          else if (mark instanceof Error) entry.reject(mark);
          else entry.resolve(mark === 1);
        }
      } catch (error) {
        for (const entry of waiting) entry.reject(error as Error);
      }
    }
    batch.flushing = false;
  }

  const notOnPrimary = (): RedisReplicationError =>
    new RedisReplicationError(
      'the job is no longer on its primary (a failover after the add?): not acknowledged',
    );

  /**
   * Writes each partition's marker (answering which jobs are on this primary), then `WAIT`s for the
   * replicas: per entry, whether its job was found with the replicas confirmed, or the error.
   */
  async function markAndWait(entries: readonly ReplicaCheck[]): Promise<Map<ReplicaCheck, boolean | Error>> {
    const groups = byPartition(entries);
    const pipeline = client.pipeline();
    for (const [partition, group] of groups) {
      const keys = group.map((entry) => queues[partition]!.toKey(entry.job.id!));
      pipeline.eval(MARK_REPLICATED, 1 + keys.length, markers[partition]!, ...keys, Date.now());
    }
    pipeline.call('WAIT', replicaAck!.replicas, replicaAck!.timeoutMs);
    const replies = (await pipeline.exec()) ?? [];
    const [waitError, acked] = replies.at(-1) ?? [new Error('WAIT: no reply')];
    if (waitError) throw waitError;
    const confirmed = Number(acked);
    replicaProbe!.record(confirmed >= replicaAck!.replicas);
    const outcome = new Map<ReplicaCheck, boolean | Error>();
    for (const [index, group] of [...groups.values()].entries()) {
      const [markError, found] = replies[index] ?? [new Error('replica check: no reply')];
      for (const [position, entry] of group.entries()) {
        if (markError) outcome.set(entry, markError);
        else if ((found as number[])[position] !== 1) outcome.set(entry, false);
        else if (confirmed < replicaAck!.replicas)
          outcome.set(
            entry,
            new RedisReplicationError(
              `the job reached ${confirmed} of ${replicaAck!.replicas} replicas within ${replicaAck!.timeoutMs} ms: not acknowledged`,
            ),
          );
        else outcome.set(entry, true);
      }
    }
    return outcome;
  }

  /**
   * Marks held jobs acknowledged (MARK_ACKED, per partition) and releases them (BullMQ's
   * `promote`, sent after the mark on the same connection): per entry, the mark or the error. A
   * promote that finds its job no longer held (released by another delivery of the event, or let
   * out by BullMQ past its hold) changes nothing, and is not an error.
   */
  async function acknowledge(entries: readonly ReplicaCheck[]): Promise<Map<ReplicaCheck, number | Error>> {
    const marks = [...byPartition(entries)].map(async ([partition, group]) => {
      const keys = group.map((entry) => queues[partition]!.toKey(entry.job.id!));
      const sent = client.eval(MARK_ACKED, keys.length, ...keys) as Promise<number[]>;
      const promoted = group.map((entry) =>
        entry.job.promote().catch((error: unknown) => {
          logger.debug({ err: error }, 'held job not promoted (released already?)');
        }),
      );
      try {
        const marked = await sent;
        return group.map((entry, index): [ReplicaCheck, number | Error] => [entry, marked[index] ?? -2]);
      } catch (error) {
        return group.map((entry): [ReplicaCheck, number | Error] => [entry, error as Error]);
      } finally {
        await Promise.all(promoted);
      }
    });
    return new Map((await Promise.all(marks)).flat());
  }

  /**
   * Resolves once the job is on enough replicas and released. Jobs that finish their add while a
   * check is on the wire share the next one: one round of checks at a time per connection (per
   * partition on a cluster, where a pipeline holds one slot), not one per job.
   */
  function replicated(partition: number, job: Job, fresh: boolean): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const batch = batches[client.isCluster ? partition : 0]!;
      batch.pending.push({ partition, job, fresh, resolve, reject });
      if (!batch.flushing) void flush(batch);
    });
  }

  let closed = false;
  const inflight = createInflight();

  async function jobCounts(): Promise<Record<string, number>> {
    const total: Record<string, number> = {};
    const all = await withTimeout(
      Promise.all(queues.map((queue) => queue.getJobCounts())),
      commandTimeoutMs,
      noAnswer('job counts'),
    );
    for (const counts of all) {
      for (const [state, n] of Object.entries(counts)) total[state] = (total[state] ?? 0) + n;
    }
    return total;
  }

  /**
   * Adds one job. With `claim`, the add is also the event's dedupe claim: BullMQ's deduplication
   * id is the dedupe key (kept `claim.ttlMs`, whatever becomes of the job), checked and set inside
   * BullMQ's add script, so claim, add and confirm are one atomic Redis script. Its jobId is this
   * dispatcher's tag and a counter (createClaimJobIds): BullMQ answers a deduplicated add with
   * the jobId of the job that holds the claim, so an answer other than the jobId asked for means
   * a duplicate (pinned by test/redis/bullmq-contract.test.ts). Without `claim`, the jobId is the
   * dedupe key, as another dedupe store's claim expects.
   */
  async function add(job: WebhookJob, claim: ClaimSettings | undefined): Promise<ClaimedEnqueueOutcome> {
    if (closed) return 'closed';
    // Refused to start: the add fails, so the router answers 503 rather than 200.
    if (requirePersistence) await started;
    inflight.enter();
    try {
      const partition = partitionOf(job.orderingKey, topology.partitions);
      const queue = queues[partition]!;
      const dedupeId = jobIdOf(job);
      let asked = dedupeId;
      let jobOpts: typeof jobOptions & { jobId?: string; deduplication?: { id: string; ttl: number } } =
        jobOptions;
      if (dedupeId !== undefined) {
        if (claim === undefined) jobOpts = { ...jobOptions, jobId: dedupeId };
        else {
          asked = nextClaimJobId();
          jobOpts = { ...jobOptions, jobId: asked, deduplication: { id: dedupeId, ttl: claim.ttlMs } };
        }
      }
      const added = await queue.add(job.type, job, jobOpts);
      const fresh = claim === undefined || asked === undefined || added.id === asked;
      // A redelivery of an event whose earlier delivery was answered 503 (held, not acknowledged)
      // and that this one released is answered as the acceptance it is, not as a duplicate.
      const released = replicaAck !== undefined && (await replicated(partition, added, fresh));
      return fresh || released ? 'accepted' : 'duplicate';
    } finally {
      inflight.leave();
    }
  }

  const timedOut = (timeoutMs: number) => () =>
    new Error(`enqueue: no answer from Redis within ${timeoutMs} ms`);

  const dispatcher: BullMQDispatcher = {
    enqueue(job) {
      const added = add(job, undefined) as Promise<EnqueueOutcome>;
      return enqueueDeadlines === undefined ? added : enqueueDeadlines.bound(added);
    },
    ready: () => started,
    jobCounts,
    async idle() {
      await inflight.none();
      for (;;) {
        const counts = await jobCounts();
        if (UNFINISHED.every((state) => (counts[state] ?? 0) === 0)) return;
        await new Promise((resolve) => setTimeout(resolve, IDLE_POLL_MS));
      }
    },
    async close(timeoutMs) {
      closed = true;
      for (const deadlines of claimDeadlines) deadlines.stop();
      // Accepted jobs are in Redis already: closing waits only for adds still on the wire.
      const drained = await withTimeout(
        inflight.none().then(() => true),
        timeoutMs,
        () => false,
      );
      await Promise.allSettled([...queues, ...(deadQueue ? [deadQueue] : [])].map((queue) => queue.close()));
      if (owned) await closeClient(client);
      return drained;
    },
    health() {
      const reasons: string[] = [];
      if (!reachable()) reasons.push('redis_unreachable');
      if (replicaProbe !== undefined && !replicaProbe.enough()) reasons.push('replicas_missing');
      return reasons.length === 0 ? READY : { ready: false, reasons };
    },
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
  // A plain add is one command (bounded as one), or with the replica acknowledgement several
  // round trips, bounded by the pipeline's deadline only.
  const enqueueDeadlines =
    replicaAck === undefined ? createDeadlines(commandTimeoutMs, timedOut(commandTimeoutMs)) : undefined;
  const claimDeadlines: Deadlines[] = enqueueDeadlines === undefined ? [] : [enqueueDeadlines];
  // The Redis dedupe store's claim step (`claimAndEnqueue`): the add with the claim in it, bounded
  // through one shared timer rather than one per event (nor ioredis's per-command timer, which the
  // dispatcher's own client goes without): by the command timeout, as any single command, or
  // with the replica acknowledgement (several round trips) by the pipeline's deadline.
  registerClaimStep(dispatcher, (claim, timeoutMs) => {
    const boundMs = replicaAck === undefined ? Math.min(timeoutMs, commandTimeoutMs) : timeoutMs;
    const deadlines = createDeadlines(boundMs, timedOut(boundMs));
    claimDeadlines.push(deadlines);
    if (replicaAck !== undefined || requirePersistence) return (job) => deadlines.bound(add(job, claim));
    const { ttlMs } = claim;
    // The common path, per event: one add, its answer read, nothing else.
    return (job) => {
      const dedupeId = job.dedupeKey === undefined ? undefined : jobIdOf(job);
      if (closed || dedupeId === undefined) return deadlines.bound(add(job, claim));
      const asked = nextClaimJobId();
      inflight.enter();
      const queue = queues[partitionOf(job.orderingKey, topology.partitions)]!;
      const added = queue.add(job.type, job, {
        removeOnComplete,
        removeOnFail,
        jobId: asked,
        deduplication: { id: dedupeId, ttl: ttlMs },
      });
      return deadlines.bound(
        added,
        (answered): ClaimedEnqueueOutcome => (answered.id === asked ? 'accepted' : 'duplicate'),
        inflight.leave,
      );
    };
  });
  return dispatcher;
}

const READY: ComponentHealth = Object.freeze({ ready: true, reasons: Object.freeze([]) });

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
