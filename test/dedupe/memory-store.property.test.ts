import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { createMemoryDedupeStore, digestDedupeKey } from '../../src/dedupe/index.js';
import { fingerprint, FINGERPRINT_WORDS } from '../../src/dedupe/fingerprints.js';
import { sha256Base64url } from '../../src/util/sha256.js';

const SEED = Number(process.env.FC_SEED ?? 16_2026);

/**
 * The store's contract as plainly as it can be written: a Map in insertion order. A claim of a key
 * held for at most `ttl` is a duplicate; any other claim (new, released, expired) makes the key the
 * newest, and past `max` keys the oldest goes.
 */
class ModelStore {
  private readonly claims = new Map<string, number>();
  constructor(
    private readonly max: number,
    private readonly ttl: number,
  ) {}

  claim(key: string, now: number): boolean {
    const at = this.claims.get(key);
    if (at !== undefined && now - at <= this.ttl) return false;
    this.claims.delete(key);
    if (this.claims.size === this.max) this.claims.delete(this.claims.keys().next().value!);
    this.claims.set(key, now);
    return true;
  }

  release(key: string): void {
    this.claims.delete(key);
  }
}

type Step = { op: 'claim' | 'release'; key: number; wait: number };

describe('the in-memory dedupe store against a model of its contract', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  // Keys of both kinds the store tells apart: the pipeline's 43-character digests (packed as they
  // are) and short keys (digested first); few of them, so that claims repeat and collide in the table.
  const KEYS = [
    ...Array.from({ length: 24 }, (_, i) => digestDedupeKey('chatbot', `event-${i}`)),
    ...Array.from({ length: 24 }, (_, i) => `k${i}`),
  ];

  /** Runs random steps on the store and the model side by side; every claim must agree. */
  function agree(keys: readonly string[], maxes: fc.Arbitrary<number>, steps: number, runsWanted: number) {
    const step = fc.record<Step>({
      op: fc.constantFrom('claim', 'claim', 'claim', 'release'),
      key: fc.integer({ min: 0, max: keys.length - 1 }),
      wait: fc.constantFrom(0, 0, 1, 5, 40),
    });
    let runs = 0;
    try {
      fc.assert(
        fc.property(
          maxes,
          fc.integer({ min: 1, max: 60 }),
          fc.array(step, { minLength: steps / 2, maxLength: steps }),
          (max, ttl, list) => {
            runs += 1;
            let now = 0;
            jest.spyOn(performance, 'now').mockImplementation(() => now);
            const store = createMemoryDedupeStore({ max, ttlMs: ttl });
            const model = new ModelStore(max, ttl);
            for (const { op, key, wait } of list) {
              now += wait;
              if (op === 'release') {
                void store.release(keys[key]!);
                model.release(keys[key]!);
              } else {
                expect(store.claim(keys[key]!)).toBe(model.claim(keys[key]!, now));
              }
            }
          },
        ),
        { seed: SEED, numRuns: runsWanted },
      );
    } catch (error) {
      throw new Error(`property failed with seed ${SEED} (rerun: FC_SEED=${SEED})`, { cause: error });
    }
    expect(runs).toBe(runsWanted);
  }

  it('answers every claim as the model does: small stores, evictions, releases, expiry (fixed seed)', () => {
    agree(KEYS, fc.integer({ min: 1, max: 30 }), 300, 150);
  });

  it('answers every claim as the model does: crowded tables growing past 1 024 slots (fixed seed)', () => {
    // More live keys than the first allocation holds, and a pool little larger than the store, so
    // most claims are duplicates: long probe runs, removals shifting entries back, growth.
    const many = Array.from({ length: 1_500 }, (_, i) =>
      i % 2 === 0 ? digestDedupeKey('incoming', String(i)) : `key-${i}`,
    );
    agree(many, fc.integer({ min: 1_100, max: 1_450 }), 4_000, 8);
  });

  it('finds every key right after its claim, across each growth of its arrays', () => {
    // A key inserted while the arrays grow must survive the move (its fingerprint waits in a
    // scratch slot that moves with them).
    const store = createMemoryDedupeStore({ max: 5_000 });
    for (let i = 0; i < 6_000; i += 1) {
      const key = i % 3 === 0 ? `plain-${i}` : digestDedupeKey('status', String(i));
      expect(store.claim(key)).toBe(true);
      expect(store.claim(key)).toBe(false);
    }
  });

  it('tells apart keys that differ only in a lone surrogate (UTF-8 would make them all U+FFFD)', () => {
    const store = createMemoryDedupeStore();
    for (const key of ['\uD800', '\uD801', '\uDFFF', '\uFFFD', 'a\uD800b', 'a\uFFFDb']) {
      expect(store.claim(key)).toBe(true);
    }
    expect(store.claim('\uD801')).toBe(false);
  });

  it('keeps exactly the newest max keys of a long run past its first allocation (1 024 slots)', () => {
    const max = 5_000;
    const store = createMemoryDedupeStore({ max });
    const key = (i: number) => digestDedupeKey('incoming', String(i));
    for (let i = 0; i < 3 * max; i += 1) expect(store.claim(key(i))).toBe(true);
    // The newest max are remembered, the ones before them are not (each claim below re-inserts, so
    // it is checked from the newest down: a re-inserted old key evicts the oldest remembered one).
    for (let i = 3 * max - 1; i >= 2 * max; i -= 1) expect(store.claim(key(i))).toBe(false);
    expect(store.claim(key(2 * max - 1))).toBe(true);
  });
});

describe('fingerprint', () => {
  const words = (key: string) => {
    const out = new Int32Array(FINGERPRINT_WORDS);
    fingerprint(key, out, 0);
    return [...out];
  };

  it('packs two 43-character digests differing in their last character apart', () => {
    const a = digestDedupeKey('chatbot', 'x');
    const b = `${a.slice(0, 42)}${a[42] === 'A' ? 'B' : 'A'}`;
    expect(words(a)).not.toEqual(words(b));
    expect(words(a)).toEqual(words(a.slice()));
  });

  it('fingerprints any other key as the digest of # and its JSON text', () => {
    const digest = digestDedupeKey('chatbot', 'x');
    for (const key of ['k1', `${digest.slice(0, 42)}!`, `${digest.slice(0, 42)}é`, '\uD800']) {
      expect(words(key)).toEqual(words(sha256Base64url(`#${JSON.stringify(key)}`)));
      expect(words(key)).not.toEqual(words(digest));
    }
  });
});
