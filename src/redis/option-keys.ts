import { optionKeys } from '../util/options.js';
import type { RedisDedupeStoreOptions } from './dedupe-store.js';

/**
 * The keys of {@link RedisDedupeStoreOptions}; anything else throws at construction. Kept apart
 * from the store so that its claim logic and this list change independently; `optionKeys` makes
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
