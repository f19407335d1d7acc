import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { DedupeStore } from '../dedupe/types.js';
import { DEFAULT_DEDUPE_TTL_MS } from '../dedupe/memory.js';
import { withTimeout } from '../util/timeout.js';
import { createLibraryLogger, type LoggerOptions } from '../logger.js';
import { checkOptions } from '../util/options.js';
import { REDIS_DEDUPE_STORE_OPTION_KEYS } from './option-keys.js';
import {
  checkEvictionPolicy,
  closeClient,
  createRedisClient,
  DEFAULT_COMMAND_TIMEOUT_MS,
  logClientErrors,
  waitUntilReady,
  type RedisConnection,
} from './connection.js';

/** Library prefix of every dedupe key: `mw:dedupe:<type>:<identity>`. */
export const DEFAULT_DEDUPE_PREFIX = 'mw:dedupe:';
/** How long a claim whose event is not yet enqueued blocks redeliveries. */
export const DEFAULT_DEDUPE_LEASE_MS = 30_000;

/** Options of {@link createRedisDedupeStore}: give `connection` or `client`. */
export interface RedisDedupeStoreOptions extends LoggerOptions {
  /** Where Redis is; the store opens its own client, tuned to fail fast. */
  readonly connection?: RedisConnection | undefined;
  /**
   * An ioredis client to use instead (not closed by `close()`). Tune it yourself to fail fast:
   * `enableOfflineQueue: false`, `maxRetriesPerRequest: 1`, a `commandTimeout`; otherwise a claim
   * may wait for the pipeline's deadline during an outage.
   */
  readonly client?: Redis | undefined;
  /** How long an accepted event's key is remembered; cover the sender's retry window. @default 3 days */
  readonly ttlMs?: number | undefined;
  /**
   * How long a fresh claim is held before its event is confirmed enqueued. Redeliveries during
   * the lease get 503 (the sender retries); when the claiming instance dies before enqueueing,
   * the lease runs out and the next redelivery is accepted. Keep it above the pipeline's
   * `enqueueTimeoutMs`. @default 30_000
   */
  readonly leaseMs?: number | undefined;
  /** Key prefix, before the pipeline's `<type>:<identity>`. @default 'mw:dedupe:' */
  readonly prefix?: string | undefined;
  /** A Redis command unanswered after this many ms fails (own client only). @default 1000 */
  readonly commandTimeoutMs?: number | undefined;
}

/** The Redis dedupe store: a {@link DedupeStore} shared by every receiver instance. */
export interface RedisDedupeStore extends DedupeStore {
  claim(key: string): Promise<boolean>;
  release(key: string): Promise<void>;
  confirm(key: string): Promise<void>;
  /** Resolves once connected and the eviction policy was checked. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** A redelivery arrived while another claim of the same event awaits its enqueue. */
export class DedupeClaimPendingError extends Error {
  readonly code = 'dedupe_claim_pending';
  constructor(readonly key: string) {
    super(`Event ${key} is being enqueued by another request; retry later`);
    this.name = 'DedupeClaimPendingError';
  }
}

const DONE = 'done';

// Atomic claim: absent -> a lease owned by this store; `done` -> duplicate; a lease -> pending.
const CLAIM = `
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if v == '${DONE}' then return 0 end
return -1`;

// Release only this store's own lease: never a confirmed key, never another instance's lease.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

const positive = (name: string, value: number): number => {
  if (!Number.isFinite(value) || value <= 0) {
    throw new TypeError(`${name}: expected a positive number, got ${String(value)}`);
  }
  return value;
};

/**
 * Creates a Redis dedupe store: a claim is atomic across instances (a Lua script setting the key
 * only when absent, with a TTL), keys are `<prefix><type>:<identity>`. A claim is first a short
 * lease and becomes permanent (`ttlMs`) once the pipeline confirms the event was enqueued; it is
 * released when the enqueue failed. When Redis fails or is unreachable, `claim` rejects within
 * `commandTimeoutMs`; the pipeline's `dedupe.onStoreError` decides (default 'reject': 503).
 *
 * @example
 * const store = createRedisDedupeStore({ connection: { host: '127.0.0.1', port: 6379 } });
 * app.use('/webhooks', createWebhookRouter({ dedupe: { store }, onChatbot }));
 */
export function createRedisDedupeStore(options: RedisDedupeStoreOptions): RedisDedupeStore {
  checkOptions('createRedisDedupeStore', options, REDIS_DEDUPE_STORE_OPTION_KEYS);
  if ((options.connection === undefined) === (options.client === undefined)) {
    throw new TypeError('createRedisDedupeStore: expected exactly one of `connection` or `client`');
  }
  const ttlMs = Math.ceil(positive('ttlMs', options.ttlMs ?? DEFAULT_DEDUPE_TTL_MS));
  const leaseMs = Math.ceil(positive('leaseMs', options.leaseMs ?? DEFAULT_DEDUPE_LEASE_MS));
  const commandTimeoutMs = positive(
    'commandTimeoutMs',
    options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
  );
  const prefix = options.prefix ?? DEFAULT_DEDUPE_PREFIX;
  if (typeof prefix !== 'string') throw new TypeError(`prefix: expected a string, got ${typeof prefix}`);
  const logger: Logger = createLibraryLogger(options, 'messaging-webhooks/redis');
  const owned = options.client === undefined;
  const client =
    options.client ?? createRedisClient(options.connection as RedisConnection, 'receiver', commandTimeoutMs);
  if (owned) logClientErrors(client, logger, 'dedupe store');
  // This instance's lease value, so release never deletes another instance's claim.
  const lease = `lease:${randomUUID()}`;
  let everReady = client.status === 'ready';
  const firstReady = waitUntilReady(client).then(async () => {
    everReady = true;
    await checkEvictionPolicy(client, logger);
  });
  firstReady.catch(() => undefined);

  /** Just after start the client is still connecting: wait briefly rather than fail at once. */
  async function started(): Promise<void> {
    if (everReady) return;
    await withTimeout(firstReady, commandTimeoutMs, () => undefined);
  }

  return {
    async claim(key) {
      await started();
      const outcome = await client.eval(CLAIM, 1, prefix + key, lease, leaseMs);
      if (outcome === 1) return true;
      if (outcome === 0) return false;
      throw new DedupeClaimPendingError(key);
    },
    async release(key) {
      await client.eval(RELEASE, 1, prefix + key, lease);
    },
    async confirm(key) {
      await client.set(prefix + key, DONE, 'PX', ttlMs);
    },
    ready: () => firstReady,
    async close() {
      if (!owned) return;
      await closeClient(client);
    },
  };
}
