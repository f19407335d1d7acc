import { optionKeys } from '../util/options.js';
import type { LoggerOptions } from '../logger.js';
import type { RedisClient, RedisConnection } from './connection.js';

/** Options of `createRedisDedupeStore`: give `connection` or `client`. */
export interface RedisDedupeStoreOptions extends LoggerOptions {
  /**
   * Where Redis is: options, a URL or cluster nodes (the store opens its own client, tuned to fail
   * fast, and closes it), or an ioredis `Redis` or `Cluster` instance, used as given: never closed
   * by `close()`, never retuned (see `client`). Dedupe keys are single keys, so they spread over a
   * cluster's shards by their digest.
   */
  readonly connection?: RedisConnection | undefined;
  /**
   * An ioredis `Redis` or `Cluster` instance to use, as `connection` does with one (not closed by
   * `close()`). Tune it yourself to fail fast: `enableOfflineQueue: false`,
   * `maxRetriesPerRequest: 1`, a `commandTimeout`; otherwise a claim may wait for the pipeline's
   * deadline during an outage (each claim is still bounded by `commandTimeoutMs`).
   */
  readonly client?: RedisClient | undefined;
  /** How long an accepted event's key is remembered; cover the sender's retry window. @default 3 days */
  readonly ttlMs?: number | undefined;
  /**
   * How long a fresh claim blocks redeliveries (they get 503 `claim_held` and the sender retries) unless
   * renewed. The claiming store renews it every `leaseMs / 3` until the event is confirmed
   * enqueued or released, so it need not cover the pipeline's `enqueueTimeoutMs`; when the
   * claiming instance dies, its lease runs out within `leaseMs` and the next redelivery is
   * accepted. At least 100. @default 1_000
   */
  readonly leaseMs?: number | undefined;
  /** Key prefix, before the pipeline's fixed-size digest. @default 'mw:dedupe:' */
  readonly prefix?: string | undefined;
  /** A Redis command unanswered after this many ms fails (own client only). @default 1000 */
  readonly commandTimeoutMs?: number | undefined;
}

/**
 * The keys of {@link RedisDedupeStoreOptions}; anything else throws at construction. Kept apart
 * from the store, with the interface, so that its claim logic and these change independently; `optionKeys` makes
 * the compiler reject a list that drifts from the interface.
 */
export const REDIS_DEDUPE_STORE_OPTION_KEYS = optionKeys<RedisDedupeStoreOptions>()([
  'connection',
  'client',
  'ttlMs',
  'leaseMs',
  'prefix',
  'commandTimeoutMs',
  'logger',
  'redactLogs',
]);
