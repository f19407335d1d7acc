import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { WebhookJob } from '../dispatch/types.js';

/** Default BullMQ queue name; partitions are `<name>-0` ... `<name>-<n-1>`, dead letters `<name>-dead`. */
export const DEFAULT_QUEUE_NAME = 'webhooks';
/** Default number of partition queues: conversations run in parallel up to this many at a time. */
export const DEFAULT_PARTITIONS = 16;
/** Completed jobs are kept this long so a late re-add of the same jobId is still ignored. */
export const DEFAULT_KEEP_COMPLETED_MS = 60 * 60 * 1000;

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
}

/** The resolved names of a topology. */
export interface ResolvedTopology {
  readonly queueName: string;
  readonly partitions: number;
  readonly prefix: string | undefined;
  readonly partitionNames: readonly string[];
  readonly deadLetterName: string;
}

/**
 * A BullMQ queue of the topology on `client`. Its 'error' events are dropped: the client's own
 * listener logs a connection error once, and BullMQ re-emits it on every queue.
 */
export function openQueue<T = unknown>(name: string, client: Redis, topology: ResolvedTopology): Queue<T> {
  const queue = new Queue<T>(name, {
    connection: client,
    ...(topology.prefix === undefined ? {} : { prefix: topology.prefix }),
  });
  queue.on('error', () => undefined);
  return queue;
}

/** Validates a topology at construction; throws a TypeError saying what was expected. */
export function resolveTopology(options: QueueTopology): ResolvedTopology {
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
  return {
    queueName,
    partitions,
    prefix: options.prefix,
    partitionNames: Array.from({ length: partitions }, (_, i) => `${queueName}-${i}`),
    deadLetterName: `${queueName}-dead`,
  };
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
 * The BullMQ jobId of a job: its dedupe key, escaped because BullMQ ids cannot contain `:`
 * (injective: `%` is escaped first). Jobs without a dedupe key get BullMQ's own id.
 */
export function jobIdOf(job: WebhookJob): string | undefined {
  if (job.dedupeKey === undefined) return undefined;
  return job.dedupeKey.replace(/%/g, '%25').replace(/:/g, '%3A');
}
