/**
 * messaging-webhooks/redis: scale the receiver out over Redis. A shared dedupe store (one
 * event is accepted once across all instances) and a durable BullMQ dispatcher (200 only once
 * the job is in Redis) for the router; a worker running the typed callbacks in any process.
 * Needs the optional peer dependencies `ioredis` and `bullmq`. Works against one Redis, Redis
 * Sentinel (ioredis `sentinels` options) and Redis Cluster (`{ nodes }` or an ioredis `Cluster`).
 *
 * @example
 * import { createRedisDedupeStore, createBullMQDispatcher, createWorker } from 'messaging-webhooks/redis';
 * const connection = { host: '127.0.0.1', port: 6379 };
 * const router = createWebhookRouter({
 *   ...handlers,
 *   dedupe: { store: createRedisDedupeStore({ connection }) },
 *   dispatcher: createBullMQDispatcher({ connection }),
 * });
 * const worker = createWorker({ connection, handlers }); // here or in another process
 *
 * @packageDocumentation
 */
export {
  DEFAULT_COMMAND_TIMEOUT_MS,
  type RedisClient,
  type RedisClusterConnection,
  type RedisConnection,
  type RedisConnectionOptions,
} from './connection.js';
export {
  checkPersistence,
  readPersistence,
  RedisPersistenceError,
  type PersistenceCheckOptions,
  type RedisPersistence,
} from './persistence.js';
export {
  createRedisDedupeStore,
  DedupeClaimPendingError,
  DEFAULT_DEDUPE_LEASE_MS,
  DEFAULT_DEDUPE_PREFIX,
  type RedisDedupeStore,
  type RedisDedupeStoreOptions,
} from './dedupe-store.js';
export {
  createBullMQDispatcher,
  RedisReplicationError,
  type BullMQDispatcher,
  type BullMQDispatcherOptions,
  type ReplicaAckOptions,
} from './dispatcher.js';
export {
  DEFAULT_KEEP_COMPLETED_MS,
  DEFAULT_PARTITIONS,
  DEFAULT_QUEUE_NAME,
  type QueueTopology,
} from './queues.js';
export {
  createWorker,
  type DeadLetterRecord,
  type WebhookWorker,
  type WebhookWorkerOptions,
  type WorkerHealth,
} from './worker.js';
export { REDIS_NAME_ENV, sharedRedisNames, type RedisNameSource, type SharedRedisNames } from './names.js';
export { type ComponentHealth } from './health.js';
export {
  createDeadLetterQueue,
  DeadLetterQueueError,
  type DeadLetterEntry,
  type DeadLetterQueue,
  type DeadLetterQueueOptions,
  type RedriveOptions,
  type RedriveReport,
} from './dlq.js';
export {
  createRedisSessionStore,
  DEFAULT_SESSION_PREFIX,
  type RedisSessionStore,
  type RedisSessionStoreOptions,
} from './session-store.js';
