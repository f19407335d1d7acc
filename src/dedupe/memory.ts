import { performance } from 'node:perf_hooks';
import { fingerprint, FINGERPRINT_WORDS } from './fingerprints.js';
import { checkOptions, optionKeys } from '../util/options.js';
import type { DedupeStore } from './types.js';

/** Remember event ids for 3 days: longer than any sender's retry window. */
export const DEFAULT_DEDUPE_TTL_MS = 3 * 24 * 60 * 60 * 1000;
/** Remember at most this many keys. @public (the benchmarks read it) */
export const DEFAULT_DEDUPE_MAX = 100_000;

export interface MemoryDedupeStoreOptions {
  /**
   * Maximum number of remembered keys; past it the oldest claim is forgotten first (insertion
   * order: a duplicate does not refresh a key). Each key is a fixed-size fingerprint, so the
   * store's memory is bounded by `max` whatever the sender sends (at most 200 B a key; the
   * measured figure is in docs/bench.md). @default 100_000
   */
  readonly max?: number | undefined;
  /** How long a key is remembered, in milliseconds. @default 3 days */
  readonly ttlMs?: number | undefined;
}

/** The keys of {@link MemoryDedupeStoreOptions}; anything else throws at construction. */
export const MEMORY_DEDUPE_STORE_OPTION_KEYS = optionKeys<MemoryDedupeStoreOptions>()(['max', 'ttlMs']);

/**
 * An in-process {@link DedupeStore}: the default for one receiver instance. It keeps no key as a
 * string: each key is held as its fingerprint (nine integers; see `fingerprint`) in typed arrays,
 * with the claim's time, in insertion order.
 *
 * Hand-written rather than on lru-cache: with lru-cache every remembered key is a string in old
 * space, and a full store (every new event evicts one, the steady state of any receiver past its
 * first `max` events) pays for them in garbage collection on the event loop, per request; typed
 * arrays hold no pointers the garbage collector follows (figures: docs/bench.md). The table's hash
 * is seeded per process (`processSeed`), so event ids cannot be ground offline to collide in it
 * (`npm run bench` scenario 14 holds crafted ids to the cost of random ones).
 */
export function createMemoryDedupeStore(options: MemoryDedupeStoreOptions = {}): DedupeStore {
  checkOptions('createMemoryDedupeStore', options, MEMORY_DEDUPE_STORE_OPTION_KEYS);
  const max = options.max ?? DEFAULT_DEDUPE_MAX;
  const ttl = options.ttlMs ?? DEFAULT_DEDUPE_TTL_MS;
  // Slot numbers are 32-bit integers and the table holds twice as many cells.
  if (!Number.isInteger(max) || max < 1 || max > MAX_SLOTS)
    throw new TypeError(`dedupe max: expected an integer from 1 to ${MAX_SLOTS}, got ${max}`);
  if (!(ttl > 0)) throw new TypeError(`dedupe ttlMs: expected a positive number, got ${ttl}`);
  const slots = new FingerprintSlots(max);
  // Milliseconds on a monotonic clock from the store's creation, read on every claim: no timer, so
  // nothing is left scheduled. Expiry is checked on claim; a stale key is dropped when it is claimed
  // again (it then counts as a new insertion) or evicted.
  const origin = performance.now();
  return {
    claim(key) {
      const now = performance.now() - origin;
      const found = slots.find(key);
      if (found !== NONE) {
        if (now - slots.claimedAt(found) <= ttl) return false;
        slots.remove(found);
      }
      slots.insert(now);
      return true;
    },
    release(key) {
      const found = slots.find(key);
      if (found !== NONE) slots.remove(found);
    },
  };
}

const NONE = -1;
const MAX_SLOTS = 2 ** 29;
/** Slots allocated at first; the arrays double up to `max` as keys arrive. */
const INITIAL_SLOTS = 1024;

/**
 * Up to `max` fingerprints with a time each, in insertion order (a doubly linked list over slot
 * numbers), found through an open-addressing table (linear probing, at most half full, deletion by
 * backward shift: no tombstones). `find` leaves the probed fingerprint in the scratch slot, so an
 * `insert` that follows it does not compute the fingerprint again.
 */
class FingerprintSlots {
  private capacity = 0;
  /** FINGERPRINT_WORDS words per slot, then one scratch fingerprint. */
  private words = new Int32Array(0);
  private hashes = new Int32Array(0);
  private times = new Float64Array(0);
  private next = new Int32Array(0);
  private prev = new Int32Array(0);
  /** Slot + 1 per table cell; 0 is empty. */
  private table = new Int32Array(0);
  private mask = 0;
  private oldest = NONE;
  private newest = NONE;
  private size = 0;
  /** Slots freed by `remove`, reused before new ones; without any, slots 0 … size − 1 are all held. */
  private free: number[] = [];
  /** The hash of the last `find`'s fingerprint, for the `insert` that may follow it. */
  private scratchHash = 0;

  constructor(private readonly max: number) {
    this.grow(Math.min(max, INITIAL_SLOTS));
  }

  claimedAt(slot: number): number {
    return this.times[slot]!;
  }

  /** The slot holding `key`, or NONE (its fingerprint then waits in the scratch slot for insert). */
  find(key: string): number {
    const { words, table, mask } = this;
    const scratch = this.capacity * FINGERPRINT_WORDS;
    const hash = fingerprint(key, words, scratch);
    this.scratchHash = hash;
    for (let cell = hash & mask; ; cell = (cell + 1) & mask) {
      const entry = table[cell]!;
      if (entry === 0) return NONE;
      const slot = entry - 1;
      if (this.hashes[slot] === hash && this.sameWords(slot * FINGERPRINT_WORDS, scratch)) return slot;
    }
  }

  /** Adds the fingerprint the last `find` missed, as the newest; evicts the oldest when full. */
  insert(time: number): void {
    if (this.size === this.max) this.remove(this.oldest);
    else if (this.free.length === 0 && this.size === this.capacity)
      this.grow(Math.min(this.max, this.capacity * 2));
    const slot = this.free.length > 0 ? this.free.pop()! : this.size;
    const { words } = this;
    words.copyWithin(
      slot * FINGERPRINT_WORDS,
      this.capacity * FINGERPRINT_WORDS,
      (this.capacity + 1) * FINGERPRINT_WORDS,
    );
    this.hashes[slot] = this.scratchHash;
    this.times[slot] = time;
    this.place(slot);
    this.prev[slot] = this.newest;
    this.next[slot] = NONE;
    if (this.newest === NONE) this.oldest = slot;
    else this.next[this.newest] = slot;
    this.newest = slot;
    this.size += 1;
  }

  /** Forgets a slot: out of the table and the order, its number kept for reuse. */
  remove(slot: number): void {
    this.unplace(slot);
    const before = this.prev[slot]!;
    const after = this.next[slot]!;
    if (before === NONE) this.oldest = after;
    else this.next[before] = after;
    if (after === NONE) this.newest = before;
    else this.prev[after] = before;
    this.free.push(slot);
    this.size -= 1;
  }

  private sameWords(a: number, b: number): boolean {
    const { words } = this;
    for (let i = 0; i < FINGERPRINT_WORDS; i += 1) if (words[a + i] !== words[b + i]) return false;
    return true;
  }

  /** Puts a slot in the first empty cell from its hash on. */
  private place(slot: number): void {
    const { table, mask } = this;
    let cell = this.hashes[slot]! & mask;
    while (table[cell] !== 0) cell = (cell + 1) & mask;
    table[cell] = slot + 1;
  }

  /** Takes a slot out of the table, shifting later cells of its run back (Knuth's algorithm R). */
  private unplace(slot: number): void {
    const { table, mask, hashes } = this;
    let hole = hashes[slot]! & mask;
    while (table[hole] !== slot + 1) hole = (hole + 1) & mask;
    for (let cell = (hole + 1) & mask; table[cell] !== 0; cell = (cell + 1) & mask) {
      const home = hashes[table[cell]! - 1]! & mask;
      // The entry may move back into the hole unless its home lies cyclically in (hole, cell].
      const stays = hole <= cell ? hole < home && home <= cell : hole < home || home <= cell;
      if (stays) continue;
      table[hole] = table[cell]!;
      hole = cell;
    }
    table[hole] = 0;
  }

  /** Reallocates the arrays for `capacity` slots (slot numbers stay) and rebuilds the table. */
  private grow(capacity: number): void {
    // Every array allocated before any is swapped: a failed allocation leaves the store as it was.
    const words = new Int32Array((capacity + 1) * FINGERPRINT_WORDS);
    const hashes = new Int32Array(capacity);
    const times = new Float64Array(capacity);
    const next = new Int32Array(capacity);
    const prev = new Int32Array(capacity);
    // At most half full: a power of two at least twice the slots.
    let cells = 2;
    while (cells < capacity * 2) cells *= 2;
    const table = new Int32Array(cells);
    const scratch = this.capacity * FINGERPRINT_WORDS;
    words.set(this.words.subarray(0, scratch));
    // The scratch fingerprint moves to the new end: an insert may be growing the arrays for it.
    words.set(this.words.subarray(scratch, scratch + FINGERPRINT_WORDS), capacity * FINGERPRINT_WORDS);
    this.words = words;
    this.hashes = copied(hashes, this.hashes);
    this.times = copied(times, this.times);
    this.next = copied(next, this.next);
    this.prev = copied(prev, this.prev);
    this.capacity = capacity;
    this.table = table;
    this.mask = cells - 1;
    for (let slot = this.oldest; slot !== NONE; slot = this.next[slot]!) this.place(slot);
  }
}

function copied<T extends Int32Array | Float64Array>(into: T, from: T): T {
  into.set(from);
  return into;
}
