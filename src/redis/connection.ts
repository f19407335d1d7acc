import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/** ioredis connection options (host, port, password, tls, db...). */
export type RedisConnectionOptions = Omit<RedisOptions, 'replyMapping'>;

/** Where Redis is: ioredis options or a `redis://` URL. */
export type RedisConnection = RedisConnectionOptions | string;

/** Longest wait for one Redis command of the receiver before it counts as failed. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 1000;

/**
 * How a client is used:
 * - `receiver`: answers an HTTP request; must fail fast when Redis is down (no offline queue,
 *   one retry, a command timeout) so the router answers 503 well inside the sender's budget;
 * - `worker`: waits out an outage (BullMQ's blocking commands need `maxRetriesPerRequest: null`).
 */
export type ClientRole = 'receiver' | 'worker';

/** Creates an ioredis client tuned for its role; the caller owns it and must `quit()` it. */
export function createRedisClient(
  connection: RedisConnection,
  role: ClientRole,
  commandTimeoutMs: number = DEFAULT_COMMAND_TIMEOUT_MS,
): Redis {
  if (typeof connection !== 'string' && (typeof connection !== 'object' || connection === null)) {
    throw new TypeError(
      `connection: expected ioredis options or a redis:// URL, got ${connection === null ? 'null' : typeof connection}`,
    );
  }
  const tuned: RedisConnectionOptions =
    role === 'receiver'
      ? {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          commandTimeout: commandTimeoutMs,
          // A command lost with its connection must fail, not run later after a 503 was answered.
          autoResendUnfulfilledCommands: false,
          connectTimeout: Math.max(commandTimeoutMs, 1000),
          retryStrategy: (times) => Math.min(50 * times, 1000),
        }
      : { maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(100 * times, 2000) };
  return typeof connection === 'string'
    ? new Redis(connection, tuned)
    : new Redis({ ...connection, ...tuned });
}

/** Resolves once `client` is connected (it keeps reconnecting in the background until then). */
export async function waitUntilReady(client: Redis): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve) => client.once('ready', () => resolve()));
}

/** Logs ioredis errors instead of letting an unhandled 'error' event reach the console. */
export function logClientErrors(client: Redis, logger: Logger, what: string): void {
  let last = '';
  client.on('error', (error: Error) => {
    // A reconnect loop repeats one message many times a second: log each message once per streak.
    if (error.message === last) return;
    last = error.message;
    logger.warn({ err: error }, `${what}: redis connection error`);
  });
  client.on('ready', () => {
    last = '';
  });
}

/**
 * Reads Redis's `maxmemory-policy` and warns loudly unless it is `noeviction`: under memory
 * pressure any other policy silently deletes queued jobs and dedupe claims, which is data loss.
 * Resolves with the policy, or undefined when it could not be read (e.g. CONFIG disabled).
 */
export async function checkEvictionPolicy(client: Redis, logger: Logger): Promise<string | undefined> {
  let policy: string | undefined;
  try {
    const info = await client.info('memory');
    policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
  } catch (error) {
    logger.debug({ err: error }, 'could not read maxmemory-policy');
    return undefined;
  }
  if (policy !== undefined && policy !== 'noeviction') {
    logger.warn(
      { maxmemoryPolicy: policy },
      `IMPORTANT: Redis maxmemory-policy is "${policy}"; it must be "noeviction", or Redis may evict queued webhooks and dedupe keys under memory pressure`,
    );
  }
  return policy;
}

/** Closes a client this library opened: QUIT when connected, else drop the socket. */
export async function closeClient(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  try {
    await client.quit();
  } catch {
    // QUIT can race the server closing the socket: then the client is already ending.
    if (!hasEnded(client)) client.disconnect();
  }
}

/** Read afresh (not narrowed): the status changes while a command is awaited. */
const hasEnded = (client: Redis): boolean => client.status === 'end';
