// Issue 24 item 2: the in-memory store's table hashed keys with a fixed, public function, so event
// ids whose keys land in one run of cells could be ground offline and turn claims into linear
// scans (hash flooding). The hash is now seeded per process: ids ground against any one seed
// (the published function included) land uniformly under another.
import { createMemoryDedupeStore, digestDedupeKey } from '../../src/dedupe/index.js';
import { fingerprint, FINGERPRINT_WORDS } from '../../src/dedupe/fingerprints.js';

const CELLS = 4096;
/** The aim of the grinding: the first 1/128th of the cells. */
const TARGET = CELLS / 128;
const COUNT = 600;

/** Two fixed seeds, so that the test is deterministic. */
const SEED_A = Int32Array.from({ length: FINGERPRINT_WORDS + 1 }, (_, i) => Math.imul(i + 1, 0x2545f491));
const SEED_B = Int32Array.from({ length: FINGERPRINT_WORDS + 1 }, (_, i) => Math.imul(i + 7, 0x61c88647));

const words = new Int32Array(FINGERPRINT_WORDS);
const cellOf = (key: string, seed?: Int32Array) => fingerprint(key, words, 0, seed) & (CELLS - 1);

/**
 * The table's hash as published before issue 24 (what an attacker grinds against offline): the
 * same fingerprint words, mixed from a fixed state with no seed. Written out here, so the test
 * needs nothing of the fix to aim at it.
 */
function publishedCellOf(key: string): number {
  fingerprint(key, words, 0);
  let hash = 0x9e3779b9;
  for (let i = 0; i < FINGERPRINT_WORDS; i += 1)
    hash = Math.imul(hash ^ words[i]!, 0x85ebca6b) ^ (hash >>> 15);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) & (CELLS - 1);
}

/** Event ids' keys, made as the pipeline makes them, that land in the target cells of `cell`. */
function grind(cell: (key: string) => number, tag: string): string[] {
  const keys: string[] = [];
  for (let i = 0; keys.length < COUNT; i += 1) {
    const key = digestDedupeKey('chatbot', JSON.stringify([`${tag}-${i}`]));
    if (cell(key) < TARGET) keys.push(key);
  }
  return keys;
}

/** How many keys land in the target cells, and the most that share one cell. */
function clustering(keys: readonly string[], seed?: Int32Array) {
  const perCell = new Map<number, number>();
  let inTarget = 0;
  for (const key of keys) {
    const cell = cellOf(key, seed);
    if (cell < TARGET) inTarget += 1;
    perCell.set(cell, (perCell.get(cell) ?? 0) + 1);
  }
  return { inTarget, fullest: Math.max(...perCell.values()) };
}

describe('the in-memory dedupe table hash (issue 24: hash flooding)', () => {
  // Uniform placement puts COUNT / 128 ≈ 5 keys in the target (more than 40: p < 1e-20), and at most
  // a handful in any one cell.
  it('spreads ids ground against the published hash, under the seed the store uses', () => {
    const crafted = grind(publishedCellOf, 'published');
    const { inTarget, fullest } = clustering(crafted);
    expect(inTarget).toBeLessThan(40);
    expect(fullest).toBeLessThan(8);
  });

  it('spreads ids ground against one seed under another', () => {
    const crafted = grind((key) => cellOf(key, SEED_A), 'seed-a');
    expect(clustering(crafted, SEED_A).inTarget).toBe(COUNT);
    expect(clustering(crafted, SEED_B).inTarget).toBeLessThan(40);
    expect(clustering(crafted, SEED_B).fullest).toBeLessThan(8);
  });

  it('keeps the fingerprint itself independent of the seed (equal keys still meet)', () => {
    const key = digestDedupeKey('chatbot', '["e-1"]');
    const [a, b] = [new Int32Array(FINGERPRINT_WORDS), new Int32Array(FINGERPRINT_WORDS)];
    fingerprint(key, a, 0, SEED_A);
    fingerprint(key, b, 0, SEED_B);
    expect([...a]).toEqual([...b]);
  });

  it('still answers every crafted id once, then as a duplicate, in a full store', () => {
    const crafted = grind(publishedCellOf, 'store');
    const store = createMemoryDedupeStore({ max: CELLS / 2 });
    for (let i = 0; i < CELLS / 2; i += 1) void store.claim(digestDedupeKey('incoming', `["fill-${i}"]`));
    expect(crafted.map((key) => store.claim(key))).toEqual(crafted.map(() => true));
    expect(crafted.map((key) => store.claim(key))).toEqual(crafted.map(() => false));
  });
});
