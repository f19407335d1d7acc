import type { Job, Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { WebhookJob } from '../dispatch/types.js';
import { createLibraryLogger, type LoggerOptions } from '../logger.js';
import { checkOptions, optionKeys } from '../util/options.js';
import { withTimeout } from '../util/timeout.js';
import {
  closeClient,
  describeConnection,
  logClientErrors,
  openClient,
  refuseKeyPrefix,
  resolveConnection,
  waitUntilReady,
  type RedisConnection,
} from './connection.js';
import {
  openQueue,
  DEFAULT_KEEP_COMPLETED_MS,
  jobIdOf,
  partitionOf,
  resolveTopology,
  type QueueTopology,
  type ResolvedTopology,
} from './queues.js';
import type { DeadLetterRecord } from './worker.js';

/** Options of {@link createDeadLetterQueue}. */
export interface DeadLetterQueueOptions extends QueueTopology, LoggerOptions {
  /**
   * Where Redis is: options, a URL or cluster nodes (the queue opens its own client and closes it),
   * or an ioredis `Redis` or `Cluster` instance, used as given and not closed by `close()`.
   */
  readonly connection: RedisConnection;
  /** Longest wait for the first connection before every call rejects. @default 5000 */
  readonly connectTimeoutMs?: number | undefined;
  /** How long a redriven job is kept once completed (as the dispatcher's `keepCompletedMs`). @default 3_600_000 */
  readonly keepCompletedMs?: number | undefined;
}

/** The keys of {@link DeadLetterQueueOptions}; anything else throws at construction. */
export const DEAD_LETTER_QUEUE_OPTION_KEYS = optionKeys<DeadLetterQueueOptions>()([
  'connection',
  'connectTimeoutMs',
  'keepCompletedMs',
  'queueName',
  'partitions',
  'prefix',
  'hashTags',
  'logger',
  'redactLogs',
]);

/** One dead letter: a job whose callback failed on every attempt, as the worker stored it. */
export interface DeadLetterEntry {
  /** Its id in the `<queueName>-dead` queue: `<partition queue>-<job id>`. */
  readonly id: string;
  readonly type: WebhookJob['type'];
  readonly requestId: string;
  /** The partition queue it ran on and is redriven to. */
  readonly partition: string;
  /** Attempts made in its last run (the worker's `retry.attempts`). */
  readonly attempts: number;
  /** The last attempt's error (name and message; the stack is in {@link DeadLetterEntry.record}). */
  readonly error: { readonly name: string; readonly message: string };
  /** When the event was received. */
  readonly receivedAt: Date;
  /** When its first attempt failed (over earlier redrives too, when known). */
  readonly firstFailedAt: Date;
  /** When its last attempt failed and it was dead-lettered. */
  readonly lastFailedAt: Date;
  /** Times it was redriven before, and failed again. */
  readonly redrives: number;
  /** The stored record: the job (payload included), the error with its stack. */
  readonly record: DeadLetterRecord;
}

/** What {@link DeadLetterQueue.redrive} did, or would do in a dry run. */
export interface RedriveReport {
  readonly dryRun: boolean;
  /** The dead letters put back (or that would be), in the order they were added. */
  readonly redriven: readonly { readonly id: string; readonly type: string; readonly partition: string }[];
  /** Requested ids that are not in the dead-letter queue. */
  readonly missing: readonly string[];
  /** Dead letters left alone because their event is queued or running again already. */
  readonly skipped: readonly { readonly id: string; readonly reason: string }[];
}

/** Options of {@link DeadLetterQueue.redrive}. */
export interface RedriveOptions {
  /** Only these dead letters (ids from `list`). @default every dead letter */
  readonly ids?: readonly string[] | undefined;
  /** Report what would be redriven; change nothing. @default false */
  readonly dryRun?: boolean | undefined;
}

/** The dead letters of a BullMQ topology (the `<queueName>-dead` queue the worker fills). */
export interface DeadLetterQueue {
  /** Dead letters, oldest first; `offset`/`limit` page through a long queue. */
  list(page?: { readonly offset?: number; readonly limit?: number }): Promise<DeadLetterEntry[]>;
  /** How many dead letters there are. */
  count(): Promise<number>;
  /** One dead letter, or undefined. */
  get(id: string): Promise<DeadLetterEntry | undefined>;
  /**
   * Puts dead letters back on their partition queues, in the order their events were received
   * (so one conversation's events run in order), each with its original jobId (its dedupe key),
   * and takes them out of the dead-letter queue. A redriven job that fails every attempt again is
   * dead-lettered again.
   */
  redrive(options?: RedriveOptions): Promise<RedriveReport>;
  /** Deletes the given dead letters (or all); resolves with the number deleted. */
  purge(options?: { readonly ids?: readonly string[] | undefined }): Promise<number>;
  /** Closes the queues and the Redis connection. */
  close(): Promise<void>;
}

/** Thrown for a dead-letter queue that cannot be reached or a record that cannot be read. */
export class DeadLetterQueueError extends Error {
  override readonly name = 'DeadLetterQueueError';
  readonly code = 'dead_letter_queue' as const;
}

/** Job data the worker reads: the webhook job, plus what survives a redrive. */
type RedrivenJobData = WebhookJob & { readonly firstFailedAt?: number; readonly redrives?: number };

const DEAD_STATES = ['wait', 'prioritized', 'delayed'] as const;
const KEEP_FAILED_MS = 7 * 24 * 60 * 60 * 1000;

function entryOf(job: Job<DeadLetterRecord>, topology: ResolvedTopology): DeadLetterEntry {
  const record = job.data as Partial<DeadLetterRecord> | undefined;
  const webhook = record?.job;
  if (webhook === undefined || typeof webhook.orderingKey !== 'string' || typeof webhook.type !== 'string') {
    throw new DeadLetterQueueError(`dead letter ${job.id ?? '?'} holds no webhook job`);
  }
  const lastFailedAt = record!.failedAt ?? job.timestamp;
  const id = job.id ?? '';
  return {
    id,
    type: webhook.type,
    requestId: webhook.requestId,
    partition: topology.partitionNames[partitionOf(webhook.orderingKey, topology.partitions)]!,
    attempts: record!.attempts ?? 0,
    error: { name: record!.error?.name ?? 'Error', message: record!.error?.message ?? '' },
    receivedAt: new Date(webhook.receivedAt),
    firstFailedAt: new Date(record!.firstFailedAt ?? lastFailedAt),
    lastFailedAt: new Date(lastFailedAt),
    redrives: record!.redrives ?? 0,
    record: record as DeadLetterRecord,
  };
}

/**
 * Opens the dead letters of a queue topology (same `queueName`, `partitions` and `prefix` as the
 * dispatcher and worker): list and inspect them, redrive them after a fix, purge them. BullMQ's
 * own calls do the work (`getJobs`, `remove`, `add` with the original jobId, `clean`).
 *
 * @example
 * const dlq = createDeadLetterQueue({ connection: 'redis://127.0.0.1:6379' });
 * for (const entry of await dlq.list()) console.log(entry.id, entry.type, entry.error.message);
 * await dlq.redrive(); // after the handler is fixed
 * await dlq.close();
 */
export function createDeadLetterQueue(options: DeadLetterQueueOptions): DeadLetterQueue {
  checkOptions('createDeadLetterQueue', options, DEAD_LETTER_QUEUE_OPTION_KEYS);
  const connection = resolveConnection(options.connection);
  refuseKeyPrefix(connection);
  const topology = resolveTopology(options, connection);
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const keepCompletedMs = options.keepCompletedMs ?? DEFAULT_KEEP_COMPLETED_MS;
  for (const [name, value, min] of [
    ['connectTimeoutMs', connectTimeoutMs, 1],
    ['keepCompletedMs', keepCompletedMs, 1000],
  ] as const) {
    if (!(value >= min)) throw new TypeError(`${name}: expected a number >= ${min}, got ${String(value)}`);
  }
  const logger: Logger = createLibraryLogger(options, 'messaging-webhooks/redis');
  // Fail-fast client (an operator's command must not hang on a Redis that is down).
  const { client, owned } = openClient(connection, 'receiver', connectTimeoutMs);
  if (owned) logClientErrors(client, logger, 'dead-letter queue');
  const jobOptions = {
    attempts: 1,
    removeOnComplete: { age: Math.ceil(keepCompletedMs / 1000) },
    removeOnFail: { age: Math.ceil(KEEP_FAILED_MS / 1000) },
  };
  const target = describeConnection(connection);
  let queues: { dead: Queue<DeadLetterRecord>; partitions: Queue[] } | undefined;
  let connecting: Promise<NonNullable<typeof queues>> | undefined;

  function open(): Promise<NonNullable<typeof queues>> {
    connecting ??= withTimeout(
      waitUntilReady(client).then(() => true),
      connectTimeoutMs,
      () => false,
    ).then((ready) => {
      if (!ready) {
        throw new DeadLetterQueueError(`cannot connect to ${target} within ${connectTimeoutMs} ms`);
      }
      queues = {
        dead: openQueue<DeadLetterRecord>(topology.deadLetterName, client, topology),
        partitions: topology.partitionNames.map((name) => openQueue(name, client, topology)),
      };
      return queues;
    });
    return connecting;
  }

  async function all(): Promise<Job<DeadLetterRecord>[]> {
    const { dead } = await open();
    return dead.getJobs([...DEAD_STATES], 0, -1, true);
  }

  async function redriveOne(entry: DeadLetterEntry, job: Job<DeadLetterRecord>): Promise<string | undefined> {
    const { dead, partitions } = await open();
    const webhook = entry.record.job;
    const partition = partitions[partitionOf(webhook.orderingKey, topology.partitions)]!;
    const jobId = jobIdOf(webhook);
    if (jobId !== undefined) {
      // The first run's job is kept (completed) for keepCompletedMs and would make an add with the
      // same jobId a no-op: remove it first, unless the event is queued or running again.
      const previous = await partition.getJob(jobId);
      if (previous !== undefined) {
        const state = await previous.getState();
        if (state !== 'completed' && state !== 'failed' && state !== 'unknown') {
          return `its job ${jobId} is ${state} on ${partition.name}`;
        }
        await previous.remove();
      }
    }
    // Out of the dead-letter queue first: a redriven job that fails again at once is
    // dead-lettered under the same id, which an add is a no-op for while this one is there.
    await job.remove();
    const data: RedrivenJobData = {
      ...webhook,
      firstFailedAt: entry.firstFailedAt.getTime(),
      redrives: entry.redrives + 1,
    };
    try {
      await partition.add(webhook.type, data, jobId === undefined ? jobOptions : { ...jobOptions, jobId });
    } catch (error) {
      // Put the dead letter back, so a failed redrive loses nothing.
      await dead.add(job.name, job.data, { jobId: entry.id }).catch(() => undefined);
      throw error;
    }
    return undefined;
  }

  return {
    async list(page = {}) {
      const { dead } = await open();
      const offset = page.offset ?? 0;
      const end = page.limit === undefined ? -1 : offset + page.limit - 1;
      const jobs = await dead.getJobs([...DEAD_STATES], offset, end, true);
      return jobs.map((job) => entryOf(job, topology));
    },
    async count() {
      const { dead } = await open();
      return dead.getJobCountByTypes(...DEAD_STATES);
    },
    async get(id) {
      const { dead } = await open();
      const job = await dead.getJob(id);
      return job === undefined ? undefined : entryOf(job, topology);
    },
    async redrive(redriveOptions = {}) {
      const wanted = redriveOptions.ids === undefined ? undefined : new Set(redriveOptions.ids);
      const jobs = (await all()).filter((job) => wanted === undefined || wanted.has(job.id ?? ''));
      const found = new Set(jobs.map((job) => job.id));
      const missing = wanted === undefined ? [] : [...wanted].filter((id) => !found.has(id));
      // Received order: within a partition (hence a conversation) the events run as they came.
      const ordered = jobs
        .map((job) => ({ job, entry: entryOf(job, topology) }))
        .sort(
          (a, b) =>
            a.entry.receivedAt.getTime() - b.entry.receivedAt.getTime() ||
            a.entry.lastFailedAt.getTime() - b.entry.lastFailedAt.getTime(),
        );
      const redriven: { id: string; type: string; partition: string }[] = [];
      const skipped: { id: string; reason: string }[] = [];
      const dryRun = redriveOptions.dryRun === true;
      for (const { job, entry } of ordered) {
        if (!dryRun) {
          const reason = await redriveOne(entry, job);
          if (reason !== undefined) {
            skipped.push({ id: entry.id, reason });
            continue;
          }
        }
        redriven.push({ id: entry.id, type: entry.type, partition: entry.partition });
      }
      if (!dryRun)
        logger.info({ redriven: redriven.length, skipped: skipped.length }, 'dead letters redriven');
      return { dryRun, redriven, missing, skipped };
    },
    async purge(purgeOptions = {}) {
      const { dead } = await open();
      if (purgeOptions.ids !== undefined) {
        let removed = 0;
        for (const id of purgeOptions.ids) removed += await dead.remove(id);
        return removed;
      }
      let removed = 0;
      // limit 0: no limit. The dead-letter queue has no worker, so nothing is active in it.
      for (const state of DEAD_STATES) removed += (await dead.clean(0, 0, state)).length;
      logger.info({ purged: removed }, 'dead letters purged');
      return removed;
    },
    async close() {
      const current = queues;
      if (current !== undefined) {
        await Promise.allSettled([current.dead, ...current.partitions].map((queue) => queue.close()));
      }
      if (owned) await closeClient(client);
    },
  };
}
