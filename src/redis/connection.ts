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

/** The start-up persistence check of the BullMQ dispatcher and worker. */
export interface PersistenceCheckOptions {
  /**
   * Refuse to start when Redis persists nothing (neither AOF nor RDB snapshots), or when that
   * cannot be verified (CONFIG disabled or renamed and INFO shows AOF off): `ready()` rejects
   * with a {@link RedisPersistenceError}, the dispatcher's enqueue fails (so the router answers
   * 503, never 200 for a job a Redis restart would drop) and the worker does not take jobs.
   * Without it, the same finding is a warning. @default false
   */
  readonly requirePersistence?: boolean | undefined;
}

/** What Redis persists: AOF (`appendonly yes`) and RDB snapshots (a non-empty `save`). */
export interface RedisPersistence {
  readonly aof: boolean;
  /** RDB snapshots configured; undefined when CONFIG could not be read. */
  readonly rdb: boolean | undefined;
  /** False when CONFIG GET failed and only INFO's `aof_enabled` was read. */
  readonly verified: boolean;
}

/** Thrown (as a rejection of `ready()`) by a `requirePersistence: true` dispatcher or worker. */
export class RedisPersistenceError extends Error {
  override readonly name = 'RedisPersistenceError';
  readonly code = 'redis_not_persistent' as const;
  constructor(
    message: string,
    readonly persistence: RedisPersistence | undefined,
  ) {
    super(message);
  }
}

const PERSISTENCE_ADVICE =
  'set `appendonly yes` (with `appendfsync everysec`) or RDB snapshots (`save 60 1000`); see docs/redis.md "Persistence"';

/** `CONFIG GET name` as a single value (ioredis answers [name, value]). */
async function configValue(client: Redis, name: string): Promise<string> {
  const reply = (await client.config('GET', name)) as unknown;
  const value = Array.isArray(reply) ? (reply as unknown[])[1] : undefined;
  if (typeof value !== 'string') throw new Error(`CONFIG GET ${name} answered no value`);
  return value;
}

/** What Redis persists, read from CONFIG, else from INFO persistence (AOF only). */
export async function readPersistence(client: Redis): Promise<RedisPersistence | undefined> {
  try {
    const [appendonly, save] = await Promise.all([
      configValue(client, 'appendonly'),
      configValue(client, 'save'),
    ]);
    return { aof: appendonly === 'yes', rdb: save.trim() !== '', verified: true };
  } catch {
    // CONFIG disabled or renamed (managed Redis often does this): INFO still tells AOF.
  }
  try {
    const info = await client.info('persistence');
    const aof = /^aof_enabled:(\d)/m.exec(info)?.[1];
    return aof === undefined ? undefined : { aof: aof === '1', rdb: undefined, verified: false };
  } catch {
    return undefined;
  }
}

/**
 * Reads Redis's persistence settings at start-up and warns when a Redis restart would silently
 * drop every queued job already answered 200: neither AOF nor RDB snapshots, or settings that
 * cannot be read (CONFIG disabled or renamed). With `requirePersistence`, rejects with a
 * {@link RedisPersistenceError} instead. Resolves with what was read.
 */
export async function checkPersistence(
  client: Redis,
  logger: Logger,
  options: PersistenceCheckOptions = {},
): Promise<RedisPersistence | undefined> {
  const persistence = await readPersistence(client);
  let problem: string | undefined;
  if (persistence === undefined) {
    problem = 'Redis persistence could not be checked (CONFIG and INFO unavailable)';
  } else if (!persistence.verified && !persistence.aof) {
    problem =
      'Redis persistence could not be checked (CONFIG GET is disabled or renamed) and AOF is off: RDB snapshots are unknown';
  } else if (!persistence.aof && persistence.rdb === false) {
    problem =
      'Redis persists nothing (appendonly no, save ""): a Redis restart drops every queued webhook already answered 200';
  }
  if (problem === undefined) return persistence;
  if (options.requirePersistence === true) {
    const error = new RedisPersistenceError(
      `${problem}; requirePersistence is set: ${PERSISTENCE_ADVICE}`,
      persistence,
    );
    logger.error({ persistence }, error.message);
    throw error;
  }
  logger.warn({ persistence }, `IMPORTANT: ${problem}; ${PERSISTENCE_ADVICE}`);
  return persistence;
}

/** Validates `requirePersistence` at construction. */
export function validatePersistenceOptions(options: PersistenceCheckOptions): void {
  const value = options.requirePersistence;
  if (value !== undefined && typeof value !== 'boolean') {
    throw new TypeError(`requirePersistence: expected a boolean, got ${typeof value}`);
  }
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
