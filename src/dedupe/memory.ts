import { LRUCache } from 'lru-cache';
import { checkOptions, optionKeys } from '../util/options.js';
import type { DedupeStore } from './types.js';

/** Remember event ids for 3 days: longer than any sender's retry window. */
export const DEFAULT_DEDUPE_TTL_MS = 3 * 24 * 60 * 60 * 1000;
/** Remember at most this many keys (about 20 MB at the measured per-key cost). */
export const DEFAULT_DEDUPE_MAX = 100_000;

export interface MemoryDedupeStoreOptions {
  /** Maximum number of remembered keys; the least recently seen is forgotten first. @default 100_000 */
  readonly max?: number | undefined;
  /** How long a key is remembered, in milliseconds. @default 3 days */
  readonly ttlMs?: number | undefined;
}

/** The keys of {@link MemoryDedupeStoreOptions}; anything else throws at construction. */
export const MEMORY_DEDUPE_STORE_OPTION_KEYS = optionKeys<MemoryDedupeStoreOptions>()(['max', 'ttlMs']);

/** An in-process {@link DedupeStore} on lru-cache: the default for one receiver instance. */
export function createMemoryDedupeStore(options: MemoryDedupeStoreOptions = {}): DedupeStore {
  checkOptions('createMemoryDedupeStore', options, MEMORY_DEDUPE_STORE_OPTION_KEYS);
  const max = options.max ?? DEFAULT_DEDUPE_MAX;
  const ttl = options.ttlMs ?? DEFAULT_DEDUPE_TTL_MS;
  if (!Number.isInteger(max) || max < 1)
    throw new TypeError(`dedupe max: expected a positive integer, got ${max}`);
  if (!(ttl > 0)) throw new TypeError(`dedupe ttlMs: expected a positive number, got ${ttl}`);
  // Value 1 (a small integer) costs nothing beyond the slot; ttlAutopurge stays off so expiry
  // needs no timer per key: a stale key is dropped when it is next looked at or evicted. A TTL of
  // days needs no millisecond clock: reading the time once a second (ttlResolution) spares a
  // performance.now() and a timer per request at webhook rates.
  const cache = new LRUCache<string, 1>({ max, ttl, ttlResolution: Math.min(1000, ttl) });
  return {
    claim(key) {
      if (cache.has(key)) return false;
      cache.set(key, 1);
      return true;
    },
    release(key) {
      cache.delete(key);
    },
  };
}
