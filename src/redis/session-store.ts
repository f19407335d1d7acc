import { randomUUID } from 'node:crypto';
import { DEFAULT_SESSION_TTL_MS, type SessionRecord, type SessionStore } from '../bot/session.js';
import { type LoggerOptions } from '../logger.js';
import { checkOptions, optionKeys, positiveNumber } from '../util/options.js';
import { sha256Base64url } from '../util/sha256.js';
import { withTimeout } from '../util/timeout.js';
import {
  closeClient,
  DEFAULT_COMMAND_TIMEOUT_MS,
  type RedisClient,
  type RedisConnection,
} from './connection.js';
import { redisHealth, type ComponentHealth } from './health.js';
import { openStoreClient } from './store-client.js';

/** Library prefix of every session key: `mw:session:<digest of the session key>`. */
export const DEFAULT_SESSION_PREFIX = 'mw:session:';

/** Options of {@link createRedisSessionStore}: give `connection` or `client`. */
export interface RedisSessionStoreOptions extends LoggerOptions {
  /**
   * Where Redis is: options, a URL or cluster nodes (the store opens its own client, tuned to fail
   * fast, and closes it), or an ioredis `Redis` or `Cluster` instance, used as given (never closed).
   */
  readonly connection?: RedisConnection | undefined;
  /** An ioredis `Redis` or `Cluster` instance to use, as `connection` does with one (not closed by `close()`). */
  readonly client?: RedisClient | undefined;
  /** Key prefix, before the session key's digest. @default 'mw:session:' */
  readonly prefix?: string | undefined;
  /** A session not written for this long expires. @default 604_800_000 (7 days) */
  readonly ttlMs?: number | undefined;
  /** A Redis command unanswered after this many ms fails (and with it the attempt, which is retried). @default 1000 */
  readonly commandTimeoutMs?: number | undefined;
}

const REDIS_SESSION_STORE_OPTION_KEYS = optionKeys<RedisSessionStoreOptions>()([
  'connection',
  'client',
  'prefix',
  'ttlMs',
  'commandTimeoutMs',
  'logger',
  'redactLogs',
]);

/** The Redis session store: a {@link SessionStore} shared by every instance, kept across restarts. */
export interface RedisSessionStore extends SessionStore {
  read(key: string): Promise<SessionRecord | undefined>;
  write(key: string, data: string | undefined, expectedVersion: string | undefined): Promise<boolean>;
  /** Resolves once connected and the eviction policy was checked. */
  ready(): Promise<void>;
  /** Closes the store's own client (a given one is left open). */
  close(): Promise<void>;
  /** Readiness, synchronously: not ready with `redis_unreachable` while Redis does not answer. */
  health(): ComponentHealth;
}

// Compare-and-set in one script, so no other write can land between the check and the write:
// KEYS[1] the session; ARGV[1] the version read ('' = none), ARGV[2] the new version ('' = delete),
// ARGV[3] the JSON, ARGV[4] the TTL in ms. Every version is a fresh random token, so a version
// read before a delete and a re-creation never matches the new record.
const COMPARE_AND_SET = `
local current = redis.call('HGET', KEYS[1], 'v')
if (current or '') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 'd', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return 1`;

const noAnswer = (): never => {
  throw new Error('session store: no answer from Redis within commandTimeoutMs');
};

/**
 * Creates a Redis session store for `createBot({ session: { store } })`: sessions shared by every
 * instance and kept across restarts, each a hash (`v` its version, `d` its JSON) under
 * `<prefix><SHA-256 of the session key>` (fixed size, and no phone number in a key name), expiring
 * `ttlMs` after its last write. A write is a compare-and-set in one Lua script: it lands only if
 * the session still has the version the attempt read, so when two instances race on one
 * conversation the second write fails, its job is retried and reads the first one's state (no
 * lost update). When Redis fails or does not answer within `commandTimeoutMs`, the attempt fails
 * and is retried per the receiver's `retry`.
 *
 * @example
 * const store = createRedisSessionStore({ connection: { host: '127.0.0.1', port: 6379 } });
 * const bot = createBot({ session: { store, initial: () => ({ step: 'start' }) } });
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): RedisSessionStore {
  checkOptions('createRedisSessionStore', options, REDIS_SESSION_STORE_OPTION_KEYS);
  const ttlMs = Math.ceil(positiveNumber('ttlMs', options.ttlMs ?? DEFAULT_SESSION_TTL_MS));
  const commandTimeoutMs = positiveNumber(
    'commandTimeoutMs',
    options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
  );
  const { client, owned, prefix, reachable, firstReady, started } = openStoreClient(
    'createRedisSessionStore',
    'session store',
    options,
    DEFAULT_SESSION_PREFIX,
    commandTimeoutMs,
  );

  /** A command bounded by `commandTimeoutMs` whatever the client's own settings. */
  const bounded = <T>(command: Promise<T>): Promise<T> => withTimeout(command, commandTimeoutMs, noAnswer);
  const keyOf = (key: string): string => prefix + sha256Base64url(key);

  return {
    async read(key) {
      await started();
      const [version, data] = await bounded(client.hmget(keyOf(key), 'v', 'd'));
      return version === null || version === undefined || typeof data !== 'string'
        ? undefined
        : { data, version };
    },
    async write(key, data, expectedVersion) {
      await started();
      const version = data === undefined ? '' : randomUUID();
      const written = await bounded(
        client.eval(COMPARE_AND_SET, 1, keyOf(key), expectedVersion ?? '', version, data ?? '', ttlMs),
      );
      return written === 1;
    },
    ready: () => firstReady,
    health: redisHealth(reachable),
    async close() {
      if (owned) await closeClient(client);
    },
  };
}
