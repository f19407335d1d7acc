import type { Logger } from 'pino';
import { createLibraryLogger, type LoggerOptions } from '../logger.js';
import { withTimeout } from '../util/timeout.js';
import {
  checkEvictionPolicy,
  isRedisClient,
  logClientErrors,
  openClient,
  resolveConnection,
  waitUntilReady,
  type RedisClient,
  type RedisConnection,
} from './connection.js';
import { createRedisProbe } from './health.js';

/** What a store built on its own or a given Redis client is given: one of the two, a key prefix. */
interface StoreClientOptions extends LoggerOptions {
  readonly connection?: RedisConnection | undefined;
  readonly client?: RedisClient | undefined;
  readonly prefix?: string | undefined;
}

/** A store's Redis client with what every store does around it. */
export interface StoreClient {
  readonly client: RedisClient;
  /** Whether the store opened the client (and so closes it). */
  readonly owned: boolean;
  readonly prefix: string;
  readonly logger: Logger;
  /** Whether Redis answered lately (for `health()`). */
  readonly reachable: () => boolean;
  /** Resolves once connected and the eviction policy was checked. */
  readonly firstReady: Promise<void>;
  /** Just after start the client is still connecting: waits for it briefly rather than fail. */
  readonly started: () => Promise<void>;
}

/**
 * Checks a Redis store's connection options and opens (or takes) its client: exactly one of
 * `connection` and `client`, a string prefix, the store's own client tuned to fail within
 * `commandTimeoutMs` with its errors logged as `role`'s, a reachability probe, and the eviction
 * policy checked once connected (a store whose keys Redis may evict loses its guarantee).
 */
export function openStoreClient(
  factory: string,
  role: string,
  options: StoreClientOptions,
  defaultPrefix: string,
  commandTimeoutMs: number,
): StoreClient {
  if ((options.connection === undefined) === (options.client === undefined)) {
    throw new TypeError(`${factory}: expected exactly one of \`connection\` or \`client\``);
  }
  const prefix = options.prefix ?? defaultPrefix;
  if (typeof prefix !== 'string') throw new TypeError(`prefix: expected a string, got ${typeof prefix}`);
  if (options.client !== undefined && !isRedisClient(options.client)) {
    throw new TypeError(
      `client: expected an ioredis Redis or Cluster instance (or give \`connection\`), got ${typeof options.client}`,
    );
  }
  const connection = resolveConnection(options.client ?? options.connection);
  const logger = createLibraryLogger(options, 'messaging-webhooks/redis');
  const { client, owned } = openClient(connection, 'receiver', commandTimeoutMs);
  if (owned) logClientErrors(client, logger, role);
  const reachable = createRedisProbe(client, commandTimeoutMs);
  let everReady = client.status === 'ready';
  const firstReady = waitUntilReady(client).then(async () => {
    everReady = true;
    await checkEvictionPolicy(client, logger);
  });
  firstReady.catch(() => undefined);
  return {
    client,
    owned,
    prefix,
    logger,
    reachable,
    firstReady,
    started: async () => {
      if (everReady) return;
      await withTimeout(firstReady, commandTimeoutMs, () => undefined);
    },
  };
}
