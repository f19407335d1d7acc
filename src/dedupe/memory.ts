import { sha256Base64url } from '../util/sha256.js';
import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import { checkOptions, optionKeys } from '../util/options.js';
import type { DedupeStore } from './types.js';

/** Remember event ids for 3 days: longer than any sender's retry window. */
export const DEFAULT_DEDUPE_TTL_MS = 3 * 24 * 60 * 60 * 1000;
/** Remember at most this many keys. */
export const DEFAULT_DEDUPE_MAX = 100_000;
/**
 * Longest key the store keeps as given; a longer one is kept as its SHA-256 (44 characters). The
 * pipeline's keys are 43-character digests, so this only bounds keys from a direct caller.
 */
export const MAX_STORED_KEY_LENGTH = 64;
/**
 * Upper bound of the memory one remembered key costs in this store, in bytes: a key of at most
 * {@link MAX_STORED_KEY_LENGTH} one-byte characters (V8: 16-byte header + characters, rounded up to
 * 8 = 80 B) plus the LRU's slots (key map entry, key and value arrays, linked-list indices).
 * bench/dedupe-memory.js measures the real figure: 119 B filled, 155 B under eviction churn (135
 * and 171 while lru-cache also kept a TTL and a start time per slot).
 */
export const DEDUPE_BYTES_PER_KEY_BOUND = 200;

export interface MemoryDedupeStoreOptions {
  /**
   * Maximum number of remembered keys; the least recently seen is forgotten first. The store's
   * memory is at most `max × DEDUPE_BYTES_PER_KEY_BOUND` bytes (20 MB by default), whatever the
   * sender sends: keys are fixed-size digests. @default 100_000
   */
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
  // The value is the claim's time: no TTL in lru-cache, whose per-item TTL bookkeeping (two
  // Float64Arrays of `max` entries written on every set, a staleness check on every has) is not
  // needed when every key lives for the same time. Expiry is checked on claim; eviction stays by
  // insertion order (peek, like has, does not refresh an entry; set of an expired key makes it the
  // newest). A stale key is dropped when it is claimed again or evicted, as before (no autopurge).
  const cache = new LRUCache<string, number>({ max });
  // Milliseconds on a monotonic clock from the store's creation: whole numbers that stay small
  // integers (V8 Smis, no boxed number per entry) for 12 days, and exact for any uptime. Read on
  // every claim (lru-cache read it on every set too): no timer, so nothing is left scheduled.
  const origin = performance.now();
  return {
    claim(key) {
      const stored = bounded(key);
      const now = Math.floor(performance.now() - origin);
      const claimedAt = cache.peek(stored);
      if (claimedAt !== undefined && now - claimedAt <= ttl) return false;
      cache.set(stored, now);
      return true;
    },
    release(key) {
      cache.delete(bounded(key));
    },
  };
}

/**
 * The key as stored: as given when short, else `#` + its SHA-256, so no caller can make one slot
 * cost more than {@link MAX_STORED_KEY_LENGTH} characters. Pipeline keys never start with `#`, so
 * a digested key cannot collide with one.
 */
function bounded(key: string): string {
  return key.length <= MAX_STORED_KEY_LENGTH ? key : `#${sha256Base64url(key)}`;
}
