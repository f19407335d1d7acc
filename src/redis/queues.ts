import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import type { WebhookJob } from '../dispatch/types.js';
import { isClusterConnection, type RedisClient, type ResolvedConnection } from './connection.js';
import { DEFAULT_PARTITIONS, DEFAULT_QUEUE_NAME, withSharedNames } from './names.js';

export { DEFAULT_PARTITIONS, DEFAULT_QUEUE_NAME } from './names.js';
/** Completed jobs are kept this long so a late re-add of the same jobId is still ignored. */
export const DEFAULT_KEEP_COMPLETED_MS = 60 * 60 * 1000;

/**
 * With `waitForReplicas`, how long a job is held (a BullMQ delayed job) for its replica
 * acknowledgement to release it. Released at once on the common path; a job still held after this
 * (its every delivery answered 503, or its receiver died in the middle) is discarded by the worker
 * unless a redelivery acknowledged it meanwhile. Long beyond any sender's retries of one event.
 */
export const HELD_JOB_MS = 60_000;

/**
 * Job-hash fields of a held job (written beside BullMQ's own, removed with the job): `mwAcked`
 * once a receiver had it on enough replicas, `mwDiscarded` once a worker found it held past
 * {@link HELD_JOB_MS} without that. Each is set by an atomic script that refuses when the other
 * is set, so a job is either released or discarded, never both.
 */
export const ACKED_FIELD = 'mwAcked';
export const DISCARDED_FIELD = 'mwDiscarded';

/** Options shared by the dispatcher and the worker; both sides must agree on them. */
export interface QueueTopology {
  /** BullMQ queue name (no `:`). @default 'webhooks' */
  readonly queueName?: string | undefined;
  /**
   * Partition queues. A conversation (ordering key) always maps to the same partition, and a
   * partition runs one job at a time across all workers; must be equal on dispatcher and worker.
   * @default 16
   */
  readonly partitions?: number | undefined;
  /** BullMQ key prefix. @default 'bull' */
  readonly prefix?: string | undefined;
  /**
   * Wrap each queue's name in braces, a Redis Cluster hash tag (`{webhooks-3}`): all keys of one
   * partition queue share a slot, as BullMQ's multi-key scripts need, while different partitions
   * hash to different slots and so spread over the shards. Required on a cluster (`false` is
   * refused there); `true` also suits a single endpoint that enforces cluster slot rules (a proxy).
   * Dispatcher, workers and dead-letter queue must agree: the names differ with and without.
   * @default true when `connection` is a Redis Cluster (cluster nodes or an ioredis `Cluster`), else false
   */
  readonly hashTags?: boolean | undefined;
}

/** The resolved names of a topology. */
export interface ResolvedTopology {
  readonly queueName: string;
  readonly partitions: number;
  readonly prefix: string | undefined;
  readonly partitionNames: readonly string[];
  readonly deadLetterName: string;
  readonly hashTags: boolean;
}

/**
 * A BullMQ queue of the topology on `client`. Its 'error' events are dropped: the client's own
 * listener logs a connection error once, and BullMQ re-emits it on every queue.
 */
export function openQueue<T = unknown>(
  name: string,
  client: RedisClient,
  topology: ResolvedTopology,
): Queue<T> {
  const queue = new Queue<T>(name, {
    connection: client,
    ...(topology.prefix === undefined ? {} : { prefix: topology.prefix }),
  });
  queue.on('error', () => undefined);
  return queue;
}

/** The hash tag a key holds: what is between its first `{` and the next `}`, when not empty. */
function hashTagOf(key: string): string | undefined {
  const open = key.indexOf('{');
  if (open === -1) return undefined;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : undefined;
}

/**
 * Validates a topology at construction; throws a TypeError saying what was expected. What the
 * options leave unset comes from the shared names (`MESSAGING_WEBHOOKS_*`, see names.ts), then
 * the defaults. Hash tags default to on for a Redis Cluster and are required there.
 */
export function resolveTopology(given: QueueTopology, connection?: ResolvedConnection): ResolvedTopology {
  const options = withSharedNames(given);
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  if (typeof queueName !== 'string' || queueName === '' || queueName.includes(':')) {
    throw new TypeError(
      `queueName: expected a non-empty string without ':', got ${JSON.stringify(queueName)}`,
    );
  }
  const partitions = options.partitions ?? DEFAULT_PARTITIONS;
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > 1024) {
    throw new TypeError(`partitions: expected an integer from 1 to 1024, got ${String(partitions)}`);
  }
  if (options.hashTags !== undefined && typeof options.hashTags !== 'boolean') {
    throw new TypeError(`hashTags: expected a boolean, got ${typeof options.hashTags}`);
  }
  const cluster = connection !== undefined && isClusterConnection(connection);
  if (cluster && options.hashTags === false) {
    throw new TypeError(
      'hashTags: a Redis Cluster needs them (BullMQ scripts touch several keys of a queue, which must share a slot); leave hashTags unset or true',
    );
  }
  const hashTags = options.hashTags ?? cluster;
  // A brace in the name would end the tag early, leaving every partition the same tag.
  if (hashTags && /[{}]/.test(queueName)) {
    throw new TypeError(`queueName: expected no '{' or '}' with hash tags, got ${JSON.stringify(queueName)}`);
  }
  const name = (suffix: string): string => (hashTags ? `{${queueName}-${suffix}}` : `${queueName}-${suffix}`);
  return {
    queueName,
    partitions,
    prefix: options.prefix,
    partitionNames: Array.from({ length: partitions }, (_, i) => name(String(i))),
    deadLetterName: name('dead'),
    hashTags,
  };
}

/**
 * A warning when the prefix holds a hash tag of its own: Redis hashes the first tag of a key, so
 * every partition queue then lands in the prefix's one slot (it works, on one shard).
 */
export function prefixTagWarning(topology: ResolvedTopology): string | undefined {
  if (!topology.hashTags || topology.prefix === undefined) return undefined;
  const tag = hashTagOf(`${topology.prefix}:`);
  return tag === undefined
    ? undefined
    : `prefix ${JSON.stringify(topology.prefix)} holds the hash tag {${tag}}: Redis hashes a key's first tag, so every partition queue shares one slot (one shard); drop the braces from the prefix to spread the partitions`;
}

/** The partition of an ordering key: 32-bit FNV-1a, stable across processes and versions. */
export function partitionOf(orderingKey: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < orderingKey.length; i++) {
    hash ^= orderingKey.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}

/**
 * The jobIds of one dispatcher's adds that claim (the claim inside BullMQ's add): a tag of 72
 * random bits drawn once per dispatcher, then a counter. BullMQ answers an add deduplicated by its
 * deduplication id (the dedupe key) with the jobId of the job that holds the claim, so an answer
 * other than the jobId asked for is a duplicate: for that the id needs to be unique to its add,
 * and nothing more. Two dispatchers draw the same tag with a chance of 2^-72 per pair; `c` first,
 * so an id is never an integer (which BullMQ refuses), and base64url has no `:`.
 *
 * The dedupe key is not in the id: it is in the job's data and its deduplication id already, and
 * BullMQ packs the jobId twice per add (its arguments and its options) with msgpackr, a character
 * at a time in JavaScript: a 54-character id cost about 22,000 instructions per event more than
 * this one (bench/HISTORY.md, "2026-11-29: Redis mode").
 */
export function createClaimJobIds(): () => string {
  const tag = `c${randomBytes(9).toString('base64url')}.`;
  let sequence = 0;
  return () => {
    sequence += 1;
    return tag + sequence.toString(36);
  };
}

/**
 * The BullMQ jobId of a job: its dedupe key, escaped because BullMQ ids cannot contain `:`
 * (injective: `%` is escaped first). Jobs without a dedupe key get BullMQ's own id.
 */
export function jobIdOf(job: WebhookJob): string | undefined {
  const key = job.dedupeKey;
  if (key === undefined) return undefined;
  // The pipeline's keys are base64url digests, which need no escaping: no regex per event.
  return key.includes('%') || key.includes(':') ? key.replace(/%/g, '%25').replace(/:/g, '%3A') : key;
}
