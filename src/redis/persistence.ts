/*
 * The start-up persistence check of the BullMQ dispatcher and worker: what Redis persists (AOF,
 * RDB snapshots), read from CONFIG or INFO on every primary, and what to do when a restart would
 * drop jobs already answered 200 (warn, or refuse with `requirePersistence`). Connecting is
 * connection.ts's; this module only reads a connected client's settings.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { serversOf, type RedisClient } from './connection.js';

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

/** What one server persists, read from CONFIG, else from INFO persistence (AOF only). */
async function readServerPersistence(client: Redis): Promise<RedisPersistence | undefined> {
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

/** Why a server's persistence leaves jobs answered 200 at risk of a restart; undefined when it does not. */
function persistenceProblem(persistence: RedisPersistence | undefined): string | undefined {
  if (persistence === undefined) {
    return 'Redis persistence could not be checked (CONFIG and INFO unavailable)';
  }
  if (!persistence.verified && !persistence.aof) {
    return 'Redis persistence could not be checked (CONFIG GET is disabled or renamed) and AOF is off: RDB snapshots are unknown';
  }
  if (!persistence.aof && persistence.rdb === false) {
    return 'Redis persists nothing (appendonly no, save ""): a Redis restart drops every queued webhook already answered 200';
  }
  return undefined;
}

/**
 * What Redis persists, read from CONFIG, else from INFO persistence (AOF only). On a cluster,
 * every primary is read and the first one whose settings put jobs at risk is answered (else the
 * first primary's).
 */
export async function readPersistence(client: RedisClient): Promise<RedisPersistence | undefined> {
  const all = await Promise.all(serversOf(client).map(readServerPersistence));
  return all.find((persistence) => persistenceProblem(persistence) !== undefined) ?? all[0];
}

/**
 * Reads Redis's persistence settings at start-up (every primary of a cluster) and warns when a
 * Redis restart would silently drop every queued job already answered 200: neither AOF nor RDB
 * snapshots, or settings that cannot be read (CONFIG disabled or renamed). With
 * `requirePersistence`, rejects with a {@link RedisPersistenceError} instead. Resolves with what
 * was read.
 */
export async function checkPersistence(
  client: RedisClient,
  logger: Logger,
  options: PersistenceCheckOptions = {},
): Promise<RedisPersistence | undefined> {
  const persistence = await readPersistence(client);
  const problem = persistenceProblem(persistence);
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
